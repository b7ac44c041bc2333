"""The account website (docs/API.md#website): sign up, sign in, and a keys page.

Served by the shim under ``{site}/account`` with jinja2 templates from ``bangscore/site/templates``.
Passwords are hashed with argon2id (argon2-cffi's defaults) off the event loop.

Sessions are server-side: the signed cookie (Starlette's SessionMiddleware, itsdangerous)
holds a random session token and a CSRF token, which every POST form must echo; the accounts
store holds the session under the token's SHA-256, with its account and end. A request is signed in
only while that record exists and has not expired, so sign-out (which deletes it) ends every
copy of the cookie at once. A session ends after ``session_idle`` seconds without a request
(1 hour by default) and ``session_max`` seconds after sign-in (12 hours), whichever is first.

Sign-in throttling (:mod:`bangscore.shim.account.throttle`) slows the failing client, never the
account's owner: failures are counted per (account, client IP) and per client IP in the accounts
store (so every replica sees them), and past a few free attempts each further attempt must wait a
delay that doubles with every failure, up to 15 minutes; a refused attempt answers 429 with
``Retry-After`` and is not checked. The attempt is reserved before its password is checked (counted
as a failure of the pair at once, forgiven on success), so concurrent attempts cannot all pass the
same free allowance; password hashing runs at most :data:`passwords.HASHING_SLOTS` at a time per
process (:class:`passwords.HashingGate`). The owner signing in from another client starts with a
clean slate; a success forgets that pair's failures. Sign-ups are limited per IP per hour and per
day, counting only forms that pass their checks (a 400 uses none of it); with a mail queue they go
by email (:mod:`bangscore.shim.account.signups`). Here as for the allowances, "client IP" is an IPv6
client's /64 (:func:`bangscore.shim.clients.client_group`). Emails and passwords are checked by
:mod:`bangscore.shim.account.passwords`; a form larger than :data:`MAX_FORM_BYTES`, or with a field
over :data:`MAX_FIELD_BYTES`, answers 413. A new key is shown once, in the response to the POST that
created it, and never stored.
"""

from __future__ import annotations

import contextlib
import hmac
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import jinja2
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from bangscore.contract.api import ATTRIBUTION_TEXT
from bangscore.contract.limits import MAX_QUERY_LENGTH
from bangscore.contract.mailbox import plain_mailbox
from bangscore.errors import (
    AccountExists,
    FormTooLarge,
    HashingBusy,
    StoreUnavailable,
    UnknownKey,
)
from bangscore.shim.account import passwords
from bangscore.shim.account.passwords import MAX_PASSWORD, HashingGate, password_problem
from bangscore.shim.account.throttle import DEFAULT_LIMITS, SignInLimits, SignInThrottle
from bangscore.shim.clients import client_group, client_ip, network_of
from bangscore.shim.quota import window_at
from bangscore.site.render import format_day, package_stylesheet, style_version
from bangscore.stores.addresses import normalize_email
from bangscore.stores.keys import key_digest
from bangscore.stores.keystore import (
    AccountRecord,
    AccountStore,
    Counter,
    KeyStore,
    KeyView,
    issue_key,
)

__all__ = ["AccountSite", "SignInLimits", "normalize_email"]

MAX_ACTIVE_KEYS = 10
MAX_FORM_BYTES = 16 * 1024
MAX_FIELD_BYTES = 4096
SESSION_COOKIE = "bangscore_session"
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
_TEMPLATES.globals["attribution"] = ATTRIBUTION_TEXT
_TEMPLATES.globals["style_version"] = style_version(package_stylesheet())
# Prices on account pages carry the day they were seen, as on the game pages.
_TEMPLATES.filters["day"] = format_day


def signup_network(ip: str) -> str:
    """Given a client IP, return the network an abuse report groups it in: its /24 (IPv4)
    or /48 (IPv6), the block one subscriber or host usually holds; the text as given if it is
    not an address."""
    return network_of(ip, 24, 48)


