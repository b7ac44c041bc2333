"""The account website: sign up, sign in, CSRF, rate limits, keys shown once, revocation,
over the real app and a real SQLite store (and Redis for the account records)."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.testclient import TestClient

from bangscore.errors import StoreUnavailable
from bangscore.scoring.pipeline import ScoredGame
from bangscore.settings import Settings
from bangscore.shim.account.accounts import (
    MAX_ACTIVE_KEYS,
    AccountSite,
    SignInLimits,
)
from bangscore.shim.account.routing import account_routes
from bangscore.shim.app import create_app
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource
from bangscore.storage import ObjectStorage
from bangscore.stores import Stores
from bangscore.stores.addresses import normalize_email
from bangscore.stores.keys import KEY_PATTERN, is_well_formed, key_digest
from bangscore.stores.secret import load_session_secret
from tests.support.factories import SITE, Clock, sqlite_stores

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
NEW_KEY = re.compile(r'id="new-key-value" readonly value="([^"]+)"')
PASSWORD = "correct horse battery"
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def csrf_of(page: str) -> str:
    match = CSRF.search(page)
    assert match, "page has no CSRF field"
    return match.group(1)


class Browser:
    """A TestClient with helpers to load a page and post its forms with the CSRF token."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.csrf = ""

    def open(self, path: str = "/account") -> str:
        response = self.client.get(path)
        assert response.status_code == 200
        self.csrf = csrf_of(response.text)
        return response.text

    def post(self, path: str, **fields: str) -> tuple[int, str]:
        response = self.client.post(path, data={"csrf": self.csrf, **fields})
        if response.status_code == 303:
            return 303, response.headers["location"]
        if CSRF.search(response.text):
            self.csrf = csrf_of(response.text)
        return response.status_code, response.text

    def signup(self, email: str, password: str = PASSWORD) -> tuple[int, str]:
        self.open()
        return self.post("/account/signup", email=email, password=password)


@pytest.fixture
def site_factory(tmp_path: Path) -> Callable[..., tuple[Browser, Stores]]:
    """Return a factory: given sign-in limits, a Browser over the account routes alone."""

    def make(limits: SignInLimits | None = None) -> tuple[Browser, Stores]:
        limits = limits or SignInLimits()
        store = sqlite_stores(tmp_path / f"accounts-{id(limits)}.sqlite3")
        site = AccountSite(
            store.accounts,
            store.keys,
            store.counter,
            site_url=SITE,
            limits=limits,
            hasher=FAST_HASHER,
            session_idle=3600,
            session_max=12 * 3600,
        )
        app = Starlette(routes=account_routes(site, session_secret="s" * 32))
        client = TestClient(app, base_url=SITE, follow_redirects=False)
        return Browser(client), store

    return make


@dataclass
class Site:
    """One account site on a settable clock, with a browser per client IP."""

    app: Starlette
    store: Stores
    clock: Clock

    def browser(self, ip: str = "192.0.2.1") -> Browser:
        """Given a client IP, return a fresh browser (no cookies) coming from it."""
        return Browser(TestClient(self.app, base_url=SITE, follow_redirects=False, client=(ip, 1)))


@pytest.fixture
def timed_site(tmp_path: Path) -> Site:
    """The account routes on a settable clock: 1 h idle and 12 h absolute session lifetimes."""
    store = sqlite_stores(tmp_path / "timed.sqlite3")
    clock = Clock(1_800_000_000.0)
    site = AccountSite(
        store.accounts,
        store.keys,
        store.counter,
        site_url=SITE,
        hasher=FAST_HASHER,
        clock=clock,
        session_idle=3600,
        session_max=12 * 3600,
    )
    return Site(Starlette(routes=account_routes(site, session_secret="c" * 32)), store, clock)


