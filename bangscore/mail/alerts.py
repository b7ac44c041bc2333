"""``bangscore alerts send``: one email per watch whose condition became true (docs/API.md#alerts).

The operator's tool run by the nightly timer after the build. It reads every watch from the
watch store and each watched game's detail record from the current snapshot (through the
object storage and the manifest, as the server does), then:

- a watch whose condition does not hold is re-armed (its next turn to true alerts again);
- a watch whose condition holds and has not fired gets one email, if its address is
  confirmed; the watch is marked fired and the alert recorded only after the SMTP server
  accepted the message, so a crash or a refused server leaves it due for the next run
  (at least once; a message re-sent after a crash has the same Message-ID, so mail systems
  can drop the duplicate);
- an address whose confirmation email never went out (the server could not send it) gets it.

Addresses never appear in what this module prints or logs: alerts are named by watch id.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Protocol

import orjson
from jinja2 import TemplateError

from bangscore.contract.objects import detail_key
from bangscore.errors import MailError, SnapshotError, UnsafeMessage
from bangscore.mail.links import WatchLinks
from bangscore.mail.messages import bodies, compose, confirmation_message, domain, signup_message
from bangscore.manifest import read_body, read_manifest_view
from bangscore.scoring.verdict_text import heading
from bangscore.storage import ObjectStorage
from bangscore.stores.watchstore import (
    PendingConfirmation,
    PendingSignup,
    SentAlert,
    WatchRecord,
    WatchStore,
    holds_today,
)

log = logging.getLogger("bangscore.mail.alerts")
# How long a run holds the store's lease and its claims: past the SMTP run's deadline (60 s)
# with room for the store and the snapshot; a crashed run's lease lapses after it.
LEASE_SECONDS = 300


class Sender(Protocol):
    """What sends one message (an open :class:`bangscore.mail.Mailer`); raises MailError."""

    def send(self, message: EmailMessage) -> None: ...


Connect = Callable[[], AbstractContextManager[Sender]]


class SnapshotDetails:
    """The current snapshot's detail records, read on demand and kept per appid."""

    def __init__(self, storage: ObjectStorage) -> None:
        """Given the snapshot store, bind to its current snapshot; raise SnapshotError if
        none is published or its manifest is broken."""
        pointer = storage.read_pointer()
        if pointer is None:
            raise SnapshotError(f"no snapshot is published in {storage.location}")
        self.storage = storage
        self.snapshot_id = pointer
        self.manifest = read_manifest_view(storage, pointer)
        self._records: dict[int, dict[str, Any] | None] = {}

    def get(self, appid: int) -> dict[str, Any] | None:
        """Given an appid, return its detail record (JSON object), or None when the game is
        not rated in this snapshot. Raises SnapshotError for a missing or corrupt object."""
        if appid not in self._records:
            entry = self.manifest.entries.get(detail_key(appid))
            record = None
            if entry is not None:
                record = orjson.loads(read_body(self.storage, entry))
            self._records[appid] = record
        return self._records[appid]


@dataclass
class AlertRun:
    """What one run did: watch ids alerted, left pending and skipped (bad record or refused,
    retried with backoff), how many watches were waiting on an unconfirmed address, re-armed
    or claimed by another run, confirmations and sign-up emails sent, addresses suppressed,
    the first mail error if any, and whether another run held the lease (then nothing was
    done)."""

    sent: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    claimed_elsewhere: int = 0
    suppressed: int = 0
    locked: bool = False
    unconfirmed: int = 0
    rearmed: int = 0
    confirmations: int = 0
    confirmations_pending: int = 0
    signups: int = 0
    error: str | None = None

    def summary(self, watches: int, snapshot_id: str) -> str:
        """Return the run as one line for the operator (watch ids only, no address)."""
        line = (
            f"snapshot {snapshot_id}: {watches} watches, {len(self.sent)} alerts sent, "
            f"{len(self.pending)} pending, {self.unconfirmed} waiting for a confirmed address, "
            f"{self.rearmed} re-armed, {self.confirmations} confirmations sent"
        )
        if self.confirmations_pending:
            line += f", {self.confirmations_pending} confirmations pending"
        if self.signups:
            line += f", {self.signups} sign-up emails sent"
        if self.skipped:
            line += f", {len(self.skipped)} skipped (retried later): {' '.join(self.skipped)}"
        if self.suppressed:
            line += f", {self.suppressed} addresses suppressed after a hard bounce"
        if self.claimed_elsewhere:
            line += f", {self.claimed_elsewhere} claimed by another run"
        return line


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, int | float) else "no price"


