"""The account website (docs/API.md#website): sign up, sign in, and a keys page.

Served by the shim under ``{site}/account`` with jinja2 templates from ``bangscore/site/templates``.
Passwords are hashed with argon2id (argon2-cffi's defaults) off the event loop.

Sessions are server-side: the signed cookie (Starlette's SessionMiddleware, itsdangerous)
holds a random session token and a CSRF token, which every POST form must echo; the KeyStore
holds the session under the token's SHA-256, with its account and end. A request is signed in
only while that record exists and has not expired, so sign-out (which deletes it) ends every
copy of the cookie at once. A session ends after ``session_idle`` seconds without a request
(1 hour by default) and ``session_max`` seconds after sign-in (12 hours), whichever is first.

Sign-in throttling slows the failing client, never the account's owner: failures are counted
per (account, client IP) and per client IP in the KeyStore (so every replica sees them), and
past a few free attempts each further attempt must wait a delay that doubles with every
failure, up to 15 minutes; a refused attempt answers 429 with ``Retry-After`` and is not
checked. The owner signing in from another client starts with a clean slate; a success
forgets that pair's failures. Sign-ups are limited per IP in 15-minute buckets.
A new key is shown once, in the response to the POST that created it, and never stored.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
import jinja2
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from bangscore.contract.limits import MAX_QUERY_LENGTH
from bangscore.shim.keys import key_digest
from bangscore.shim.keystore import (
    AccountExists,
    AccountRecord,
    KeyStore,
    KeyStoreUnavailable,
    KeyView,
    UnknownKey,
    issue_key,
)
from bangscore.shim.quota import window_at

EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024  # argon2 takes any length; a bound keeps form bodies small
MAX_ACTIVE_KEYS = 10
BUCKET_SECONDS = 900
SESSION_COOKIE = "bangscore_session"
SESSION_IDLE_SECONDS = 3600
SESSION_MAX_SECONDS = 12 * 3600
SESSION_EXTEND_EVERY = 60  # a session's end moves at most once a minute (one write)
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
_TEMPLATES = jinja2.Environment(
    # One template folder for the whole website: the account pages extend its base and stylesheet.
    loader=jinja2.PackageLoader("bangscore.site", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)
# The header's search box takes what the search endpoint takes.
_TEMPLATES.globals["max_query_length"] = MAX_QUERY_LENGTH


@dataclass(frozen=True, slots=True)
class SignInLimits:
    """Sign-in throttling and the sign-up limit.

    ``free_per_account_client`` failed sign-ins of one account from one client IP, and
    ``free_per_client`` from one client IP over all accounts, wait for nothing; each failure
    past them makes the next attempt wait ``2 ** (failures - free)`` seconds, at most
    ``max_delay``. Failures are forgotten ``forget_after`` seconds after the last one.
    ``signups_per_ip`` sign-ups are allowed per 15-minute bucket.
    """

    free_per_account_client: int = 3
    free_per_client: int = 10
    max_delay: int = 900
    forget_after: int = 3600
    signups_per_ip: int = 10

    def delay(self, failures: int, free: int) -> int:
        """Given a subject's failures and its free attempts, return the seconds the next
        attempt must wait after the last failure."""
        if failures < free:
            return 0
        return min(self.max_delay, 1 << min(failures - free, 20))


def normalize_email(raw: str) -> str | None:
    """Given a typed email, return it trimmed and lowercased, or None if it is not an email."""
    email = raw.strip().lower()
    return email if len(email) <= 254 and EMAIL.match(email) else None


def load_session_secret(configured: str | None, state_dir: Path) -> str:
    """Given the configured secret (or None) and the state folder, return the session secret.

    Without configuration, a random secret is created once in ``STATE/session_secret`` (mode
    0600) and reused, so every process sharing the state folder signs cookies alike; replicas
    on several hosts must be configured with one secret. Raises OSError if it cannot be saved.
    """
    if configured:
        return configured
    path = state_dir / "session_secret"
    if path.exists():
        return path.read_text().strip()
    state_dir.mkdir(parents=True, exist_ok=True)
    # Written aside then hard-linked into place: atomic, and the first process to link wins.
    temp = state_dir / f".session_secret.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(48))
    try:
        os.link(temp, path)
    except FileExistsError:
        pass
    finally:
        temp.unlink()
    return path.read_text().strip()


def render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Given a template name and its context, return the page (never cached, never framed)."""
    body = _TEMPLATES.get_template(name).render(**context)
    return HTMLResponse(body, status, headers=PAGE_HEADERS)