@pytest.fixture
def full_app(
    tmp_path: Path, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> Iterator[tuple[Browser, TestClient, Stores]]:
    """The whole app (API and account site) over the small catalog: browser, API client, store."""
    store = sqlite_stores(tmp_path / "keys.sqlite3")
    quota = Quota(
        store.counter, store.keys, anonymous_limit=1000, page_limit=5000, key_cache_seconds=0
    )
    source = SnapshotSource(small_snapshot[0], cache_bytes=1 << 24, poll_seconds=3600)
    app = create_app(
        Settings(site_url=SITE),
        source,
        quota,
        follow=False,
        session_secret="t" * 32,
        accounts=store.accounts,
    )
    with TestClient(app, base_url=SITE, follow_redirects=False) as client:
        yield Browser(client), client, store


# -- pure helpers --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        pytest.param("  Ann@Example.COM ", "ann@example.com", id="trim-lower"),
        pytest.param("a.b+tag@sub.example.org", "a.b+tag@sub.example.org", id="plus-sub"),
        pytest.param("no-at-sign.example.com", None, id="no-at"),
        pytest.param("two@@example.com", None, id="two-ats"),
        pytest.param("x@localhost", None, id="no-dot-domain"),
        pytest.param("sp ace@example.com", None, id="space"),
        pytest.param("a" * 250 + "@x.io", None, id="too-long"),
    ],
)
def test_normalize_email(typed: str, expected: str | None) -> None:
    assert normalize_email(typed) == expected


def test_session_secret_is_configured_or_generated_once_and_private(tmp_path: Path) -> None:
    assert load_session_secret(SecretStr("configured"), tmp_path) == "configured"
    assert not (tmp_path / "session_secret").exists()
    first = load_session_secret(None, tmp_path / "state")
    assert len(first) >= 48
    assert load_session_secret(None, tmp_path / "state") == first
    assert os.stat(tmp_path / "state" / "session_secret").st_mode & 0o777 == 0o600
    assert [p.name for p in (tmp_path / "state").iterdir()] == ["session_secret"]


# -- sign up and sign in -------------------------------------------------------------------------