def _price_date(record: dict[str, Any]) -> str:
    """Given a detail record, return the date of its price (YYYY-MM-DD) or ``"date unknown"``:
    the observation time when the snapshot has it, else the price's provenance or the
    storefront source date."""
    observed = record.get("price_observed_at")
    if isinstance(observed, str) and observed:
        return observed[:10]
    provenance = record.get("provenance") or {}
    dated = (
        (provenance.get("price_usd") or {}).get("date") if isinstance(provenance, dict) else None
    )
    if isinstance(dated, str):
        return dated[:10]
    sources = record.get("sources") or {}
    storefront = sources.get("storefront") if isinstance(sources, dict) else None
    return str(storefront)[:10] if storefront else "date unknown"


def _day(iso: str) -> str:
    """Given ``YYYY-MM-DD...``, return ``24 Jul 2026``; anything else as it is."""
    try:
        return dt.date.fromisoformat(iso[:10]).strftime("%-d %b %Y")
    except ValueError:
        return iso


def _recent_low(record: dict[str, Any]) -> str:
    """Given a detail record, return its recent low in words: ``"$7.49, first seen 24 Jun
    2026, the lowest price of the two years before these prices"``."""
    low_at = record.get("recent_low_at")
    seen = f", first seen {_day(str(low_at))}" if low_at else ""
    low = _usd(record.get("recent_low_usd"))
    return f"{low}{seen}, the lowest price of the two years before these prices"


def _next_sale(record: dict[str, Any]) -> str:
    """Given a detail record, return its sale forecast (docs/API.md#next-sale) in words when a
    discount is likely in it (``"likely $5.99 in the Autumn Sale from 1 Oct 2026 (medium
    confidence)"``), else ``""``; ``""`` too where its ``verdict_text`` says those words."""
    ahead = record.get("next_sale")
    if not isinstance(ahead, dict) or (ahead.get("discounted_likelihood") or 0) < 0.5:
        return ""
    confidence = f" ({ahead['confidence']} confidence)" if ahead.get("confidence") else ""
    words = (
        f"likely {_usd(ahead.get('expected_price_usd'))} in the {ahead.get('name')} from "
        f"{_day(str(ahead.get('starts') or ''))}"
    )
    # The verdict's sentence names it already (a wait's "...; likely $5.99 in the Autumn Sale
    # from 1 Oct 2026."): the mail says it once (issue 56).
    if words in str(record.get("verdict_text") or ""):
        return ""
    return f"{words}{confidence}"


