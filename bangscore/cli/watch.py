"""The ``watch`` and ``alerts`` commands of the command line (docs/API.md#watches).

``watch add|list|remove`` manage watches as the operator (an operator-added watch confirms its
address); ``alerts send`` runs :func:`bangscore.mail.alerts.send_alerts` against the current
snapshot and the configured SMTP server; ``alerts sent`` lists the alerts the SMTP server
accepted (what support reads to answer "was my alert sent?"); ``alerts signups`` lists the
sign-ups whose email waits, with the link it carries (a server without SMTP, such as ``make
run``'s demo, completes a sign-up by opening it). Nothing here prints or logs an address
except ``watch list`` and ``alerts signups``, which the operator asks for.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from bangscore.cli.arguments import bounded_int, printable
from bangscore.errors import UnknownWatch
from bangscore.settings import Settings
from bangscore.stores import open_watch_store
from bangscore.stores.watchstore import (
    EVENTS,
    TIERS,
    Condition,
    WatchRecord,
    WatchStore,
    new_watch_id,
)


def _store(settings: Settings, *, create: bool) -> WatchStore:
    return open_watch_store(settings.store_url, create=create)


def _usd(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a USD amount such as 9.99") from None
    try:
        Condition(below_usd=value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return round(value, 2)


def _unrated(appid: int, location: str) -> str | None:
    """Given an appid and the snapshot store, return why it cannot be watched (no snapshot,
    unknown, or known but not rated), or None when the current snapshot rates it."""
    from bangscore.errors import ObjectStorageError, SnapshotError
    from bangscore.mail.alerts import SnapshotDetails
    from bangscore.storage import open_object_storage

    try:
        details = SnapshotDetails(open_object_storage(location))
        if details.get(appid) is not None:
            return None
    except (SnapshotError, ObjectStorageError) as exc:
        return f"no snapshot to check appid {appid} against: {exc}"
    return f"appid {appid} is not a rated game in snapshot {details.snapshot_id}"


def cmd_watch_add(args: argparse.Namespace, settings: Settings) -> int:
    """Add a watch for an address (confirmed by the operator) and print its id."""
    from bangscore.stores.addresses import normalize_email

    email = normalize_email(args.account)
    if email is None:
        print("error: --account must be an email address", file=sys.stderr)
        return 2
    condition = Condition(tier=args.tier, below_usd=args.below, event=args.event)
    problem = _unrated(args.appid, args.snapshot or settings.snapshot_location)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    now = int(time.time())
    store = _store(settings, create=True)
    try:
        stored = store.add_watch(WatchRecord(new_watch_id(), email, args.appid, condition, now))
        store.confirm_address(email, now)
    finally:
        store.close()
    print(f"watch {stored.watch_id}: appid {stored.appid}, {condition.describe()}")
    return 0


def cmd_watch_list(args: argparse.Namespace, settings: Settings) -> int:
    """List watches: id, address, appid, condition, state, last alert."""
    from bangscore.mail.alerts import at

    store = _store(settings, create=False)
    try:
        email = args.account.strip().lower() if args.account else None
        watches = store.list_watches(email)
        confirmed = {w.email: store.address(w.email).confirmed for w in watches}
    finally:
        store.close()
    print(f"{'id':<13} {'account':<28} {'appid':>8} {'condition':<26} {'state':<12} last alert")
    for w in watches:
        state = "alerted" if w.fired else "waiting"
        if not confirmed[w.email]:
            state = "unconfirmed"
        last = at(w.last_alert_at) if w.last_alert_at else "never"
        print(
            f"{w.watch_id:<13} {w.email:<28} {w.appid:>8} {w.condition.describe():<26} "
            f"{state:<12} {last}"
        )
    return 0


def cmd_watch_remove(args: argparse.Namespace, settings: Settings) -> int:
    """Remove a watch by its id."""
    store = _store(settings, create=False)
    try:
        removed = store.remove_watch(args.watch_id)
    except UnknownWatch:
        print(f"error: no watch with id {args.watch_id}", file=sys.stderr)
        return 1
    finally:
        store.close()
    print(f"removed watch {removed.watch_id} (appid {removed.appid})")
    return 0


def cmd_alerts_sent(args: argparse.Namespace, settings: Settings) -> int:
    """List the alerts sent (all, or one watch's): when (UTC), watch id, snapshot, the price
    and tier announced and the Message-ID, oldest first. Names no address."""
    from bangscore.mail.alerts import at

    store = _store(settings, create=False)
    try:
        sent = store.sent_alerts(args.watch)
    finally:
        store.close()
    print(f"{'sent (UTC)':<16} {'watch':<13} {'snapshot':<18} {'price':>9} {'tier':<9} message id")
    for a in sent:
        price = "-" if a.price_usd is None else f"${a.price_usd:,.2f}"
        print(
            f"{at(a.sent_at):<16} {a.watch_id:<13} {a.snapshot_id:<18} {price:>9} "
            f"{a.tier or '-':<9} {a.message_id}"
        )
    return 0


def links_site_url(settings: Settings, location: str) -> str:
    """Given the settings and the snapshot store, return the site URL the mail's and the
    listings' links name: the configured one, else the one the current snapshot was built
    for (``make run PORT=N`` builds and serves on N, while this command's own default is
    8000; issues 36 and 48), else this command's host and port."""
    if settings.site_url_configured:
        return settings.site_url
    from bangscore.errors import ObjectStorageError, SnapshotError
    from bangscore.manifest import read_manifest_view
    from bangscore.storage import open_object_storage

    try:
        storage = open_object_storage(location)
        pointer = storage.read_pointer()
        recorded = read_manifest_view(storage, pointer).meta.get("site_url") if pointer else None
    except (SnapshotError, ObjectStorageError):
        recorded = None
    return str(recorded).rstrip("/") if recorded else settings.site_url


def cmd_alerts_signups(args: argparse.Namespace, settings: Settings) -> int:
    """List the sign-ups whose email waits for ``alerts send``: when queued (UTC), the
    address and the link its email carries (for a new address; ``-`` for word to an existing
    account's owner), oldest first. Exit 2 without the session secret."""
    from bangscore.errors import StoreMissing
    from bangscore.mail.alerts import at
    from bangscore.mail.links import WatchLinks
    from bangscore.stores.secret import load_session_secret

    try:
        secret = load_session_secret(settings.session_secret, settings.state_dir, create=False)
    except StoreMissing as exc:
        print(f"error: {exc}: no link could be made", file=sys.stderr)
        return 2
    links = WatchLinks(secret, links_site_url(settings, settings.snapshot_location))
    store = _store(settings, create=False)
    try:
        queued = store.pending_signups()
    finally:
        store.close()
    print(f"{'queued (UTC)':<16} {'address':<28} link")
    for s in queued:
        link = links.signup_url(s.signup_id) if s.password_hash else "-"
        print(f"{at(s.queued_at):<16} {printable(s.email):<28} {link}")
    return 0


def cmd_alerts_send(args: argparse.Namespace, settings: Settings) -> int:
    """Send the alerts of every watch whose condition became true; exit 1 if any stays
    pending (the SMTP server refused or could not be reached: retried next run)."""
    from bangscore.cli.webhooks import deliver_after_alerts, print_webhooks
    from bangscore.errors import ObjectStorageError, SnapshotError, StoreMissing
    from bangscore.mail.alerts import Connect, SnapshotDetails, send_alerts
    from bangscore.mail.folder import MailFolder
    from bangscore.mail.links import WatchLinks
    from bangscore.mail.smtp import PYTHON_CHECKS_HEADERS, Mailer, SMTPServer
    from bangscore.storage import open_object_storage
    from bangscore.stores.secret import load_session_secret

    if settings.smtp_url is not None and settings.mail_dir is not None:
        print(
            "error: BANGSCORE_SMTP_URL and BANGSCORE_MAIL_DIR are both set: send the mail or "
            "keep it, not both",
            file=sys.stderr,
        )
        return 2
    if settings.smtp_url is None and settings.mail_dir is None:
        print(
            "error: BANGSCORE_SMTP_URL is not set: no alert can be sent (for local "
            "development, BANGSCORE_MAIL_DIR=var/mail keeps the mail as .eml files)",
            file=sys.stderr,
        )
        return 2
    connect: Connect
    if settings.mail_dir is not None:
        folder = settings.mail_dir
        connect = lambda: MailFolder(folder, print)  # noqa: E731 -- read once per run
    else:
        assert settings.smtp_url is not None
        try:
            server = SMTPServer.from_url(settings.smtp_url.get_secret_value())
        except ValueError as exc:
            print(f"error: BANGSCORE_SMTP_URL: {exc}", file=sys.stderr)
            return 2
        deadline = settings.smtp_deadline_seconds
        connect = lambda: Mailer(server, deadline=deadline)  # noqa: E731
    location = args.snapshot or settings.snapshot_location
    try:
        details = SnapshotDetails(open_object_storage(location))
    except (SnapshotError, ObjectStorageError) as exc:
        print(f"error: no snapshot to compare the watches with: {exc}", file=sys.stderr)
        return 1
    try:
        # Never invented here: links signed with a secret the server does not have all
        # answer 400 (`serve` refuses to start without it too).
        secret = load_session_secret(settings.session_secret, settings.state_dir, create=False)
    except StoreMissing as exc:
        print(f"error: {exc}: the links of the emails could not be checked", file=sys.stderr)
        return 2
    if not PYTHON_CHECKS_HEADERS:
        print(
            "warning: this Python's email package lacks the CVE-2024-6923 fix (3.11.10, "
            "3.12.5, 3.13.0); every message's header block is checked by BangScore instead",
            file=sys.stderr,
        )
    # The mail's game links come from the snapshot, built with its site URL; the confirmation
    # and unsubscribe links must name the same origin, so unconfigured, they take the
    # snapshot's too instead of this machine's host and port (issue 36).
    links = WatchLinks(
        secret, links_site_url(settings, args.snapshot or settings.snapshot_location)
    )
    store = _store(settings, create=settings.store is None)
    started = time.perf_counter()
    try:
        watches = len(store.list_watches())
        run = send_alerts(
            store,
            details,
            connect,
            links=links,
            from_address=settings.mail_from,
            now=time.time,
            lease_seconds=int(settings.smtp_deadline_seconds) + 240,
        )
        # Under the same lease-holding run: one `alerts send` at a time sends webhooks too.
        hooks = deliver_after_alerts(
            settings, location, store, connect, links.site_url, locked=run.locked
        )
    except SnapshotError as exc:
        print(f"error: {exc}; nothing more was sent, the rest stays due", file=sys.stderr)
        return 1
    finally:
        store.close()
    if run.locked:
        print(
            "error: another `alerts send` holds this store's lease; nothing sent", file=sys.stderr
        )
        return 1
    print(f"{run.summary(watches, details.snapshot_id)}; {time.perf_counter() - started:.1f} s")
    for watch_id in run.sent:
        print(f"sent {watch_id}")
    print_webhooks(hooks)
    for problem in run.problems:
        print(f"skipped {problem}", file=sys.stderr)
    if run.error is not None:
        pending = len(run.pending) + run.confirmations_pending
        print(
            f"error: {run.error}; {pending} message(s) left pending, retried on the next run",
            file=sys.stderr,
        )
        return 1
    return 0


def add_parsers(sub: Any) -> None:
    """Given the top-level subparsers, add ``watch`` and ``alerts``."""
    watch = sub.add_parser("watch", help="add, list and remove watches").add_subparsers(
        dest="watch_command", required=True
    )
    p = watch.add_parser("add", help="watch a game for an address (counts as confirmed)")
    p.add_argument("--account", required=True, help="the address alerts go to")
    p.add_argument("--appid", required=True, type=bounded_int(1, 2**31 - 1))
    cond = p.add_mutually_exclusive_group(required=True)
    cond.add_argument("--tier", choices=TIERS, help="alert when the game reaches this tier")
    cond.add_argument("--below", type=_usd, help="alert when its price is this USD or less")
    cond.add_argument(
        "--event",
        choices=EVENTS,
        help="alert when its price is at or below its recent low, or when its next sale starts",
    )
    p.add_argument("--snapshot", help="snapshot store the appid is checked in (default: served)")
    p.set_defaults(func=cmd_watch_add)
    p = watch.add_parser("list", help="list watches")
    p.add_argument("--account")
    p.set_defaults(func=cmd_watch_list)
    p = watch.add_parser("remove", help="remove a watch by id")
    p.add_argument("watch_id")
    p.set_defaults(func=cmd_watch_remove)

    alerts = sub.add_parser("alerts", help="watch alerts").add_subparsers(
        dest="alerts_command", required=True
    )
    p = alerts.add_parser("send", help="email every watch whose condition became true")
    p.add_argument("--snapshot", help="snapshot store: folder or s3://bucket/prefix")
    p.set_defaults(func=cmd_alerts_send)
    p = alerts.add_parser("sent", help="list the alerts the SMTP server accepted")
    p.add_argument("--watch", help="only this watch's alerts (its id)")
    p.set_defaults(func=cmd_alerts_sent)
    p = alerts.add_parser("signups", help="list the sign-ups whose email waits, with its link")
    p.set_defaults(func=cmd_alerts_signups)