def test_sign_up_signs_in_and_stores_only_an_argon2_hash(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, store = site_factory()
    # Root-relative: the browser stays on the origin it signed in from.
    assert browser.signup("Ann@Example.com") == (303, "/account")
    page = browser.open()
    assert "API keys" in page and 'id="who">ann@example.com<' in page
    account = store.accounts.find_account("ann@example.com")
    assert account is not None
    assert account.password_hash.startswith("$argon2id$")
    assert PASSWORD not in account.password_hash


@pytest.mark.parametrize(
    ("email", "password", "status", "message"),
    [
        pytest.param("not-an-email", PASSWORD, 400, "valid email", id="bad-email"),
        pytest.param("b@x.io", "short", 400, "at least 10", id="short-password"),
        pytest.param("taken@x.io", PASSWORD, 409, "exists", id="taken"),
    ],
)
def test_sign_up_refusals(
    site_factory: Callable[..., tuple[Browser, Stores]],
    email: str,
    password: str,
    status: int,
    message: str,
) -> None:
    browser, _ = site_factory()
    Browser(browser.client).signup("taken@x.io")
    browser.client.cookies.clear()
    code, page = browser.signup(email, password)
    assert code == status
    assert message in page
    assert 'id="create-key"' not in page  # still signed out


def test_refused_sign_up_forms_leave_the_hours_allowance_as_it_was(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    # Issue 48: weak (400), good, weak, good answered 429 "wait an hour" on the last one.
    browser, store = site_factory(SignInLimits(signups_per_ip=2))
    tries = [
        ("one@x.io", "short"),
        ("one@x.io", PASSWORD),
        ("not-an-email", PASSWORD),
        ("two@x.io", "password1"),
        ("two@x.io", PASSWORD),
        ("three@x.io", PASSWORD),
    ]
    codes = []
    for email, password in tries:
        browser.client.cookies.clear()
        codes.append(browser.signup(email, password)[0])
    assert codes == [400, 303, 400, 400, 303, 429]
    assert store.accounts.find_account("two@x.io") is not None
    assert store.accounts.find_account("three@x.io") is None


def test_a_refused_sign_up_says_when_to_come_back_in_retry_after(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    """Issue 56 item 8: the sign-up 429 had no Retry-After, though the README says every
    refusal carries one."""
    browser, _ = site_factory(SignInLimits(signups_per_ip=1))
    assert browser.signup("one@x.io")[0] == 303
    browser.client.cookies.clear()
    browser.open()
    refused = browser.client.post(
        "/account/signup", data={"csrf": browser.csrf, "email": "two@x.io", "password": PASSWORD}
    )
    assert refused.status_code == 429
    wait = int(refused.headers["Retry-After"])
    assert 0 < wait <= 3600  # the end of the hour's window
    assert "Too many sign-ups from here" in refused.text


@pytest.mark.parametrize("token", [None, "", "forged-token"], ids=["missing", "empty", "forged"])
def test_posts_without_the_session_csrf_token_are_refused(
    site_factory: Callable[..., tuple[Browser, Stores]], token: str | None
) -> None:
    browser, store = site_factory()
    browser.open()
    data = {"email": "c@x.io", "password": PASSWORD}
    if token is not None:
        data["csrf"] = token
    response = browser.client.post("/account/signup", data=data)
    assert response.status_code == 403
    assert store.accounts.find_account("c@x.io") is None


def test_sign_in_checks_the_password_and_says_the_same_for_unknown_emails(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, _ = site_factory()
    browser.signup("d@x.io")
    browser.client.cookies.clear()
    browser.open()
    wrong = browser.post("/account/signin", email="d@x.io", password="wrong password!")
    unknown = browser.post("/account/signin", email="nobody@x.io", password=PASSWORD)
    assert wrong[0] == unknown[0] == 401
    assert "Wrong email or password." in wrong[1] and "Wrong email or password." in unknown[1]
    assert browser.post("/account/signin", email="D@x.io", password=PASSWORD)[0] == 303
    assert 'id="who">d@x.io<' in browser.open()


def test_a_tampered_session_cookie_is_not_signed_in(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, _ = site_factory()
    browser.signup("e@x.io")
    cookie = browser.client.cookies["bangscore_session"]
    browser.client.cookies.clear()
    browser.client.cookies.set("bangscore_session", cookie[:-4] + "AAAA")
    assert "Sign in" in browser.open() and "e@x.io" not in browser.open()


def test_sign_out_ends_the_session(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, _ = site_factory()
    browser.signup("h@x.io")
    browser.open()
    assert browser.post("/account/signout")[0] == 303
    assert "Create an account" in browser.open()


def test_sign_out_ends_every_copy_of_the_session_cookie(timed_site: Site) -> None:
    owner = timed_site.browser()
    owner.signup("copy@x.io")
    owner.open()
    thief = timed_site.browser("198.51.100.7")
    thief.client.cookies.set("bangscore_session", owner.client.cookies["bangscore_session"])
    assert 'id="who">copy@x.io<' in thief.open()  # a copy works while the session lives
    thief_csrf = thief.csrf
    assert owner.post("/account/signout")[0] == 303
    assert "copy@x.io" not in thief.open() and "Sign in" in thief.open()
    thief.csrf = thief_csrf
    code, page = thief.post("/account/keys")
    assert code == 403 and not NEW_KEY.search(page)
    assert timed_site.store.keys.list_keys(dt.date(2027, 1, 15), "copy@x.io") == []


@pytest.mark.parametrize(
    ("steps", "signed_in"),
    [
        pytest.param([3599], True, id="active-within-idle"),
        pytest.param([3601], False, id="idle-too-long"),
        pytest.param([3000] * 14, True, id="active-under-12h"),
        pytest.param([3000] * 15, False, id="past-12h-absolute"),
    ],
)
def test_sessions_end_after_an_idle_and_an_absolute_lifetime(
    timed_site: Site, steps: list[int], signed_in: bool
) -> None:
    browser = timed_site.browser()
    browser.signup("life@x.io")
    for seconds in steps:
        timed_site.clock.now += seconds
        page = browser.client.get("/account").text
    assert ('id="who">life@x.io<' in page) is signed_in


def _fail(browser: Browser, email: str) -> tuple[int, str, str | None]:
    browser.open()
    response = browser.client.post(
        "/account/signin",
        data={"csrf": browser.csrf, "email": email, "password": "wrong password!"},
    )
    return response.status_code, response.text, response.headers.get("retry-after")


def test_failed_sign_ins_slow_the_failing_client_never_the_owner(timed_site: Site) -> None:
    owner = timed_site.browser("203.0.113.5")
    owner.signup("own@x.io")
    owner.client.cookies.clear()
    attacker = timed_site.browser("198.51.100.66")
    # Three free failures, then each attempt waits a delay that doubles: 1, 2, 4, 8 s.
    assert [_fail(attacker, "own@x.io")[0] for _ in range(3)] == [401, 401, 401]
    waits = []
    for _ in range(4):
        code, page, retry = _fail(attacker, "own@x.io")
        assert code == 429 and retry is not None and "Wait" in page
        waits.append(int(retry))
        timed_site.clock.now += int(retry)
        assert _fail(attacker, "own@x.io")[0] == 401  # after waiting, one more guess
    assert waits == [1, 2, 4, 8]
    assert _fail(attacker, "own@x.io")[:2][0] == 429
    # Meanwhile the owner, from their own address, signs in at once with the right password.
    owner.open()
    assert owner.post("/account/signin", email="own@x.io", password=PASSWORD)[0] == 303
    assert 'id="who">own@x.io<' in owner.open()


def test_one_client_guessing_many_accounts_is_slowed_too(timed_site: Site) -> None:
    attacker = timed_site.browser("198.51.100.99")
    codes = [_fail(attacker, f"victim{n}@x.io")[0] for n in range(11)]
    assert codes == [401] * 10 + [429]
    assert _fail(attacker, "victim99@x.io")[2] == "1"
    assert _fail(timed_site.browser("192.0.2.200"), "victim0@x.io")[0] == 401  # others are not


def test_a_store_fault_during_sign_in_throttling_fails_open(
    timed_site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = timed_site.browser()
    owner.signup("open@x.io")
    owner.client.cookies.clear()

    def down(*_: object) -> None:
        raise StoreUnavailable("sqlite: disk gone")

    monkeypatch.setattr(timed_site.store.accounts, "failures", down)
    monkeypatch.setattr(timed_site.store.accounts, "fail", down)
    owner.open()
    assert owner.post("/account/signin", email="open@x.io", password="wrong password!")[0] == 401
    assert owner.post("/account/signin", email="open@x.io", password=PASSWORD)[0] == 303


# -- keys ----------------------------------------------------------------------------------------


def test_a_key_is_shown_once_works_counts_and_is_revoked(
    full_app: tuple[Browser, TestClient, Stores],
) -> None:
    browser, api, store = full_app
    browser.signup("k@x.io")
    browser.open()
    code, page = browser.post("/account/keys")
    assert code == 200
    match = NEW_KEY.search(page)
    assert match is not None
    key = match.group(1)
    assert is_well_formed(key)
    listing = browser.open()
    assert not KEY_PATTERN.search(listing)  # shown once: never again
    assert f"bsk_{key[4:12]}" in listing
    assert api.get("/api/v1/games", headers={"Authorization": f"Bearer {key}"}).status_code == 200
    row = browser.open().split(f'data-key-id="{key[4:12]}"')[1].split("</tr>")[0]
    assert '<td data-label="Today" class="today">1</td>' in row
    assert "free" in row and "never" not in row
    status, location = browser.post(f"/account/keys/{key[4:12]}/revoke")
    assert (status, location) == (303, "/account")
    refused = api.get("/api/v1/games", headers={"Authorization": f"Bearer {key}"})
    assert (refused.status_code, refused.json()["code"]) == (401, "revoked_key")
    [view] = store.keys.list_keys(dt.datetime.now(dt.UTC).date(), "k@x.io")
    assert view.record.state == "revoked"


def test_an_account_cannot_revoke_another_accounts_key(
    full_app: tuple[Browser, TestClient, Stores],
) -> None:
    browser, api, store = full_app
    browser.signup("owner@x.io")
    browser.open()
    created = NEW_KEY.search(browser.post("/account/keys")[1])
    assert created is not None
    key = created.group(1)
    api.cookies.clear()
    browser.signup("thief@x.io")
    browser.open()
    code, page = browser.post(f"/account/keys/{key[4:12]}/revoke")
    assert code == 200 and "No such key on this account." in page
    record = store.keys.find_key(key_digest(key))
    assert record is not None and record.state == "active"


def test_an_account_holds_at_most_the_maximum_of_active_keys(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, store = site_factory()
    browser.signup("m@x.io")
    browser.open()
    for _ in range(MAX_ACTIVE_KEYS):
        assert NEW_KEY.search(browser.post("/account/keys")[1])
    code, page = browser.post("/account/keys")
    assert code == 200 and "at most" in page and not NEW_KEY.search(page)
    assert len(store.keys.list_keys(dt.datetime.now(dt.UTC).date(), "m@x.io")) == MAX_ACTIVE_KEYS


def test_account_pages_are_never_cached_or_framed(
    full_app: tuple[Browser, TestClient, Stores],
) -> None:
    _, api, _ = full_app
    response = api.get("/account")
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["x-frame-options"] == "DENY"
    assert "bangscore_session" in response.headers["set-cookie"]
    assert "httponly" in response.headers["set-cookie"].lower()
    assert "set-cookie" not in api.get("/api/v1").headers  # API routes carry no session


def test_account_pages_carry_rate_limit_headers(
    full_app: tuple[Browser, TestClient, Stores],
) -> None:
    browser, _, _ = full_app
    first = browser.client.get("/account")
    browser.signup("rate@x.io")
    page = browser.client.get("/account")
    redirect = browser.client.post("/account/signout", data={"csrf": csrf_of(page.text)})
    for response in (first, page, redirect):
        assert "x-ratelimit-limit" in response.headers and "ratelimit" in response.headers


# -- a store that fails: a clear 503 page, never a 500 -------------------------------------------


def _down(*_: object, **__: object) -> None:
    raise StoreUnavailable("sqlite: disk gone")


def _key_states(store: Stores, email: str) -> list[str]:
    return [v.record.state for v in store.keys.list_keys(dt.datetime.now(dt.UTC).date(), email)]


def _signed_in_with_a_key(browser: Browser, email: str) -> str:
    """Given a browser, sign up ``email``, create a key and return its id (bsk_ + 8)."""
    browser.signup(email)
    browser.open()
    created = NEW_KEY.search(browser.post("/account/keys")[1])
    assert created is not None
    browser.open()
    return created.group(1)[4:12]


@pytest.mark.parametrize(
    ("signed_in", "method", "request_"),
    [
        pytest.param(True, "find_session", ("GET", "/account"), id="home-session-lookup"),
        pytest.param(True, "list_keys", ("GET", "/account"), id="keys-page"),
        pytest.param(False, "create_account", ("POST", "/account/signup"), id="sign-up"),
        pytest.param(False, "find_account", ("POST", "/account/signin"), id="sign-in-lookup"),
        pytest.param(False, "start_session", ("POST", "/account/signin"), id="sign-in-session"),
        pytest.param(True, "end_session", ("POST", "/account/signout"), id="sign-out"),
        pytest.param(True, "list_keys", ("POST", "/account/keys"), id="create-key"),
        pytest.param(True, "revoke_key", ("POST", "/account/keys/{key}/revoke"), id="revoke"),
    ],
)
def test_an_unreachable_store_is_a_try_again_page(
    site_factory: Callable[..., tuple[Browser, Stores]],
    monkeypatch: pytest.MonkeyPatch,
    signed_in: bool,
    method: str,
    request_: tuple[str, str],
) -> None:
    browser, store = site_factory()
    key_id = _signed_in_with_a_key(browser, "down@x.io")
    if not signed_in:
        browser.client.cookies.clear()
        browser.open()
    job = store.keys if method in ("list_keys", "revoke_key") else store.accounts
    monkeypatch.setattr(job, method, _down)
    verb, path = request_
    fields = {
        "email": "down@x.io" if verb == "POST" and "sign" in path else "",
        "password": PASSWORD,
    }
    if verb == "GET":
        response = browser.client.get(path)
        code, page = response.status_code, response.text
    else:
        code, page = browser.post(path.format(key=key_id), **fields)
    assert code == 503
    assert "The account store is unreachable right now; please try again in a minute." in page
    assert "Traceback" not in page and "disk gone" not in page
    monkeypatch.undo()
    assert _key_states(store, "down@x.io") == ["active"]  # nothing half-done


def test_a_key_revoked_meanwhile_is_no_such_key(
    site_factory: Callable[..., tuple[Browser, Stores]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Listed as the account's when the form was read, gone by the time it is revoked.
    browser, store = site_factory()
    key_id = _signed_in_with_a_key(browser, "race@x.io")
    revoke = store.keys.revoke_key

    def revoked_by_another_tab(target: str) -> None:
        revoke(target)
        revoke("nokey123")

    monkeypatch.setattr(store.keys, "revoke_key", revoked_by_another_tab)
    code, page = browser.post(f"/account/keys/{key_id}/revoke")
    assert code == 200 and "No such key on this account." in page


def test_key_forms_of_a_session_the_store_cannot_find_are_expired(
    site_factory: Callable[..., tuple[Browser, Stores]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    browser, store = site_factory()
    key_id = _signed_in_with_a_key(browser, "lost@x.io")
    monkeypatch.setattr(store.accounts, "find_session", _down)
    for path in ("/account/keys", f"/account/keys/{key_id}/revoke"):
        code, page = browser.post(path)
        assert code == 403 and "Your session expired" in page
    monkeypatch.undo()
    assert _key_states(store, "lost@x.io") == ["active"]


def test_a_revoke_without_the_csrf_token_is_refused(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, store = site_factory()
    key_id = _signed_in_with_a_key(browser, "csrf@x.io")
    response = browser.client.post(f"/account/keys/{key_id}/revoke", data={"csrf": "forged"})
    assert response.status_code == 403
    assert _key_states(store, "csrf@x.io") == ["active"]


def test_a_sign_in_without_the_csrf_token_is_refused(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, _ = site_factory()
    browser.signup("csrf-in@x.io")
    browser.client.cookies.clear()
    browser.open()
    response = browser.client.post(
        "/account/signin", data={"email": "csrf-in@x.io", "password": PASSWORD}
    )
    assert response.status_code == 403 and "Your session expired" in response.text


def test_signing_in_again_ends_the_session_the_cookie_held(
    site_factory: Callable[..., tuple[Browser, Stores]],
) -> None:
    browser, _ = site_factory()
    browser.signup("again@x.io")
    old_cookie = browser.client.cookies["bangscore_session"]
    browser.open()
    assert browser.post("/account/signin", email="again@x.io", password=PASSWORD)[0] == 303
    assert 'id="who">again@x.io<' in browser.open()
    browser.client.cookies.clear()
    browser.client.cookies.set("bangscore_session", old_cookie)
    assert "again@x.io" not in browser.open()  # the old session's token ends with the new one


def test_a_rate_limit_store_fault_lets_a_sign_up_through(
    site_factory: Callable[..., tuple[Browser, Stores]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Fails open: the password check and the account store still guard.
    browser, store = site_factory()
    monkeypatch.setattr(store.counter, "hit", _down)
    assert browser.signup("open-signup@x.io")[0] == 303
    assert store.accounts.find_account("open-signup@x.io") is not None


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"email": "x" * 5000 + "@x.io"}, id="a-field-past-4-KiB"),
        pytest.param({f"f{i}": "y" * 4000 for i in range(5)}, id="a-form-past-16-KiB"),
    ],
)
def test_a_form_too_large_is_413(
    site_factory: Callable[..., tuple[Browser, Stores]], fields: dict[str, str]
) -> None:
    browser, store = site_factory()
    browser.open()
    code, page = browser.post("/account/signup", password=PASSWORD, **fields)
    assert code == 413 and "The form sent was too large." in page
    assert store.accounts.find_account("x" * 5000 + "@x.io") is None
