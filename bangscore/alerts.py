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
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from html import escape
from typing import Any, Protocol

import orjson

from bangscore.contract.filters import detail_key
from bangscore.mail import MailError
from bangscore.manifest import SnapshotError, digest, object_key, read_manifest
from bangscore.storage import ObjectNotFound, ObjectStorage
from bangscore.stores.watchstore import SentAlert, WatchRecord, WatchStore
from bangscore.watch_mail import WatchLinks, confirmation_message


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
        self.manifest = read_manifest(storage, pointer)
        self._records: dict[int, dict[str, Any] | None] = {}

    def get(self, appid: int) -> dict[str, Any] | None:
        """Given an appid, return its detail record (JSON object), or None when the game is
        not rated in this snapshot. Raises SnapshotError for a missing or corrupt object."""
        if appid not in self._records:
            entry = self.manifest.entries.get(detail_key(appid))
            record = None
            if entry is not None:
                try:
                    body = self.storage.get(object_key(entry.sha256))
                except ObjectNotFound as exc:
                    raise SnapshotError(f"snapshot object {entry.sha256} is missing") from exc
                if digest(body) != entry.sha256:
                    raise SnapshotError(f"snapshot object {entry.sha256} is corrupt")
                record = orjson.loads(body)
            self._records[appid] = record
        return self._records[appid]


@dataclass
class AlertRun:
    """What one run did: watch ids alerted and left pending, how many watches were waiting
    on an unconfirmed address or re-armed, confirmations sent, and the mail error if any."""

    sent: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    unconfirmed: int = 0
    rearmed: int = 0
    confirmations: int = 0
    confirmations_pending: int = 0
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


def alert_message(
    watch: WatchRecord,
    record: dict[str, Any],
    *,
    from_address: str,
    unsubscribe_url: str,
    snapshot_id: str,
) -> EmailMessage:
    """Given a watch whose condition holds, the game's detail record and the sender, return
    the alert: plain text and HTML with the game, its dated price, score, tier, verdict (when
    the snapshot has one) and link, and RFC 8058 one-click unsubscribe headers."""
    name = str(record.get("name") or f"App {watch.appid}")
    price = _usd(record.get("price_usd"))
    when = _price_date(record)
    tier = str(record.get("tier", "")).replace("_", " ")
    score = record.get("bang_score")
    url = str(record.get("url") or "")
    discount = record.get("discount_percent") or 0
    on_sale = f" ({discount}% off {_usd(record.get('list_price_usd'))})" if discount else ""
    verdict = record.get("verdict")
    verdict_text = record.get("verdict_text")
    if watch.condition.tier is not None:
        phrase = "a banger" if tier == "banger" else tier
        subject = f"{name} is now {phrase} on BangScore ({score}) at {price}"
    else:
        subject = f"{name} is now {price}, within your {watch.condition.describe()} watch"

    lines = [
        f"{name}: your watch ({watch.condition.describe()}) has come true.",
        "",
        f"Price: {price}{on_sale}, as of {when}",
        f"bang_score: {score} / 100, {tier}",
    ]
    if verdict:
        lines.append(
            f"Verdict: {str(verdict).replace('_', ' ')}"
            + (f". {verdict_text}" if verdict_text else "")
        )
    lines += [
        f"Game page: {url}",
        "",
        "This is the one alert for this watch until its condition stops and starts again.",
        f"Stop watching (one click, no sign-in): {unsubscribe_url}",
    ]
    rows = [
        ("Price", f"{escape(price)}{escape(on_sale)} <small>(as of {escape(when)})</small>"),
        ("bang_score", f"{escape(str(score))} / 100, {escape(tier)}"),
    ]
    if verdict:
        text = escape(str(verdict).replace("_", " "))
        rows.append(("Verdict", text + (f". {escape(str(verdict_text))}" if verdict_text else "")))
    html = (
        f'<h1 style="font-size:20px"><a href="{escape(url)}">{escape(name)}</a></h1>'
        f"<p>Your watch ({escape(watch.condition.describe())}) has come true.</p><table>"
        + "".join(f'<tr><th align="left">{k}</th><td>{v}</td></tr>' for k, v in rows)
        + f'</table><p><a href="{escape(url)}">Open the game page</a></p>'
        "<p><small>This is the one alert for this watch until its condition stops and starts "
        f'again. <a href="{escape(unsubscribe_url)}">Stop watching</a> (one click, no '
        "sign-in).</small></p>"
    )
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = from_address
    message["To"] = watch.email
    message["Date"] = formatdate(usegmt=True)
    domain = from_address.rsplit("@", 1)[-1].strip(" >") or "bangscore.local"
    # The same id for the same watch and snapshot: a re-send after a crash is a duplicate
    # that mail systems can recognise.
    message["Message-ID"] = f"<alert.{watch.watch_id}.{snapshot_id}@{domain}>"
    message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content("\n".join(lines) + "\n")
    message.add_alternative(html, subtype="html")
    return message