class AccountSite:
    """The account pages over a KeyStore: handlers, rate limits and password hashing."""

    def __init__(
        self,
        store: KeyStore,
        *,
        site_url: str,
        limits: SignInLimits = SignInLimits(),
        hasher: PasswordHasher | None = None,
        clock: Callable[[], float] = time.time,
        session_idle: int = SESSION_IDLE_SECONDS,
        session_max: int = SESSION_MAX_SECONDS,
    ) -> None:
        self.store = store
        self.site_url = site_url
        self.limits = limits
        self.session_idle = session_idle
        self.session_max = session_max
        self.hasher = hasher or PasswordHasher()
        self.clock = clock
        # Verified against when the email is unknown, so both cases take the same time.
        self._dummy_hash = self.hasher.hash(secrets.token_urlsafe(16))

    # -- helpers -----------------------------------------------------------------------------

    def csrf_token(self, request: Request) -> str:
        """Given a request, return its session's CSRF token, creating one if needed."""
        token = request.session.get("csrf")
        if not isinstance(token, str):
            token = secrets.token_urlsafe(32)
            request.session["csrf"] = token
        return token

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        """Given a request and a template, render it with the site URL, email and CSRF token."""
        return render(
            name,
            status,
            site_url=self.site_url,
            email=getattr(request.state, "account", None),
            csrf=self.csrf_token(request),
            **context,
        )

    async def form(self, request: Request) -> dict[str, str] | None:
        """Given a POST, return its text fields, or None if the CSRF token is missing or wrong."""
        async with request.form(max_files=0, max_fields=10, max_part_size=4096) as data:
            fields = {k: v for k, v in data.items() if isinstance(v, str)}
        expected = request.session.get("csrf")
        sent = fields.get("csrf", "")
        if not isinstance(expected, str) or not hmac.compare_digest(expected, sent):
            return None
        return fields

    def allowed(self, subject: str, limit: int) -> bool:
        """Given a rate-limit subject and its limit per bucket, count one attempt; True if
        under the limit. A store fault fails open (the password check still guards)."""
        now = self.clock()
        bucket = int(now) // BUCKET_SECONDS
        try:
            hit = self.store.hit(f"{subject}:{bucket}", window_at(now).day, limit, int(now))
        except KeyStoreUnavailable:
            return True
        return hit.admitted

    def account(self, request: Request) -> str | None:
        """Given a request, return the email its session is signed in as, or None.

        The cookie's token must name a stored session that has not ended; its end moves on
        (idle lifetime), never past the absolute one. Raises KeyStoreUnavailable if down.
        """
        token = request.session.get("sid")
        if not isinstance(token, str):
            return None
        now = int(self.clock())
        digest = key_digest(token)
        record = self.store.find_session(digest, now)
        if record is None:
            request.session.pop("sid", None)
            return None
        end = min(now + self.session_idle, record.created_at + self.session_max)
        if end - record.expires_at >= SESSION_EXTEND_EVERY:
            self.store.extend_session(digest, end)
        request.state.account = record.email
        return record.email

    def wait_before_signin(self, email: str, ip: str) -> int:
        """Given an email and a client IP, return the seconds that client must still wait
        before its next sign-in attempt (0: go ahead). A store fault fails open."""
        now = int(self.clock())
        limits = self.limits
        try:
            pair = self.store.failures(f"signin:pair:{email}:{ip}", now)
            client = self.store.failures(f"signin:ip:{ip}", now)
        except KeyStoreUnavailable:
            return 0
        ready = max(
            pair.last_at + limits.delay(pair.count, limits.free_per_account_client),
            client.last_at + limits.delay(client.count, limits.free_per_client),
        )
        return max(0, ready - now)

    def signin_failed(self, email: str, ip: str) -> None:
        """Given the email and client IP of a failed sign-in, count it for both subjects."""
        now, forget = int(self.clock()), self.limits.forget_after
        with contextlib.suppress(KeyStoreUnavailable):  # fail open: the password still guards
            self.store.fail(f"signin:pair:{email}:{ip}", now, forget)
            self.store.fail(f"signin:ip:{ip}", now, forget)

    @staticmethod
    def client_ip(request: Request) -> str:
        """Return the client IP (uvicorn applies the trusted proxies' X-Forwarded-For)."""
        return request.client.host if request.client else "unknown"

    def keys_page(
        self, request: Request, email: str, *, new_key: str | None = None, error: str = ""
    ) -> Response:
        """Given a signed-in email, return the keys page (optionally showing a new key once)."""
        day = window_at(self.clock()).day
        try:
            views: list[KeyView] = self.store.list_keys(day, email)
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.page(
            request, "account_keys.html", keys=views, new_key=new_key, error=error, when=_when
        )

    # -- handlers ----------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        try:
            email = self.account(request)
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        if email is not None:
            return self.keys_page(request, email)
        return self.page(request, "account_signin.html", error="", typed="")

    async def signup(self, request: Request) -> Response:
        fields = await self.form(request)
        if fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        email = normalize_email(fields.get("email", ""))
        password = fields.get("password", "")
        typed = fields.get("email", "")[:254]
        if not self.allowed(f"signup:ip:{self.client_ip(request)}", self.limits.signups_per_ip):
            return self.page(request, "account_signin.html", 429, error=_SLOW, typed=typed)
        if email is None:
            return self.page(request, "account_signin.html", 400, error=_BAD_EMAIL, typed=typed)
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            return self.page(request, "account_signin.html", 400, error=_BAD_PW, typed=typed)
        hashed = await anyio.to_thread.run_sync(self.hasher.hash, password)
        try:
            self.store.create_account(AccountRecord(email, hashed, int(self.clock())))
        except AccountExists:
            return self.page(request, "account_signin.html", 409, error=_TAKEN, typed=typed)
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.signed_in(request, email)

    async def signin(self, request: Request) -> Response:
        fields = await self.form(request)
        if fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        typed = fields.get("email", "")[:254]
        email = normalize_email(typed) or typed.strip().lower()
        password = fields.get("password", "")[:MAX_PASSWORD]
        ip = self.client_ip(request)
        wait = self.wait_before_signin(email, ip)
        if wait > 0:
            response = self.page(
                request, "account_signin.html", 429, error=_slow(wait), typed=typed
            )
            response.headers["Retry-After"] = str(wait)
            return response
        try:
            account = self.store.find_account(email)
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        if not await anyio.to_thread.run_sync(self._verify, account, password):
            self.signin_failed(email, ip)
            return self.page(request, "account_signin.html", 401, error=_WRONG, typed=typed)
        with contextlib.suppress(KeyStoreUnavailable):
            self.store.forgive(f"signin:pair:{email}:{ip}")
        return self.signed_in(request, email)

    def _verify(self, account: AccountRecord | None, password: str) -> bool:
        try:
            self.hasher.verify(account.password_hash if account else self._dummy_hash, password)
        except (VerificationError, InvalidHashError):
            return False
        return account is not None

    def signed_in(self, request: Request, email: str) -> Response:
        """Start a fresh server-side session for ``email`` (new token, new CSRF token) and go
        to the keys page. Any session the cookie held before is ended."""
        now = int(self.clock())
        old = request.session.get("sid")
        token = secrets.token_urlsafe(32)
        try:
            if isinstance(old, str):
                self.store.end_session(key_digest(old))
            end = now + min(self.session_idle, self.session_max)
            self.store.start_session(key_digest(token), email, now, end)
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        request.session.clear()
        request.session["sid"] = token
        self.csrf_token(request)
        return RedirectResponse(f"{self.site_url}/account", 303, headers=PAGE_HEADERS)

    async def signout(self, request: Request) -> Response:
        """End the session server-side (every copy of the cookie) and clear the cookie."""
        if await self.form(request) is not None:
            token = request.session.get("sid")
            if isinstance(token, str):
                try:
                    self.store.end_session(key_digest(token))
                except KeyStoreUnavailable:
                    return self.page(
                        request, "account_message.html", 503, title="Try again", message=_DOWN
                    )
            request.session.clear()
        return RedirectResponse(f"{self.site_url}/account", 303, headers=PAGE_HEADERS)

    def _signed_in_email(self, request: Request) -> str | None:
        try:
            return self.account(request)
        except KeyStoreUnavailable:
            return None

    async def create_key(self, request: Request) -> Response:
        email = self._signed_in_email(request)
        fields = await self.form(request)
        if not isinstance(email, str) or fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        try:
            views = self.store.list_keys(window_at(self.clock()).day, email)
            if sum(v.record.state == "active" for v in views) >= MAX_ACTIVE_KEYS:
                return self.keys_page(request, email, error=_TOO_MANY)
            key, _ = issue_key(self.store, email, "free", None, int(self.clock()))
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.keys_page(request, email, new_key=key)

    async def revoke(self, request: Request) -> Response:
        email = self._signed_in_email(request)
        fields = await self.form(request)
        if not isinstance(email, str) or fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        target = request.path_params["key_id"]
        try:
            owned = {
                v.record.key_id for v in self.store.list_keys(window_at(self.clock()).day, email)
            }
            if target not in owned:
                return self.keys_page(request, email, error="No such key on this account.")
            self.store.revoke_key(target)
        except UnknownKey:
            return self.keys_page(request, email, error="No such key on this account.")
        except KeyStoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return RedirectResponse(f"{self.site_url}/account", 303, headers=PAGE_HEADERS)


