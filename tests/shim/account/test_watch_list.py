"""Watching a whole list (shim/account/watch_list.py) on a real server: a 100-game "rate a
list" page offers one button; the account's one action makes 100 watches at their verdict
prices, an unconfirmed address gets one confirmation for all of them, and its link confirms
the 100."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from bangscore.contract.objects import detail_key
from bangscore.mail.links import WatchLinks
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import LocalStorage
from bangscore.stores import open_watch_store
from bangscore.stores.secret import load_session_secret
from tests.support import factories, signups
from tests.support.live import ShimServer

pytestmark = pytest.mark.server


def store_url(server: ShimServer) -> str:
    """The server's SQLite store URL."""
    return f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}"


APPIDS = [50_000 + n for n in range(100)]
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShimServer]:
    """A server over a 100-game catalogue."""
    tmp = tmp_path_factory.mktemp("watch-list")
    folder = tmp / "snapshots"
    records = [
        factories.make_record(appid=a, name=f"List Game {n}", price_usd=9.99 + n % 7)
        for n, a in enumerate(APPIDS)
    ]
    factories.publish_catalog(records, LocalStorage(folder))
    shim = ShimServer(tmp / "state", tmp / "shim.log", snapshot=folder).start()
    yield shim
    shim.stop()


def test_watch_all_makes_100_watches_confirmed_by_one_mail(server: ShimServer) -> None:
    ids = ",".join(map(str, APPIDS))
    client, _ = signups.signed_in_old_account(server.url, store_url(server), "list@example.com")
    with contextlib.closing(client):
        rated = client.get("/rate", params={"ids": ids})
        assert rated.status_code == 200
        assert "<legend>Email me about these 100 games</legend>" in rated.text
        offered = re.findall(r'name="condition" value="(\w+)"', rated.text)
        assert offered == ["verdict_price", "recent_low", "next_sale"]
        form = client.get("/account/watch-list", params={"appids": ids})
        assert form.status_code == 200 and "Watch 100 games at their verdict price" in form.text
        csrf = CSRF.findall(form.text)[0]
        added = client.post("/account/watches/list", data={"appids": ids, "csrf": csrf})
        assert added.status_code == 303
        # The same list again is the same 100 watches, not 200.
        assert (
            client.post("/account/watches/list", data={"appids": ids, "csrf": csrf}).status_code
            == 303
        )
    store = open_watch_store(store_url(server))
    try:
        watches = store.list_watches("list@example.com")
        assert sorted(w.appid for w in watches) == APPIDS
        lookup = {g["appid"]: g for g in _items(server, ids)}
        for watch in watches:
            item = lookup[watch.appid]
            wanted = (
                item["verdict_price_usd"]
                if item["verdict_price_usd"] is not None
                else item["price_usd"]
            )
            assert watch.condition.below_usd == pytest.approx(wanted)
        (pending,) = [p for p in store.pending_confirmations() if p.email == "list@example.com"]
        assert not store.address("list@example.com").confirmed
    finally:
        store.close()
    secret = load_session_secret(None, server.state_dir, create=False)
    link = WatchLinks(secret, server.url).confirm_url(pending.confirm_id)
    with httpx.Client(timeout=10) as anyone:
        assert anyone.get(link).status_code == 200
        assert anyone.post(link).status_code == 200
    store = open_watch_store(store_url(server))
    try:
        assert store.address("list@example.com").confirmed
        assert len(store.list_watches("list@example.com")) == 100
    finally:
        store.close()


@pytest.mark.parametrize(
    ("condition", "email", "heading"),
    [
        ("recent_low", "low@example.com", "Watch 100 games: at or below its recent low"),
        ("next_sale", "sale@example.com", "Watch 100 games: when its next sale starts"),
    ],
    ids=["recent-low", "next-sale"],
)
def test_watch_all_for_an_event_makes_100_event_watches_and_one_confirmation(
    server: ShimServer, condition: str, email: str, heading: str
) -> None:
    ids = ",".join(map(str, APPIDS))
    client, _ = signups.signed_in_old_account(server.url, store_url(server), email)
    with contextlib.closing(client):
        form = client.get("/account/watch-list", params={"appids": ids, "condition": condition})
        assert form.status_code == 200 and heading in form.text
        assert f'name="condition" value="{condition}"' in form.text
        csrf = CSRF.findall(form.text)[0]
        wrong = {"appids": ids, "csrf": csrf, "condition": "tomorrow"}
        assert client.post("/account/watches/list", data=wrong).status_code == 400
        fields = {"appids": ids, "csrf": csrf, "condition": condition}
        assert client.post("/account/watches/list", data=fields).status_code == 303
    store = open_watch_store(store_url(server))
    try:
        watches = store.list_watches(email)
        assert sorted(w.appid for w in watches) == APPIDS
        assert {(w.condition.event, w.condition.below_usd) for w in watches} == {(condition, None)}
        assert [p.email for p in store.pending_confirmations()].count(email) == 1
    finally:
        store.close()


def _items(server: ShimServer, ids: str) -> list[dict[str, Any]]:
    """The detail records of the appids, from the served snapshot."""
    assert server.snapshot is not None
    storage = LocalStorage(server.snapshot)
    pointer = storage.read_pointer()
    assert pointer is not None
    manifest = read_manifest(storage, pointer)
    return [
        orjson.loads(read_body(storage, manifest.entries[detail_key(int(a))]))
        for a in ids.split(",")
    ]


def test_the_list_page_asks_a_visitor_to_sign_in(server: ShimServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as anyone:
        page = anyone.get("/account/watch-list", params={"appids": "50000,50001"})
        assert page.status_code == 200 and "Sign in or create an account" in page.text
        assert anyone.get("/account/watch-list", params={"appids": "x"}).status_code == 400