def _due(
    watches: Iterable[WatchRecord], details: SnapshotDetails
) -> tuple[list[tuple[WatchRecord, dict[str, Any]]], list[str]]:
    """Given the watches and the snapshot, return (watches whose condition holds and that have
    not fired, with their records) and the ids of fired watches whose condition stopped."""
    due: list[tuple[WatchRecord, dict[str, Any]]] = []
    rearm: list[str] = []
    for watch in watches:
        record = details.get(watch.appid)
        met = record is not None and watch.condition.met(record)
        if met and not watch.fired:
            assert record is not None
            due.append((watch, record))
        elif not met and watch.fired:
            rearm.append(watch.watch_id)
    return due, rearm


def _sent(run: AlertRun, mailer: Sender, message: EmailMessage) -> bool:
    """Send one message; True if the server accepted it. A refusal of this one message is
    noted in ``run.error`` and the run goes on; a lost connection (MailError.lost) stops it."""
    try:
        mailer.send(message)
    except MailError as exc:
        if exc.lost:
            raise
        run.error = str(exc)
        return False
    return True


def send_alerts(
    store: WatchStore,
    details: SnapshotDetails,
    connect: Connect,
    *,
    links: WatchLinks,
    from_address: str,
    now: Callable[[], float],
) -> AlertRun:
    """Given the watch store, the current snapshot, a way to open an SMTP connection, the
    signed links and the sender address, send every due alert and missing confirmation;
    return what was done. A MailError stops the sending: what was not accepted stays due for
    the next run (``AlertRun.error`` says why). Raises KeyStoreUnavailable if the store fails,
    SnapshotError for a broken snapshot object."""
    run = AlertRun()
    watches = store.list_watches()
    due, rearm = _due(watches, details)
    store.rearm(rearm)
    run.rearmed = len(rearm)
    addresses = {w.email: store.address(w.email) for w in watches}
    ready = [(w, r) for w, r in due if addresses[w.email].confirmed]
    run.unconfirmed = len(due) - len(ready)
    confirm = sorted(
        e for e, a in addresses.items() if not a.confirmed and a.confirm_sent_at is None
    )
    if not ready and not confirm:
        return run
    try:
        with connect() as mailer:
            for email in confirm:
                if _sent(run, mailer, confirmation_message(email, from_address, links)):
                    store.confirmation_sent(email, int(now()))
                    run.confirmations += 1
            for watch, record in ready:
                message = alert_message(
                    watch,
                    record,
                    from_address=from_address,
                    unsubscribe_url=links.unsubscribe_url(watch.watch_id),
                    snapshot_id=details.snapshot_id,
                )
                if not _sent(run, mailer, message):
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
    sent = set(run.sent)
    run.pending = [w.watch_id for w, _ in ready if w.watch_id not in sent]
    run.confirmations_pending = len(confirm) - run.confirmations
    return run


def at(timestamp: float) -> str:
    """Given Unix seconds, return the UTC time as ``YYYY-MM-DD HH:MM`` (for listings)."""
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d %H:%M")
