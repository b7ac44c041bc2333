"""The ``webhooks`` commands (docs/API.md#webhooks): ``add`` (prints the endpoint's
``whsec_`` secret once), ``list``, ``remove`` and ``test`` (posts a ``webhook.test`` event now
and prints the outcome), over the webhook store in the key store's SQLite file. Delivery of
real events is ``bangscore alerts send``'s (:func:`deliver_after_alerts`)."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from typing import Any

import orjson

from bangscore.errors import EgressRefused, StoreError
from bangscore.mail.egress import check
from bangscore.mail.webhooks import EVENTS, WebhookRun, deliver, disabled_message, enqueue, send_one
from bangscore.settings import Settings
from bangscore.stores import open_webhook_store
from bangscore.stores.watchstore import WatchStore
from bangscore.stores.webhooks import Delivery, Endpoint, WebhookStore


def _store(settings: Settings, *, create: bool = False) -> WebhookStore:
    """Given the settings, open the webhook store; StoreError (one ``error:`` line from
    ``main``) for a URL of no store it knows."""
    try:
        return open_webhook_store(settings.store_url, create=create)
    except ValueError as exc:
        raise StoreError(str(exc)) from exc


def _events(raw: str) -> tuple[str, ...]:
    events = tuple(dict.fromkeys(e.strip() for e in raw.split(",") if e.strip()))
    unknown = [e for e in events if e not in EVENTS]
    if unknown or not events:
        raise argparse.ArgumentTypeError(f"comma-separated, any of: {', '.join(EVENTS)}")
    return events


def _appids(raw: str) -> tuple[int, ...]:
    try:
        return tuple(int(a) for a in raw.split(",") if a.strip())
    except ValueError:
        raise argparse.ArgumentTypeError("comma-separated appids") from None


def cmd_add(args: argparse.Namespace, settings: Settings) -> int:
    """Add an endpoint; print its id and secret (shown this once). Exit 1 for a URL that
    would be refused (the reason printed)."""
    try:
        check(args.url, allow_loopback=settings.webhooks_allow_loopback)
    except EgressRefused as exc:
        print(f"error: {args.url.split('?')[0]}: {exc}", file=sys.stderr)
        return 1
    store = _store(settings, create=True)
    try:
        endpoint = store.add_endpoint(
            args.account, args.url, args.events, args.appids, int(time.time())
        )
    finally:
        store.close()
    print(f"{endpoint.id} {endpoint.secret}")
    print("the secret is shown once: keep it to verify the webhook-signature header")
    return 0


def cmd_list(args: argparse.Namespace, settings: Settings) -> int:
    """List endpoints (id, owner, state, events, games, URL host) and their last deliveries."""
    store = _store(settings)
    try:
        for e in store.endpoints(args.account):
            state = "disabled" if e.disabled_at else ("failing" if e.failing_since else "active")
            games = ",".join(map(str, e.appids)) or "watched games"
            print(f"{e.id}\t{e.account}\t{state}\t{','.join(e.events)}\t{games}\t{e.url}")
            for d in store.deliveries(e.id, args.deliveries):
                print(f"  {d.id}\t{d.event}\t{d.appid}\t{d.state}\t{d.tries}\t{d.last_error or ''}")
    finally:
        store.close()
    return 0


def cmd_remove(args: argparse.Namespace, settings: Settings) -> int:
    """Remove an endpoint and its deliveries."""
    store = _store(settings)
    try:
        store.remove_endpoint(args.id)
    finally:
        store.close()
    print(f"removed {args.id}")
    return 0


def cmd_test(args: argparse.Namespace, settings: Settings) -> int:
    """Post one signed ``webhook.test`` event to an endpoint now; exit 1 unless it answered
    2xx (the reason printed)."""
    store = _store(settings)
    try:
        endpoint = store.endpoint(args.id)
    finally:
        store.close()
    if endpoint is None:
        print(f"error: no webhook endpoint {args.id}", file=sys.stderr)
        return 1
    now = int(time.time())
    body = {"type": "webhook.test", "timestamp": now, "data": {"endpoint": endpoint.id}}
    delivery = Delivery(
        "msg_" + secrets.token_hex(12),
        endpoint.id,
        "webhook.test",
        "",
        0,
        orjson.dumps(body),
        now,
        0,
        "pending",
        None,
        None,
        None,
    )
    outcome = send_one(endpoint, delivery, now, allow_loopback=settings.webhooks_allow_loopback)
    if not outcome.ok:
        print(f"error: {endpoint.id}: {outcome.error}", file=sys.stderr)
        return 1
    print(f"{endpoint.id}: answered {outcome.status}")
    return 0


def deliver_after_alerts(
    settings: Settings,
    location: str,
    watches: WatchStore,
    connect: Any,
    site_url: str,
    *,
    locked: bool = False,
) -> WebhookRun | None:
    """Given the settings, the snapshot store's location, the watch store, the mail
    connection of this ``alerts send`` and the site URL, enqueue the current snapshot's
    events for every endpoint and send every due delivery; None when the store holds no
    webhooks (a Redis store), the snapshot has no push state or the run is ``locked`` (another
    holds the lease)."""
    if locked:
        return None
    from bangscore.build.push_state import read_push_state
    from bangscore.errors import MailError, UnsafeMessage
    from bangscore.mail.messages import domain
    from bangscore.storage import open_object_storage

    state = read_push_state(open_object_storage(location))
    try:
        store = open_webhook_store(settings.store_url)
    except ValueError:
        return None
    if state is None:
        store.close()
        return None

    def watched(account: str) -> set[int]:
        return {w.appid for w in watches.list_watches(account)}

    def tell(endpoint: Endpoint) -> None:
        try:
            message = disabled_message(endpoint, settings.mail_from, domain(settings.mail_from))
            with connect() as sender:
                sender.send(message)
        except (MailError, UnsafeMessage) as exc:
            print(f"skipped the mail of disabled endpoint {endpoint.id}: {exc}", file=sys.stderr)

    try:
        enqueue(store, state.log, watched, site_url=site_url, now=int(time.time()))
        return deliver(
            store,
            time.time,
            holder=f"alerts-{secrets.token_hex(4)}",
            allow_loopback=settings.webhooks_allow_loopback,
            tell=tell,
            claim_seconds=settings.webhooks_claim_seconds,
        )
    finally:
        store.close()


def print_webhooks(run: WebhookRun | None) -> None:
    """Given a run's webhook deliveries (None: none ran), print their counts and each
    failure (stderr)."""
    if run is None:
        return
    print(f"webhooks: {len(run.delivered)} delivered, {len(run.failed)} failed")
    for problem in run.failed:
        print(f"webhook not delivered {problem}", file=sys.stderr)


def add_parsers(sub: Any) -> None:
    """Given the top-level subparsers, add ``webhooks``."""
    hooks = sub.add_parser("webhooks", help="webhook endpoints").add_subparsers(
        dest="webhooks_command", required=True
    )
    p = hooks.add_parser("add", help="add an endpoint; prints its secret once")
    p.add_argument("--account", required=True, help="the owner (an account's address)")
    p.add_argument("--url", required=True, help="https URL the events are posted to")
    p.add_argument("--events", type=_events, default=EVENTS, help=f"any of {', '.join(EVENTS)}")
    p.add_argument("--appids", type=_appids, default=(), help="games (default: watched games)")
    p.set_defaults(func=cmd_add)
    p = hooks.add_parser("list", help="list endpoints and their last deliveries")
    p.add_argument("--account", help="only this owner's")
    p.add_argument("--deliveries", type=int, default=5, help="deliveries shown per endpoint")
    p.set_defaults(func=cmd_list)
    p = hooks.add_parser("remove", help="remove an endpoint by id")
    p.add_argument("id")
    p.set_defaults(func=cmd_remove)
    p = hooks.add_parser("test", help="post a webhook.test event to an endpoint now")
    p.add_argument("id")
    p.set_defaults(func=cmd_test)
