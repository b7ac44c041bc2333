"""Sign-up by email (docs/API.md#website): the answer never tells whether an address has an
account.

A sign-up form that passed its checks is answered the same way for every address: the
password is hashed either way, the same store calls are made, and the page says to check the
inbox, with no session. What differs goes only to the address, by an email ``bangscore alerts
send`` sends (no request waits on SMTP): a new address gets a signed link whose button creates
the account with the password chosen at sign-up (so an account exists only once its address
proved it receives mail, and nobody can hold an address's account by signing up first); an
address that has an account tells its owner that someone tried to sign up with it. These
emails are rate-limited per address and per network as the watch confirmations are
(:class:`bangscore.shim.account.watches.WatchLimits`); past a limit nothing is queued and the
answer is the same.

The link's GET shows a button (a mail scanner fetching it creates nothing); its POST creates
the account, marks the address confirmed for watch alerts (the link proved it) and signs in.
"""

from __future__ import annotations

import logging

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bangscore.errors import AccountExists, StoreUnavailable
from bangscore.mail.links import SIGNUP_SECONDS, WatchLinks
from bangscore.shim.account.accounts import AccountSite, signup_network
from bangscore.shim.account.watches import WatchLimits, watch_network
from bangscore.stores.keystore import AccountRecord
from bangscore.stores.watchstore import PendingSignup, WatchStore, new_signup_id

log = logging.getLogger("bangscore.signups")

_DOWN = "The account store is unreachable right now; please try again in a minute."
_BAD_LINK = "This sign-up link is not valid, has expired or was already used."
_CSRF = "Your session expired or the form was stale. Open the link from the email again."
_EXISTS = "An account with this address already exists: sign in with its password."


class SignupMail:
    """Queues the sign-up emails and answers their links, over the account site, the watch
    store (the mail queue ``alerts send`` reads) and the signed links."""

    def __init__(
        self,
        accounts: AccountSite,
        store: WatchStore,
        links: WatchLinks,
        limits: WatchLimits,
    ) -> None:
        self.accounts = accounts
        self.store = store
        self.links = links
        self.limits = limits

    def queue(self, email: str, password_hash: str, ip: str) -> None:
        """Given a checked sign-up's address, its password's hash and the client IP, queue
        its email: the link for a new address, word to the owner for one with an account;
        nothing past the address's or the network's hourly limit. Raises StoreUnavailable.
        """
        now = int(self.accounts.clock())
        taken = self.accounts.accounts.find_account(email) is not None
        network, limits = watch_network(ip), self.limits
        if (
            self.store.hit(f"signup:acct:{email}", now, 3600) > limits.confirmations_per_account
            or self.store.hit(f"signup:net:{network}", now, 3600) > limits.confirmations_per_network
        ):
            log.warning("sign-up email not queued: the address's or network's hourly limit")
            return
        hashed = None if taken else password_hash
        signup = PendingSignup(new_signup_id(), email, hashed, now)
        self.store.queue_signup(signup, SIGNUP_SECONDS)

    async def confirm(self, request: Request) -> Response:
        """GET /account/signup/confirm?t= shows a button; its POST creates the account the
        signed token's sign-up names and signs in."""
        token = request.query_params.get("t", "")
        signup_id = self.links.signup_id(token)
        site = self.accounts
        if signup_id is None:
            return site.page(
                request, "account_message.html", 400, title="Link not valid", message=_BAD_LINK
            )
        if request.method != "POST":
            return site.page(request, "account_signup_confirm.html", token=token)
        # The button's form carries the session's CSRF token: a page elsewhere cannot post
        # an attacker's link and sign a visitor in to the attacker's account.
        if await site.form(request) is None:
            return site.page(request, "account_message.html", 403, title="Expired", message=_CSRF)
        try:
            signup = self.store.take_signup(signup_id)
            if signup is None or signup.password_hash is None:
                return site.page(
                    request, "account_message.html", 400, title="Link not valid", message=_BAD_LINK
                )
            record = AccountRecord(
                signup.email,
                signup.password_hash,
                int(site.clock()),
                signup_network(site.client_ip(request)),
            )
            site.accounts.create_account(record)
            self.store.confirm_address(signup.email, int(site.clock()))
        except AccountExists:
            return site.page(
                request, "account_message.html", 409, title="Account exists", message=_EXISTS
            )
        except StoreUnavailable:
            return site.page(request, "account_message.html", 503, title="Try again", message=_DOWN)
        return site.signed_in(request, signup.email)


def signup_routes(mail: SignupMail, session: list[Middleware]) -> list[BaseRoute]:
    """Given the sign-up mail and the account routes' session middleware, return the link's
    route: GET shows the button, POST (the signed token and the session's CSRF token) creates
    the account."""
    return [
        Route(
            "/account/signup/confirm",
            mail.confirm,
            methods=["GET", "POST"],
            middleware=session,
        )
    ]
