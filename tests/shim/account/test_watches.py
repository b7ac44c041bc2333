"""The watch pages of the account site over HTTP, against a real ``bangscore serve``: sign-in
first, CSRF on every form, a watch removed only by its owner or its signed link, and a GET of
the unsubscribe link (a mail scanner) that removes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bangscore.shim.account import watches
from bangscore.storage import LocalStorage
from bangscore.stores import open_watch_store
from bangscore.stores.secret import load_session_secret
from bangscore.stores.watchstore import Condition
from bangscore.watch_links import WatchLinks
from tests import factories
from tests.live import ShimServer

pytestmark = [pytest.mark.server]
HOLLOW_KNIGHT = 367520
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ShimServer]:
    """A server over a small catalogue with Hollow Knight, no SMTP configured."""
    folder = tmp_path / "snapshots"
    record = factories.make_record(appid=HOLLOW_KNIGHT, name="Hollow Knight", price_usd=14.99)
    factories.publish_catalog([*factories.small_catalog()[:3], record], LocalStorage(folder))
    shim = ShimServer(tmp_path / "state", tmp_path / "shim.log", snapshot=folder).start()
    yield shim
    shim.stop()


def signed_up(server: ShimServer, email: str) -> tuple[httpx.Client, str]:
    """Given a server and an address, return a client signed up as it and its CSRF token."""
    client = httpx.Client(base_url=server.url, timeout=10)
    token = CSRF.findall(client.get("/account").text)[0]
    answer = client.post(
        "/account/signup", data={"csrf": token, "email": email, "password": "long enough pw!"}
    )
    assert answer.status_code == 303
    return client, CSRF.findall(client.get("/account").text)[0]


def test_watch_pages(server: ShimServer, tmp_path: Path) -> None:
    anonymous = httpx.Client(base_url=server.url, timeout=10)
    page = anonymous.get(f"/account/watch?appid={HOLLOW_KNIGHT}")
    assert "Sign in or create an account to watch Hollow Knight" in page.text
    assert anonymous.get("/account/watch?appid=nope").status_code == 400
    assert anonymous.get("/account/watch?appid=5").status_code == 404

    owner, csrf = signed_up(server, "owner@example.com")
    assert "Watch Hollow Knight" in owner.get(f"/account/watch?appid={HOLLOW_KNIGHT}").text
    form = {"appid": str(HOLLOW_KNIGHT), "condition": "banger"}
    assert owner.post("/account/watches", data={**form, "csrf": "forged"}).status_code == 403
    assert owner.post("/account/watches", data={**form, "csrf": csrf}).status_code == 303
    bad = {"appid": str(HOLLOW_KNIGHT), "condition": "below", "below_usd": "-3", "csrf": csrf}
    assert owner.post("/account/watches", data=bad).status_code == 400
    account = owner.get("/account").text
    assert "Hollow Knight" in account and "becomes a banger" in account
    assert 'id="unconfirmed"' in account  # no SMTP: the confirmation waits for alerts send

    store = open_watch_store(f"sqlite:///{tmp_path / 'state' / 'bangscore.sqlite3'}")
    [watch] = store.list_watches("owner@example.com")
    other, other_csrf = signed_up(server, "other@example.com")
    removal = f"/account/watches/{watch.watch_id}/remove"
    assert other.post(removal, data={"csrf": other_csrf}).status_code == 404
    assert store.find_watch(watch.watch_id) is not None

    links = WatchLinks(load_session_secret(None, tmp_path / "state"), server.url)
    link = links.unsubscribe_url(watch.watch_id)
    shown = anonymous.get(link)
    assert shown.status_code == 200 and "Stop watching Hollow Knight?" in shown.text
    assert store.find_watch(watch.watch_id) is not None  # a GET removes nothing
    forged = link[:-3] + "abc"
    assert anonymous.post(forged, data={"List-Unsubscribe": "One-Click"}).status_code == 400
    assert owner.post(removal, data={"csrf": csrf}).status_code == 303
    assert store.list_watches() == []
    assert "already removed" in anonymous.post(link).text
    store.close()
    for client in (anonymous, owner, other):
        client.close()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("367520", 367520, id="appid"),
        pytest.param(" 620 ", 620, id="spaces"),
        pytest.param("1", 1, id="lowest"),
        pytest.param(str(2**31 - 1), 2**31 - 1, id="highest"),
        pytest.param(str(2**31), None, id="too-high"),
        pytest.param("0", None, id="zero"),
        pytest.param("-5", None, id="negative"),
        pytest.param("12a", None, id="not-digits"),
        pytest.param("٣٦٧", None, id="non-ascii-digits"),
        pytest.param("00000000001", None, id="eleven-chars"),
        pytest.param("", None, id="empty"),
    ],
)
def test_the_appid_of_a_watch_link(raw: str, expected: int | None) -> None:
    assert watches._appid(raw) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({"condition": "banger"}, Condition(tier="banger"), id="banger"),
        pytest.param({"condition": "worth_it"}, Condition(tier="worth_it"), id="worth-it"),
        pytest.param(
            {"condition": "below", "below_usd": "9.999"}, Condition(below_usd=10.0), id="below"
        ),
        pytest.param({"condition": "below", "below_usd": "0"}, Condition(below_usd=0.0), id="free"),
        pytest.param({"condition": "below", "below_usd": "cheap"}, None, id="below-not-a-number"),
        pytest.param({"condition": "below", "below_usd": "-1"}, None, id="below-negative"),
        pytest.param({"condition": "below", "below_usd": "inf"}, None, id="below-infinite"),
        pytest.param({"condition": "below"}, None, id="below-missing"),
        pytest.param({"condition": "fair"}, None, id="other-tier"),
        pytest.param({}, None, id="none"),
    ],
)
def test_watch_form_condition(fields: dict[str, str], expected: Condition | None) -> None:
    assert watches._condition(fields) == expected