def render(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Given a template name and its context, return the page (never cached, never framed)."""
    # The site's base template links root-relative, under the site URL's path.
    context.setdefault("root", urlsplit(str(context.get("site_url", ""))).path.rstrip("/"))
    body = _TEMPLATES.get_template(name).render(**context)
    return HTMLResponse(body, status, headers=PAGE_HEADERS)


class AccountSite:
    """The account pages over the stores of ``accounts`` (accounts, sessions, sign-in
    failures), ``keys`` (the account's keys) and the ``counter`` (rate limits): handlers, rate
    limits and password hashing."""

    def __init__(
        self,
        accounts: AccountStore,
        keys: KeyStore,
        counter: Counter,
        *,
        site_url: str,
        limits: SignInLimits = DEFAULT_LIMITS,
        hasher: PasswordHasher | None = None,
        clock: Callable[[], float] = time.time,
        session_idle: int,
        session_max: int,
        page_extras: Callable[[str], Awaitable[dict[str, Any]]] | None = None,
        smtputf8: bool = False,
    ) -> None:
        self.accounts, self.keys, self.counter = accounts, keys, counter
        # Whether the mail relay takes non-ASCII addresses (setting BANGSCORE_SMTP_UTF8):
        # without it they are refused at sign-up, since no alert could reach them.
        self.smtputf8 = smtputf8
        # More of the signed-in account page (the watches): email -> template context.
        self.page_extras = page_extras
        self.site_url = site_url
        # Redirects and form actions are root-relative (the site URL's path only), so the
        # pages work from any origin the server answers on: signing in from
        # http://localhost:PORT must not post to, or land on, http://127.0.0.1:PORT, where the
        # session cookie is not sent (and the page's CSP form-action 'self' blocks the post).
        self.root = urlsplit(site_url).path.rstrip("/")
        self.limits = limits
        self.session_idle = session_idle
        self.session_max = session_max
        self.hasher = hasher or PasswordHasher()
        self.gate = HashingGate()
        self.clock = clock
        self.throttle = SignInThrottle(accounts, counter, limits, clock)
        self._dummy_hash = passwords.dummy_hash(self.hasher)
        # Sign-up by email (bangscore.shim.account.signups), set when the app has a mail
        # queue: given (address, password hash, client IP), queue the sign-up's email.
        # Without one (an app built with no watch store, which `serve` never is), a sign-up
        # creates the account and signs in at once.
        self.signup_mail: Callable[[str, str, str], None] | None = None

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
            signup_by_mail=self.signup_mail is not None,
            **context,
        )

    async def form(self, request: Request) -> dict[str, str] | None:
        """Given a POST, return its text fields, or None if the CSRF token is missing or wrong.
        Raises FormTooLarge past :data:`MAX_FORM_BYTES` or a field past :data:`MAX_FIELD_BYTES`."""
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_FORM_BYTES:
            raise FormTooLarge
        try:
            async with request.form(
                max_files=0, max_fields=10, max_part_size=MAX_FIELD_BYTES
            ) as data:
                fields = {k: v for k, v in data.items() if isinstance(v, str)}
        except HTTPException:  # a field (urlencoded) or part (multipart) past max_part_size
            raise FormTooLarge from None
        expected = request.session.get("csrf")
        sent = fields.get("csrf", "")
        if not isinstance(expected, str) or not hmac.compare_digest(expected, sent):
            return None
        return fields

    def account(self, request: Request) -> str | None:
        """Given a request, return the email its session is signed in as, or None.

        The cookie's token must name a stored session that has not ended; its end moves on
        (idle lifetime), never past the absolute one. Raises StoreUnavailable if down.
        """
        token = request.session.get("sid")
        if not isinstance(token, str):
            return None
        now = int(self.clock())
        digest = key_digest(token)
        record = self.accounts.find_session(digest, now)
        if record is None:
            request.session.pop("sid", None)
            return None
        end = min(now + self.session_idle, record.created_at + self.session_max)
        if end - record.expires_at >= SESSION_EXTEND_EVERY:
            self.accounts.extend_session(digest, end)
        request.state.account = record.email
        return record.email

    @staticmethod
    def client_ip(request: Request) -> str:
        """Return the client IP (uvicorn applies the trusted proxies' X-Forwarded-For)."""
        return client_ip(request)

    async def keys_page(
        self, request: Request, email: str, *, new_key: str | None = None, error: str = ""
    ) -> Response:
        """Given a signed-in email, return the keys page (optionally showing a new key once)."""
        day = window_at(self.clock()).day
        try:
            views: list[KeyView] = self.keys.list_keys(day, email)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        extras = await self.page_extras(email) if self.page_extras else {}
        return self.page(
            request,
            "account_keys.html",
            keys=views,
            new_key=new_key,
            error=error,
            when=_when,
            **extras,
        )

    # -- handlers ----------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        try:
            email = self.account(request)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        if email is not None:
            return await self.keys_page(request, email)
        return self.page(request, "account_signin.html", error="", typed="")

    async def signup(self, request: Request) -> Response:
        fields = await self.form(request)
        if fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        email = normalize_email(fields.get("email", ""))
        password = fields.get("password", "")
        typed = fields.get("email", "")[:254]
        ip, limits = self.client_ip(request), self.limits
        client = client_group(ip)  # an IPv6 client by its /64
        # Checked before counting: a refused form uses none of the allowance (issue 48).
        if email is None or not plain_mailbox(email, utf8=self.smtputf8):
            return self.page(request, "account_signin.html", 400, error=_BAD_EMAIL, typed=typed)
        problem = password_problem(password, email)
        if problem is not None:
            return self.page(request, "account_signin.html", 400, error=problem, typed=typed)
        for name, limit, span in _SIGNUP_WINDOWS:  # the day's not counted past the hour's
            if not self.throttle.allowed(f"signup:{name}:{client}", getattr(limits, limit), span):
                page = self.page(request, "account_signin.html", 429, error=_SLOW, typed=typed)
                page.headers["Retry-After"] = str(span - int(self.clock()) % span)  # window's end
                return page
        try:
            hashed = await self.gate.run(lambda: self.hasher.hash(password))
        except HashingBusy:
            return self.page(request, "account_message.html", 503, title="Try again", message=_BUSY)
        if self.signup_mail is not None:
            return self.signup_by_mail(request, self.signup_mail, (email, hashed, ip))
        try:
            record = AccountRecord(email, hashed, int(self.clock()), signup_network(ip))
            self.accounts.create_account(record)
        except AccountExists:
            return self.page(request, "account_signin.html", 409, error=_TAKEN, typed=typed)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.signed_in(request, email)

    def signup_by_mail(
        self,
        request: Request,
        queue: Callable[[str, str, str], None],
        signup: tuple[str, str, str],
    ) -> Response:
        """Given a request, the queue of sign-up emails and a checked sign-up (address,
        password hash, client IP), queue its email and answer "check your inbox": the same
        page whether or not the address has an account."""
        email = signup[0]
        try:
            queue(*signup)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return self.page(
            request, "account_message.html", title="Check your inbox", message=inbox_message(email)
        )

    async def signin(self, request: Request) -> Response:
        fields = await self.form(request)
        if fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        typed = fields.get("email", "")[:254]
        email = normalize_email(typed) or typed.strip().lower()
        password = fields.get("password", "")[:MAX_PASSWORD]
        ip = client_group(self.client_ip(request))  # an IPv6 client by its /64
        wait = self.throttle.wait(email, ip) or self.throttle.reserve(email, ip)
        if wait > 0:
            response = self.page(
                request, "account_signin.html", 429, error=_slow(wait), typed=typed
            )
            response.headers["Retry-After"] = str(wait)
            return response
        try:
            account = self.accounts.find_account(email)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        try:
            verified = await self.gate.run(lambda: self._verify(account, password))
        except HashingBusy:
            return self.page(request, "account_message.html", 503, title="Try again", message=_BUSY)
        if not verified:
            self.throttle.failed(email, ip)
            return self.page(request, "account_signin.html", 401, error=_WRONG, typed=typed)
        with contextlib.suppress(StoreUnavailable):
            self.accounts.forgive(f"signin:pair:{email}:{ip}")
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
                self.accounts.end_session(key_digest(old))
            end = now + min(self.session_idle, self.session_max)
            self.accounts.start_session(key_digest(token), email, now, end)
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        after = request.session.get("after")
        request.session.clear()
        request.session["sid"] = token
        self.csrf_token(request)
        # Back to the form the visitor came from (a game's "Watch this game"), else the keys
        # page; only our own watch form, never a URL from the request.
        back = after if isinstance(after, str) and _WATCH_FORM.fullmatch(after) else "/account"
        return RedirectResponse(f"{self.root}{back}", 303, headers=PAGE_HEADERS)

    async def signout(self, request: Request) -> Response:
        """End the session server-side (every copy of the cookie) and clear the cookie."""
        if await self.form(request) is not None:
            token = request.session.get("sid")
            if isinstance(token, str):
                try:
                    self.accounts.end_session(key_digest(token))
                except StoreUnavailable:
                    return self.page(
                        request, "account_message.html", 503, title="Try again", message=_DOWN
                    )
            request.session.clear()
        return RedirectResponse(f"{self.root}/account", 303, headers=PAGE_HEADERS)

    def _signed_in_email(self, request: Request) -> str | None:
        try:
            return self.account(request)
        except StoreUnavailable:
            return None

    async def create_key(self, request: Request) -> Response:
        email = self._signed_in_email(request)
        fields = await self.form(request)
        if not isinstance(email, str) or fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        try:
            views = self.keys.list_keys(window_at(self.clock()).day, email)
            if sum(v.record.state == "active" for v in views) >= MAX_ACTIVE_KEYS:
                return await self.keys_page(request, email, error=_TOO_MANY)
            key, _ = issue_key(self.keys, email, "free", None, int(self.clock()))
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return await self.keys_page(request, email, new_key=key)

    async def revoke(self, request: Request) -> Response:
        email = self._signed_in_email(request)
        fields = await self.form(request)
        if not isinstance(email, str) or fields is None:
            return self.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        target = request.path_params["key_id"]
        try:
            owned = {
                v.record.key_id for v in self.keys.list_keys(window_at(self.clock()).day, email)
            }
            if target not in owned:
                return await self.keys_page(request, email, error="No such key on this account.")
            self.keys.revoke_key(target)
        except UnknownKey:
            return await self.keys_page(request, email, error="No such key on this account.")
        except StoreUnavailable:
            return self.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return RedirectResponse(f"{self.root}/account", 303, headers=PAGE_HEADERS)


def _when(ts: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts)) if ts else "never"


_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."
_DOWN = "The account store is unreachable right now; please try again in a minute."
_SLOW = "Too many sign-ups from here. Wait a while and try again."
_SIGNUP_WINDOWS = (("ip", "signups_per_ip", 3600), ("ip-day", "signups_per_ip_day", 86400))
_BUSY = "Too many sign-ins are being checked right now; please try again in a few seconds."


def _slow(seconds: int) -> str:
    return f"Too many failed attempts from here. Wait {seconds} s and try again."


_BAD_EMAIL = "Enter a valid email address."
_WATCH_FORM = re.compile(r"/account/watch\?appid=[1-9][0-9]{0,9}")


_TAKEN = "An account with this email exists. Sign in instead."


def inbox_message(email: str) -> str:
    """Given the address a sign-up named, return what its answer says, whatever the address."""
    return (
        f"We sent an email to {email}. If the address has no account yet, its link creates "
        "one with the password you chose (it works once, for 2 days); if it already has one, "
        "the email tells its owner. Nothing else changes until the link is used."
    )


_WRONG = "Wrong email or password."
_TOO_MANY = f"An account may hold at most {MAX_ACTIVE_KEYS} active keys; revoke one first."
