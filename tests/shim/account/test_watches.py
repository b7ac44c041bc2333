"""The watch pages of the account site over HTTP, against a real ``bangscore serve``: sign-in
first, CSRF on every form, a watch removed only by its owner or its signed link, and a GET of
the unsubscribe link (a mail scanner) that removes nothing; and in-process (the app over the
small catalogue): the states the account page shows, the links' refusals and a store fault on
every watch page."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import httpx2
import pytest
from starlette.testclient import TestClient

from bangscore.errors import StoreUnavailable
from bangscore.mail.links import WatchLinks
from bangscore.scoring.pipeline import ScoredGame
from bangscore.settings import Settings
from bangscore.shim.account import watches
from bangscore.shim.account.watches import WatchOptions
from bangscore.shim.app import create_app
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource
from bangscore.storage import LocalStorage, ObjectStorage
from bangscore.stores import Stores, open_watch_store
from bangscore.stores.keystore import AccountRecord
from bangscore.stores.secret import load_session_secret
from bangscore.stores.watchstore import (
    MAX_WATCHES_PER_ADDRESS,
    Condition,
    SentAlert,
    WatchRecord,
    WatchStore,
    new_watch_id,
)
from tests.shim.account.test_accounts import FAST_HASHER, PASSWORD, Browser
from tests.support import factories, signups
from tests.support.factories import sqlite_stores
from tests.support.live import ShimServer

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
    """Given a server and an address, return a client signed up as it (the form, then the
    email's link) and its CSRF token."""
    return signups.signed_up(server.url, server.state_dir, email)


@pytest.mark.server
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
    # The sign-up's link proved the address: no second confirmation is asked for.
    assert 'id="unconfirmed"' not in account

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


PAID = {"price_usd": 9.99, "list_price_usd": 19.99, "recent_low_usd": 9.99, "discount_percent": 0}


@pytest.mark.parametrize(
    ("record", "met", "preselect"),
    [
        pytest.param({"tier": "fair", "price_usd": 20.0}, set(), "worth_it", id="fair"),
        pytest.param({"tier": "worth_it", "price_usd": 20.0}, {"worth_it"}, "banger", id="worth"),
        pytest.param(
            {"tier": "banger", "price_usd": 20.0}, {"worth_it", "banger"}, "below", id="banger"
        ),
        pytest.param(
            {"tier": "banger", "price_usd": 0.0}, {"worth_it", "banger", "below"}, None, id="free"
        ),
        pytest.param(
            {**PAID, "tier": "banger", "discount_percent": 50},
            {"worth_it", "banger", "recent_low", "next_sale"},
            "below",
            id="on-sale-at-its-low",
        ),
        pytest.param(
            {**PAID, "tier": "banger", "price_usd": 0.0, "discount_percent": 100},
            {"worth_it", "banger", "below", "recent_low", "next_sale"},
            None,
            id="paid-game-free-today",
        ),
        pytest.param(
            {**PAID, "tier": "fair", "recent_low_usd": 4.99}, set(), "worth_it", id="above-low"
        ),
    ],
)
def test_the_watch_form_preselects_no_condition_already_true(
    record: dict[str, object], met: set[str], preselect: str | None
) -> None:
    # Issue 48: "becomes worth it" was checked on a game already worth it, so the alert came
    # at once and told the player nothing new.
    assert watches._choices(record) == (frozenset(met), preselect)


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


@pytest.mark.parametrize(
    ("ip", "network"),
    [
        pytest.param("192.0.2.77", "192.0.2.0/24", id="ipv4-24"),
        pytest.param("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64", id="ipv6-64"),
        pytest.param("unknown", "unknown", id="not-an-address"),
    ],
)
def test_watch_adds_are_limited_by_network(ip: str, network: str) -> None:
    assert watches.watch_network(ip) == network


# -- in-process: the app over the small catalogue --------------------------------------------


SECRET = "w" * 32
ALERTED_AT = 1_800_000_000  # 2027-01-15 08:00 UTC


@dataclass
class WatchApp:
    """The whole app with the watch pages: a browser, its key and watch stores, the links."""

    browser: Browser
    keys: Stores
    store: WatchStore
    links: WatchLinks
    game: ScoredGame


@contextlib.contextmanager
def watch_app_over(
    tmp_path: Path, snapshots: ObjectStorage, game: ScoredGame
) -> Iterator[WatchApp]:
    """Given a scratch folder, a published snapshot and one of its games, yield a browser signed
    in as watcher@x.io on the whole app over that snapshot."""
    keys = sqlite_stores(tmp_path / "keys.sqlite3")
    store = open_watch_store(f"sqlite:///{tmp_path / 'watches.sqlite3'}")
    quota = Quota(
        keys.counter, keys.keys, anonymous_limit=1000, page_limit=5000, key_cache_seconds=0
    )
    source = SnapshotSource(snapshots, cache_bytes=1 << 24, poll_seconds=3600)
    app = create_app(
        Settings(site_url=factories.SITE),
        source,
        quota,
        follow=False,
        session_secret=SECRET,
        accounts=keys.accounts,
        watches=WatchOptions(store=store),
    )
    with TestClient(app, base_url=factories.SITE, follow_redirects=False) as client:
        # The account is stored with a cheap hash (verifying reads its parameters), so only
        # the sign-in runs through the site: argon2's defaults would cost a second a test.
        keys.accounts.create_account(AccountRecord("watcher@x.io", FAST_HASHER.hash(PASSWORD), 1))
        browser = Browser(client)
        browser.open()
        assert browser.post("/account/signin", email="watcher@x.io", password=PASSWORD)[0] == 303
        browser.open()
        yield WatchApp(browser, keys, store, WatchLinks(SECRET, factories.SITE), game)
    store.close()


@pytest.fixture
def watch_app(
    tmp_path: Path, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> Iterator[WatchApp]:
    """A browser signed in as watcher@x.io on the app over the small catalogue."""
    game = next(g for g in small_snapshot[1] if g.record.price_usd > 1)
    with watch_app_over(tmp_path, small_snapshot[0], game) as app:
        yield app


def _watch(app: WatchApp, condition: Condition, *, fired: bool = False) -> WatchRecord:
    record = WatchRecord(new_watch_id(), "watcher@x.io", app.game.record.appid, condition, 1)
    app.store.add_watch(record)
    if fired:
        app.store.record_alert(SentAlert(record.watch_id, ALERTED_AT, "s1", 1.0, None, "<m@x>"))
    return record


def _state(page: str, watch_id: str) -> str:
    row = page.split(f'data-watch-id="{watch_id}"')[1].split("</tr>")[0]
    return row.split('class="state">')[1].split("<")[0].strip()


def test_the_account_page_shows_each_watchs_state(watch_app: WatchApp) -> None:
    price = watch_app.game.record.price_usd
    waiting = _watch(watch_app, Condition(below_usd=round(price / 2, 2)))
    come_true = _watch(watch_app, Condition(below_usd=round(price + 1, 2)))
    alerted = _watch(watch_app, Condition(tier="worth_it"), fired=True)
    page = watch_app.browser.open()
    assert _state(page, waiting.watch_id) == "waiting"
    assert _state(page, come_true.watch_id) == "come true: alert on the next nightly run"
    assert _state(page, alerted.watch_id) == "alerted"
    assert "(last alert 2027-01-15 08:00 UTC)" in page.split(alerted.watch_id)[1]
    assert 'id="unconfirmed"' in page


def test_the_account_page_says_when_the_watches_cannot_be_read(
    watch_app: WatchApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    _watch(watch_app, Condition(tier="banger"))
    monkeypatch.setattr(watch_app.store, "list_watches", _down)
    response = watch_app.browser.client.get("/account")
    assert response.status_code == 200  # the keys still show
    assert "Your watches cannot be read right now" in response.text
    assert 'id="watch-list"' not in response.text


def _down(*_: object, **__: object) -> None:
    raise StoreUnavailable("sqlite: disk gone")


@pytest.mark.parametrize(
    ("store", "method", "action"),
    [
        pytest.param("keys", "find_session", "start", id="watch-form-session"),
        pytest.param("watches", "add_watch", "add", id="add"),
        pytest.param("watches", "find_watch", "remove", id="remove"),
        pytest.param("watches", "confirmation_email", "confirm", id="confirm"),
        pytest.param("watches", "find_watch", "unsubscribe", id="unsubscribe"),
    ],
)
def test_an_unreachable_store_is_a_try_again_page(
    watch_app: WatchApp,
    monkeypatch: pytest.MonkeyPatch,
    store: str,
    method: str,
    action: str,
) -> None:
    watch = _watch(watch_app, Condition(tier="banger"))
    appid = watch_app.game.record.appid
    pending = watch_app.store.queue_confirmation("watcher@x.io", 1)
    assert pending is not None
    monkeypatch.setattr(
        watch_app.keys.accounts if store == "keys" else watch_app.store, method, _down
    )
    browser, client = watch_app.browser, watch_app.browser.client
    requests: dict[str, Callable[[], tuple[int, str]]] = {
        "start": lambda: _answer(client.get(f"/account/watch?appid={appid}")),
        "add": lambda: browser.post("/account/watches", appid=str(appid), condition="worth_it"),
        "remove": lambda: browser.post(f"/account/watches/{watch.watch_id}/remove"),
        "confirm": lambda: _answer(client.get(watch_app.links.confirm_url(pending.confirm_id))),
        "unsubscribe": lambda: _answer(
            client.post(watch_app.links.unsubscribe_url(watch.watch_id))
        ),
    }
    code, page = requests[action]()
    assert code == 503
    assert "please try again in a minute" in page and "disk gone" not in page
    monkeypatch.undo()
    assert [w.watch_id for w in watch_app.store.list_watches("watcher@x.io")] == [watch.watch_id]
    assert not watch_app.store.address("watcher@x.io").confirmed


def _answer(response: httpx2.Response) -> tuple[int, str]:
    return response.status_code, response.text


def _removed_meanwhile(store: WatchStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the store's next removal find the watch already gone (UnknownWatch), as when the
    other way of removing it (the form, the unsubscribe link) ran between read and write."""
    remove = store.remove_watch

    def twice(watch_id: str) -> WatchRecord:
        remove(watch_id)
        return remove(watch_id)

    monkeypatch.setattr(store, "remove_watch", twice)


def test_a_watch_removed_meanwhile_is_removed(
    watch_app: WatchApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its unsubscribe link won the race: the form's outcome is the same.
    watch = _watch(watch_app, Condition(tier="banger"))
    _removed_meanwhile(watch_app.store, monkeypatch)
    code, location = watch_app.browser.post(f"/account/watches/{watch.watch_id}/remove")
    assert (code, location) == (303, "/account#watches")
    assert watch_app.store.list_watches("watcher@x.io") == []


def test_a_remove_without_the_csrf_token_removes_nothing(watch_app: WatchApp) -> None:
    watch = _watch(watch_app, Condition(tier="banger"))
    client = watch_app.browser.client
    response = client.post(f"/account/watches/{watch.watch_id}/remove", data={"csrf": "forged"})
    assert response.status_code == 403 and "Your session expired" in response.text
    assert watch_app.store.find_watch(watch.watch_id) == watch


@pytest.mark.parametrize(
    "link",
    [
        pytest.param("/account/watches/confirm?t=forged", id="forged"),
        pytest.param("/account/watches/confirm", id="no-token"),
        pytest.param("{signed-unknown}", id="signed-but-unknown"),
    ],
)
def test_a_confirmation_link_not_valid_confirms_nothing(watch_app: WatchApp, link: str) -> None:
    if link == "{signed-unknown}":
        link = watch_app.links.confirm_url("c_not-a-pending-one")
    for send in (watch_app.browser.client.get, watch_app.browser.client.post):
        response = send(link)
        assert response.status_code == 400 and "Link not valid" in response.text
    assert watch_app.store.queue_confirmation("watcher@x.io", 1) is not None
    assert not watch_app.store.address("watcher@x.io").confirmed


def test_a_confirmation_link_shows_a_button_and_its_post_confirms(watch_app: WatchApp) -> None:
    pending = watch_app.store.queue_confirmation("watcher@x.io", 1)
    assert pending is not None
    link = watch_app.links.confirm_url(pending.confirm_id)
    shown = watch_app.browser.client.get(link)
    assert shown.status_code == 200 and not watch_app.store.address("watcher@x.io").confirmed
    confirmed = watch_app.browser.client.post(link)
    assert confirmed.status_code == 200 and "Address confirmed" in confirmed.text
    assert watch_app.store.address("watcher@x.io").confirmed


def test_an_address_at_the_most_watches_is_told_to_remove_one(watch_app: WatchApp) -> None:
    for other in range(1, MAX_WATCHES_PER_ADDRESS + 1):
        watch_app.store.add_watch(
            WatchRecord(new_watch_id(), "watcher@x.io", other, Condition(tier="banger"), 1)
        )
    appid = str(watch_app.game.record.appid)
    code, page = watch_app.browser.post("/account/watches", appid=appid, condition="banger")
    assert code == 409 and "Too many watches" in page and "remove one first." in page
    assert len(watch_app.store.list_watches("watcher@x.io")) == MAX_WATCHES_PER_ADDRESS


def test_a_one_click_unsubscribe_that_loses_a_race_says_already_removed(
    watch_app: WatchApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    watch = _watch(watch_app, Condition(tier="banger"))
    _removed_meanwhile(watch_app.store, monkeypatch)
    link = watch_app.links.unsubscribe_url(watch.watch_id)
    response = watch_app.browser.client.post(link, data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200 and "This watch is already removed." in response.text
    assert watch_app.store.list_watches() == []