def alert_message(
    watch: WatchRecord,
    record: dict[str, Any],
    *,
    from_address: str,
    unsubscribe_url: str,
    snapshot_id: str,
) -> EmailMessage:
    """Given a watch whose condition holds, the game's detail record and the sender, return
    the alert: plain text and HTML (templates ``mail/alert``) with the game, its price and the
    date that price was seen, score, tier, verdict (when the snapshot has one) and link, and
    RFC 8058 one-click unsubscribe headers. The subject dates the price ("Hollow Knight:
    $7.49 (price seen 24 Jul 2026)") and never says "now"; an event watch's subject names it
    ("Hades: $9.99, at or below its recent low of $9.99 (price seen ...)", "Hades is on sale:
    $9.99 (50% off $19.99) (price seen ...)"), a recent-low alert's body dates the low; a
    stale price (seen more than 180 days before the snapshot's ``prices_as_of``:
    ``stale_price`` among the record's ``provisional_reasons``) is "price last seen 1 Jan
    2025", and the body says how old it is. Raises UnsafeMessage when the watch's address
    cannot be written as a plain mailbox."""
    name = str(record.get("name") or f"App {watch.appid}")
    price = _usd(record.get("price_usd"))
    seen = _day(_price_date(record))
    stale = "stale_price" in (record.get("provisional_reasons") or ())
    seen_words = f"price last seen {seen}" if stale else f"price seen {seen}"
    as_of = _day(str(record.get("prices_as_of") or ""))
    stale_note = (
        f"This price is stale: it was seen more than 180 days before the date of these prices "
        f"({as_of}), so the game may cost something else today."
        if stale
        else ""
    )
    tier = str(record.get("tier", "")).replace("_", " ")
    score = record.get("bang_score")
    discount = record.get("discount_percent") or 0
    on_sale = f" ({discount}% off {_usd(record.get('list_price_usd'))})" if discount else ""
    verdict = record.get("verdict")
    next_sale = _next_sale(record)
    event = watch.condition.event
    low = record.get("recent_low_usd")
    recent_low = _recent_low(record) if event == "recent_low" else ""
    if watch.condition.tier is not None:
        phrase = "a banger" if tier == "banger" else tier
        subject = f"{name} is {phrase} on BangScore ({score}) at {price} ({seen_words})"
    elif event is not None:
        subject = (
            f"{name}: {price}, at or below its recent low of {_usd(low)} ({seen_words})"
            if event == "recent_low"
            else f"{name} is on sale: {price}{on_sale} ({seen_words})"
        )
    else:
        subject = f"{name}: {price}, within your {watch.condition.describe()} watch"
        subject += f" ({seen_words})"
    text, html = bodies(
        "alert",
        name=name,
        condition=watch.condition.describe(),
        price=price,
        on_sale=on_sale,
        price_seen=seen_words,
        stale_note=stale_note,
        score=score,
        tier=tier,
        # The heading once, then the sentence, which never repeats it (issue 56).
        verdict=heading(str(verdict or ""), free=not record.get("list_price_usd")),
        verdict_text=str(record.get("verdict_text") or ""),
        next_sale=next_sale,
        recent_low=recent_low,
        url=str(record.get("url") or ""),
        unsubscribe_url=unsubscribe_url,
    )
    # The same id for the same watch and snapshot: a re-send after a crash is a duplicate
    # that mail systems can recognise.
    return compose(
        subject=subject,
        from_address=from_address,
        to=watch.email,
        message_id=f"<alert.{watch.watch_id}.{snapshot_id}@{domain(from_address)}>",
        text=text,
        html=html,
        unsubscribe_url=unsubscribe_url,
    )


def _due(
    watches: Iterable[WatchRecord], details: SnapshotDetails
) -> tuple[list[tuple[WatchRecord, dict[str, Any]]], list[str]]:
    """Given the watches and the snapshot, return (watches whose condition holds and that have
    not fired, with their records) and the ids of fired watches whose condition stopped."""
    due: list[tuple[WatchRecord, dict[str, Any]]] = []
    rearm: list[str] = []
    for watch in watches:
        record = details.get(watch.appid)
        met = holds_today(watch.condition, record)
        if met and not watch.fired:
            assert record is not None
            due.append((watch, record))
        elif not met and watch.fired:
            rearm.append(watch.watch_id)
    return due, rearm


def send_alerts(
    store: WatchStore,
    details: SnapshotDetails,
    connect: Connect,
    *,
    links: WatchLinks,
    from_address: str,
    now: Callable[[], float],
    lease_seconds: int = LEASE_SECONDS,
) -> AlertRun:
    """Given the watch store, the current snapshot, a way to open an SMTP connection, the
    signed links and the sender address, send every queued confirmation and due alert; return
    what was done.

    The run first takes the store's lease (``AlertRun.locked`` when another run holds it:
    nothing is done), and claims each alert before sending it, so two runs never mail twice.
    One record that cannot be written or that the server refuses is skipped, logged by its
    watch id and retried with backoff; a 5xx on RCPT suppresses the address; every other due
    alert goes out in the same run. A lost connection stops the sending: what was not
    accepted stays due (``AlertRun.error`` says why). Raises StoreUnavailable if the store
    fails, SnapshotError for a broken snapshot object."""
    run = AlertRun()
    holder = "run_" + secrets.token_urlsafe(12)
    if not store.acquire_lease(holder, int(now()), lease_seconds):
        run.locked = True
        return run
    try:
        _send(run, store, details, connect, links, from_address, now, holder, lease_seconds)
    finally:
        store.release_lease(holder)
    return run


