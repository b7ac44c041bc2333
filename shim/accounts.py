"""The account website (CONTRACT.md "Website"): sign up, sign in, and a keys page.

Served by the shim under ``{site}/account`` with jinja2 templates from ``shim/templates``.
Passwords are hashed with argon2id (argon2-cffi's defaults) off the event loop; the session
is a signed cookie (Starlette's SessionMiddleware, itsdangerous) holding only the account's
email and a CSRF token, which every POST form must echo. Sign-in attempts are limited per
email and per client IP in 15-minute buckets counted in the same Store as API requests, so
the limit holds across replicas; sign-ups are limited per IP the same way. A new key is shown
once, in the response to the POST that created it, and never stored in the session.
"""

from __future__ import annotations

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

from shim.quota import window_at
from shim.store import (
    AccountExists,
    AccountRecord,
    KeyView,
    Store,
    StoreUnavailable,
    UnknownKey,
    issue_key,
)

EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")
MIN_PASSWORD = 10
MAX_PASSWORD = 1024  # argon2 takes any length; a bound keeps form bodies small
MAX_ACTIVE_KEYS = 10
BUCKET_SECONDS = 900
SESSION_COOKIE = "bangscore_session"
SESSION_MAX_AGE = 14 * 86_400
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
_TEMPLATES = jinja2.Environment(
    # The site's stylesheet lives with the builder's templates; both sites share it.
    loader=jinja2.FileSystemLoader(
        [Path(__file__).parent / "templates", Path(__file__).parent.parent / "build" / "templates"]
    ),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)


@dataclass(frozen=True, slots=True)
class SignInLimits:
    """Attempts allowed per 15-minute bucket: sign-ins per email and per IP, sign-ups per IP."""

    per_email: int = 10
    per_ip: int = 30
    signups_per_ip: int = 10


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
    """The account pages over a Store: handlers, rate limits and password hashing."""

    def __init__(
        self,
        store: Store,
        *,
        site_url: str,
        limits: SignInLimits = SignInLimits(),
        hasher: PasswordHasher | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.site_url = site_url
        self.limits = limits
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
            email=request.session.get("email"),
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
        except StoreUnavailable:
            return True
        return hit.admitted

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
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.page(
            request, "account_keys.html", keys=views, new_key=new_key, error=error, when=_when
        )

    # -- handlers ----------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        email = request.session.get("email")
        if isinstance(email, str):
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
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.signed_in(request, email)

    async def signin(self, request: Request) -> Response:
        fields = await self.form(request)
        if fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        typed = fields.get("email", "")[:254]
        email = normalize_email(typed) or typed.strip().lower()
        password = fields.get("password", "")[:MAX_PASSWORD]
        ip_ok = self.allowed(f"signin:ip:{self.client_ip(request)}", self.limits.per_ip)
        if not (ip_ok and self.allowed(f"signin:email:{email}", self.limits.per_email)):
            return self.page(request, "account_signin.html", 429, error=_SLOW, typed=typed)
        try:
            account = self.store.find_account(email)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        if not await anyio.to_thread.run_sync(self._verify, account, password):
            return self.page(request, "account_signin.html", 401, error=_WRONG, typed=typed)
        return self.signed_in(request, email)

    def _verify(self, account: AccountRecord | None, password: str) -> bool:
        try:
            self.hasher.verify(account.password_hash if account else self._dummy_hash, password)
        except (VerificationError, InvalidHashError):
            return False
        return account is not None

    def signed_in(self, request: Request, email: str) -> Response:
        """Start a fresh session for ``email`` (new CSRF token) and go to the keys page."""
        request.session.clear()
        request.session["email"] = email
        self.csrf_token(request)
        return RedirectResponse(f"{self.site_url}/account", 303, headers=PAGE_HEADERS)

    async def signout(self, request: Request) -> Response:
        if await self.form(request) is not None:
            request.session.clear()
        return RedirectResponse(f"{self.site_url}/account", 303, headers=PAGE_HEADERS)

    async def create_key(self, request: Request) -> Response:
        email = request.session.get("email")
        fields = await self.form(request)
        if not isinstance(email, str) or fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        try:
            views = self.store.list_keys(window_at(self.clock()).day, email)
            if sum(v.record.state == "active" for v in views) >= MAX_ACTIVE_KEYS:
                return self.keys_page(request, email, error=_TOO_MANY)
            key, _ = issue_key(self.store, email, "free", None, int(self.clock()))
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.keys_page(request, email, new_key=key)

    async def revoke(self, request: Request) -> Response:
        email = request.session.get("email")
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
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return RedirectResponse(f"{self.site_url}/account", 303, headers=PAGE_HEADERS)


def _when(ts: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else "never"


_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."
_DOWN = "The account store is unreachable right now; please try again in a minute."
_SLOW = "Too many attempts. Wait 15 minutes and try again."
_BAD_EMAIL = "Enter a valid email address."
_BAD_PW = f"Choose a password of at least {MIN_PASSWORD} characters."
_TAKEN = "An account with this email exists. Sign in instead."
_WRONG = "Wrong email or password."
_TOO_MANY = f"An account may hold at most {MAX_ACTIVE_KEYS} active keys; revoke one first."


def account_routes(
    site: AccountSite, *, session_secret: str, https_only: bool = False
) -> list[BaseRoute]:
    """Given the account site and the session secret, return the ``/account`` routes.

    Each route carries its own SessionMiddleware (signed cookie ``bangscore_session``, 14
    days, SameSite=Lax, Secure when ``https_only``), so API routes never parse a session.
    """
    session = [
        Middleware(
            SessionMiddleware,
            secret_key=session_secret,
            session_cookie=SESSION_COOKIE,
            max_age=SESSION_MAX_AGE,
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