def _when(ts: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else "never"


_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."
_DOWN = "The account store is unreachable right now; please try again in a minute."
_SLOW = "Too many attempts. Wait 15 minutes and try again."


def _slow(seconds: int) -> str:
    return f"Too many failed attempts from here. Wait {seconds} s and try again."


_BAD_EMAIL = "Enter a valid email address."
_BAD_PW = f"Choose a password of at least {MIN_PASSWORD} characters."
_TAKEN = "An account with this email exists. Sign in instead."
_WRONG = "Wrong email or password."
_TOO_MANY = f"An account may hold at most {MAX_ACTIVE_KEYS} active keys; revoke one first."


def account_routes(
    site: AccountSite, *, session_secret: str, https_only: bool = False
) -> list[BaseRoute]:
    """Given the account site and the session secret, return the ``/account`` routes.

    Each route carries its own SessionMiddleware (signed cookie ``bangscore_session`` living
    as long as the site's absolute session lifetime, SameSite=Lax, Secure when
    ``https_only``), so API routes never parse a session.
    """
    session = [
        Middleware(
            SessionMiddleware,
            secret_key=session_secret,
            session_cookie=SESSION_COOKIE,
            max_age=site.session_max,
            same_site="lax",
            https_only=https_only,
        )
    ]

    def route(path: str, endpoint: Callable[[Request], Awaitable[Response]], method: str) -> Route:
        return Route(path, endpoint, methods=[method], middleware=session)

    return [
        route("/account", site.home, "GET"),
        route("/account/signup", site.signup, "POST"),
        route("/account/signin", site.signin, "POST"),
        route("/account/signout", site.signout, "POST"),
        route("/account/keys", site.create_key, "POST"),
        route("/account/keys/{key_id}/revoke", site.revoke, "POST"),
    ]