def _send(
    run: AlertRun,
    store: WatchStore,
    details: SnapshotDetails,
    connect: Connect,
    links: WatchLinks,
    from_address: str,
    now: Callable[[], float],
    holder: str,
    lease_seconds: int,
) -> None:
    watches = store.list_watches()
    due, rearm = _due(watches, details)
    store.rearm(rearm)
    run.rearmed = len(rearm)
    addresses = {w.email: store.address(w.email) for w in watches}
    ready = [
        (w, r) for w, r in due if addresses[w.email].confirmed and not addresses[w.email].suppressed
    ]
    run.unconfirmed = len(due) - len(ready)
    confirm = store.pending_confirmations()
    signups = store.pending_signups()
    if not ready and not confirm and not signups:
        return
    done: set[str] = set()
    try:
        with connect() as mailer:
            _send_signups(run, store, mailer, signups, links, from_address, now)
            for pending in confirm:

                def confirmation(p: PendingConfirmation = pending) -> EmailMessage:
                    return confirmation_message(p, from_address, links)

                label = f"confirmation {pending.confirm_id}"
                if _deliver(run, store, mailer, pending.email, now, label, confirmation):
                    store.confirmation_sent(pending.email, int(now()))
                    run.confirmations += 1
            for watch, record in ready:
                if not store.claim(watch.watch_id, holder, int(now()), lease_seconds):
                    run.claimed_elsewhere += 1
                    done.add(watch.watch_id)
                    continue

                def build(w: WatchRecord = watch, r: dict[str, Any] = record) -> EmailMessage:
                    return alert_message(
                        w,
                        r,
                        from_address=from_address,
                        unsubscribe_url=links.unsubscribe_url(w.watch_id),
                        snapshot_id=details.snapshot_id,
                    )

                try:
                    message = _deliver(
                        run, store, mailer, watch.email, now, f"watch {watch.watch_id}", build
                    )
                except MailError:
                    store.defer(watch.watch_id, int(now()))
                    raise
                done.add(watch.watch_id)
                if message is None:
                    store.defer(watch.watch_id, int(now()))
                    run.skipped.append(watch.watch_id)
                    continue
                price = record.get("price_usd")
                store.record_alert(
                    SentAlert(
                        watch.watch_id,
                        int(now()),
                        details.snapshot_id,
                        float(price) if isinstance(price, int | float) else None,
                        str(record.get("tier")) if record.get("tier") else None,
                        str(message["Message-ID"]),
                    )
                )
                run.sent.append(watch.watch_id)
    except MailError as exc:
        run.error = str(exc)
    run.pending = [w.watch_id for w, _ in ready if w.watch_id not in done]
    run.confirmations_pending = len(confirm) - run.confirmations


def _send_signups(
    run: AlertRun,
    store: WatchStore,
    mailer: Sender,
    signups: list[PendingSignup],
    links: WatchLinks,
    from_address: str,
    now: Callable[[], float],
) -> None:
    """Send each queued sign-up's email (a new address's link, or word to an existing
    account's owner) and take it off the queue; a suppressed address is only taken off.
    Raises MailError on a lost connection (what was not sent stays queued)."""
    for signup in signups:
        if store.address(signup.email).suppressed:
            store.signup_sent(signup.signup_id, int(now()))
            continue

        def build(s: PendingSignup = signup) -> EmailMessage:
            return signup_message(s, from_address, links)

        if _deliver(run, store, mailer, signup.email, now, f"sign-up {signup.signup_id}", build):
            store.signup_sent(signup.signup_id, int(now()))
            run.signups += 1


def _deliver(
    run: AlertRun,
    store: WatchStore,
    mailer: Sender,
    email: str,
    now: Callable[[], float],
    label: str,
    build: Callable[[], EmailMessage],
) -> EmailMessage | None:
    """Build and send one message; return it if the server accepted it. A message that cannot
    be written, or that the server refuses while staying connected, is logged by ``label``
    (never the address) and None returned; a hard bounce suppresses the address. A lost
    connection (MailError.lost) is raised."""
    try:
        message = build()
        mailer.send(message)
    except (UnsafeMessage, TemplateError) as exc:
        log.warning("%s skipped: %s", label, exc)
        run.problems.append(f"{label}: {exc}")
        run.error = run.error or f"{label}: {exc}"
        return None
    except MailError as exc:
        if exc.lost:
            raise
        log.warning("%s skipped: %s", label, exc)
        run.problems.append(f"{label}: {exc}")
        run.error = run.error or f"{label}: {exc}"
        if exc.bounced:
            store.suppress(email, int(now()))
            run.suppressed += 1
        return None
    return message


def at(timestamp: float) -> str:
    """Given Unix seconds, return the UTC time as ``YYYY-MM-DD HH:MM`` (for listings)."""
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d %H:%M")
