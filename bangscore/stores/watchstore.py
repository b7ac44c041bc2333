"""The watch store interface, its records and the watch condition (docs/API.md#watches); the
factory choosing a backend is :func:`bangscore.stores.open_watch_store`.

A watch is one address, one game and one condition: the game reaches a tier (``worth_it`` or
``banger``), its current price falls to ``below_usd`` or less, or an event (``recent_low``:
its price at or below its recent low; ``next_sale``: its next sale started, the price
discounted). Watches live in the same store
as accounts (the same SQLite file, or the same Redis) behind this interface of their own:
:class:`bangscore.stores.sqlite_watches.SQLiteWatchStore` and
:class:`bangscore.stores.redis_watches.RedisWatchStore`.

Alerts are sent by ``bangscore alerts send`` (:mod:`bangscore.mail.alerts`), only to confirmed
addresses. A watch is *fired* once its alert was sent and stays so while its condition holds;
it is re-armed when the condition stops holding, so each time the condition becomes true
again gives one more alert.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass
from typing import Any, Literal, Protocol

WatchTier = Literal["worth_it", "banger"]
TIERS: tuple[WatchTier, ...] = ("worth_it", "banger")
# The tiers that satisfy each watched tier (a banger is also worth it).
_REACHES: dict[str, frozenset[str]] = {
    "worth_it": frozenset({"worth_it", "banger"}),
    "banger": frozenset({"banger"}),
}
WatchEvent = Literal["recent_low", "next_sale"]
EVENTS: tuple[WatchEvent, ...] = ("recent_low", "next_sale")
MAX_BELOW_USD = 10_000.0
MAX_WATCHES_PER_ADDRESS = 100


@dataclass(frozen=True, slots=True)
class Condition:
    """What a watch waits for: a tier reached (``tier``), a price at or below ``below_usd``
    (USD) or an event (``event``: ``recent_low`` or ``next_sale``); exactly one is set."""

    tier: WatchTier | None = None
    below_usd: float | None = None
    event: WatchEvent | None = None

    def __post_init__(self) -> None:
        if [self.tier, self.below_usd, self.event].count(None) != 2:
            raise ValueError("a watch needs exactly one condition: a tier, a price or an event")
        if self.tier is not None and self.tier not in TIERS:
            raise ValueError(f"unknown tier {self.tier!r}: use worth_it or banger")
        if self.event is not None and self.event not in EVENTS:
            raise ValueError(f"unknown event {self.event!r}: use recent_low or next_sale")
        if self.below_usd is not None and not (
            math.isfinite(self.below_usd) and 0 <= self.below_usd <= MAX_BELOW_USD
        ):
            raise ValueError(f"a price must be from 0 to {MAX_BELOW_USD:,.0f} USD")

    def met(self, record: dict[str, Any]) -> bool:
        """Given a game's detail record (snapshot JSON: ``tier``, ``price_usd``,
        ``list_price_usd``, ``recent_low_usd``, ``discount_percent``), return whether the
        condition holds for it. ``recent_low``: a paid game whose ``price_usd`` is at or below
        its ``recent_low_usd`` (the lowest price of the 730 days before the prices' date);
        ``next_sale``: a paid game on sale (``discount_percent`` above 0 and ``price_usd``
        below ``list_price_usd``), so the watch fires when a sale starts and re-arms when it
        ends."""
        if self.tier is not None:
            return str(record.get("tier")) in _REACHES[self.tier]
        price = record.get("price_usd")
        if not isinstance(price, int | float):
            return False
        if self.event is not None:
            # A free game is at its low and never on sale: nothing to wait for.
            listed = record.get("list_price_usd")
            if not isinstance(listed, int | float) or listed <= 0:
                return False
            if self.event == "next_sale":
                # Both: a dump's row may say 100% off at the list price (a scraper's error).
                return (record.get("discount_percent") or 0) > 0 and price < listed - 1e-9
            low = record.get("recent_low_usd")
            return isinstance(low, int | float) and price <= low + 1e-9
        assert self.below_usd is not None
        return price <= self.below_usd + 1e-9

    def describe(self) -> str:
        """Return the condition in words: ``"becomes worth it"``, ``"becomes a banger"``,
        ``"$9.99 or less"``, ``"at or below its recent low"`` or ``"when its next sale
        starts"``."""
        if self.tier is not None:
            return "becomes a banger" if self.tier == "banger" else "becomes worth it"
        if self.event is not None:
            return EVENT_WORDS[self.event]
        return f"${self.below_usd:,.2f} or less"


def holds_today(condition: Condition, record: dict[str, Any] | None) -> bool:
    """Given a watch's condition and its game's detail record in the current snapshot (None:
    the game is not rated in it), return whether the condition holds on that snapshot's
    prices (:meth:`Condition.met`). The one test of a watch: the nightly alert
    (:mod:`bangscore.mail.alerts`) and the account page's state of each watch both make it."""
    return record is not None and condition.met(record)


# The events in words (the forms' labels, the mails' and listings' condition).
EVENT_WORDS: dict[str, str] = {
    "recent_low": "at or below its recent low",
    "next_sale": "when its next sale starts",
}


@dataclass(frozen=True, slots=True)
class WatchRecord:
    """A stored watch: id, lowercase address, Steam appid, condition, created (Unix s),
    whether its alert has fired (and the condition still holds), and the last alert's time."""

    watch_id: str
    email: str
    appid: int
    condition: Condition
    created_at: int
    fired: bool = False
    last_alert_at: int | None = None


@dataclass(frozen=True, slots=True)
class Address:
    """What the store knows of an address: when it was confirmed, when its confirmation email
    went out and when a hard bounce suppressed it (Unix s, or None)."""

    email: str
    confirmed_at: int | None
    confirm_sent_at: int | None
    suppressed_at: int | None = None

    @property
    def confirmed(self) -> bool:
        """Return True once the address is confirmed (by its link, or by the operator)."""
        return self.confirmed_at is not None

    @property
    def suppressed(self) -> bool:
        """Return True once a hard bounce stopped all mail to the address."""
        return self.suppressed_at is not None


@dataclass(frozen=True, slots=True)
class SentAlert:
    """One alert as recorded after the SMTP server accepted it: the watch, when (Unix s),
    the snapshot it was read from, the price and tier it announced, and its Message-ID."""

    watch_id: str
    sent_at: int
    snapshot_id: str
    price_usd: float | None
    tier: str | None
    message_id: str


@dataclass(frozen=True, slots=True)
class PendingConfirmation:
    """A confirmation email waiting for ``alerts send``: its opaque id (what the link's
    signed token carries, never the address), the address and when it was queued (Unix s)."""

    confirm_id: str
    email: str
    queued_at: int


@dataclass(frozen=True, slots=True)
class PendingSignup:
    """A sign-up's email waiting for ``alerts send`` (docs/API.md#website): its opaque id
    (what the link's signed token carries), the address, the argon2 hash of the password
    chosen (None when the address already had an account: the email then tells its owner
    that someone tried to sign up with it, and carries no link) and when it was queued."""

    signup_id: str
    email: str
    password_hash: str | None
    queued_at: int


def new_signup_id() -> str:
    """Return a fresh opaque sign-up id: ``s_`` and 22 URL-safe random characters."""
    return "s_" + secrets.token_urlsafe(16)


def retry_delay(attempts: int) -> int:
    """Given how many times a watch's alert failed, return the seconds before the next try:
    5 minutes doubling per failure, at most a day."""
    return int(min(300 * 2 ** max(0, attempts - 1), 86_400))


def new_confirm_id() -> str:
    """Return a fresh opaque confirmation id: ``c_`` and 22 URL-safe random characters."""
    return "c_" + secrets.token_urlsafe(16)


def new_watch_id() -> str:
    """Return a fresh watch id: ``w_`` and 10 URL-safe random characters."""
    return "w_" + secrets.token_urlsafe(8)[:10]


class WatchStore(Protocol):
    """Watches, their addresses' confirmation, and the record of alerts sent."""

    def add_watch(self, watch: WatchRecord) -> WatchRecord:
        """Given a new watch, store it and return it. The same address, game and condition
        already watched returns the stored watch instead. Raise TooManyWatches past the
        per-address limit, StoreUnavailable if the store is down."""
        ...

    def find_watch(self, watch_id: str) -> WatchRecord | None:
        """Given a watch id, return the watch or None."""
        ...

    def list_watches(self, email: str | None = None) -> list[WatchRecord]:
        """Given an address (or None: all), return its watches, oldest first."""
        ...

    def remove_watch(self, watch_id: str) -> WatchRecord:
        """Given a watch id, delete the watch and return it; raise UnknownWatch."""
        ...

    def address(self, email: str) -> Address:
        """Given an address, return its confirmation state (unknown: never confirmed)."""
        ...

    def confirm_address(self, email: str, now: int) -> None:
        """Given an address, mark it confirmed at ``now`` (kept if already confirmed)."""
        ...

    def confirmation_sent(self, email: str, now: int) -> None:
        """Given an address, record that its confirmation email went out at ``now``."""
        ...

    def queue_confirmation(self, email: str, now: int) -> PendingConfirmation | None:
        """Given an address, queue its confirmation email unless it is confirmed, suppressed
        or already has one pending (one at a time); return the new pending confirmation or
        None."""
        ...

    def pending_confirmations(self) -> list[PendingConfirmation]:
        """Return the confirmations queued and not yet sent, oldest first."""
        ...

    def confirmation_email(self, confirm_id: str) -> str | None:
        """Given a confirmation id, return its address, or None if unknown or used."""
        ...

    def suppress(self, email: str, now: int) -> None:
        """Given an address the relay refused permanently (5xx on RCPT), stop mailing it."""
        ...

    def queue_signup(self, signup: PendingSignup, keep_seconds: int) -> None:
        """Given a sign-up and how long its link works, queue its email for ``alerts send``
        (several may wait for one address: each link creates the account at most once). A
        sign-up is forgotten, hash and all, ``keep_seconds`` after it was queued."""
        ...

    def pending_signups(self) -> list[PendingSignup]:
        """Return the sign-up emails queued and not yet sent, oldest first."""
        ...

    def signup_sent(self, signup_id: str, now: int) -> None:
        """Given a sign-up whose email went out (or could never go: a suppressed address),
        take it off the queue; a sign-up with a password stays until its link is used."""
        ...

    def take_signup(self, signup_id: str) -> PendingSignup | None:
        """Given a sign-up id from a followed link, return the sign-up with a password and
        forget it (a link works once), or None if unknown, used or without a password."""
        ...

    def acquire_lease(self, holder: str, now: int, seconds: int) -> bool:
        """Given a run's id, take the store's one ``alerts send`` lease for ``seconds`` (or
        extend it if ``holder`` has it); return False while another holder's lease lasts."""
        ...

    def release_lease(self, holder: str) -> None:
        """Given a run's id, give its lease back (nothing if another holds it)."""
        ...

    def claim(self, watch_id: str, holder: str, now: int, seconds: int) -> bool:
        """Given a due watch, claim it for this run before sending: False if it fired, is
        claimed by another run for less than ``seconds``, or waits for a retry."""
        ...

    def defer(self, watch_id: str, now: int) -> int:
        """Given a claimed watch whose alert could not be sent, drop the claim and set its
        next try (backoff by :func:`retry_delay`); return that time (Unix s)."""
        ...

    def hit(self, key: str, now: int, window: int) -> int:
        """Given a rate-limit key (account or network), count one event in the current window
        of ``window`` seconds and return the window's count so far."""
        ...

    def record_alert(self, alert: SentAlert) -> None:
        """Given an alert the SMTP server accepted, mark its watch fired and keep the record,
        atomically. A watch removed meanwhile keeps only the record."""
        ...

    def rearm(self, watch_ids: list[str]) -> None:
        """Given watches whose condition no longer holds, clear their fired flag."""
        ...

    def sent_alerts(self, watch_id: str | None = None) -> list[SentAlert]:
        """Given a watch id (or None: all), return the alerts recorded, oldest first."""
        ...

    def close(self) -> None:
        """Release connections; the store may be used again."""
        ...
