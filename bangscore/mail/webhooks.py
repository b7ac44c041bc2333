"""Webhook delivery (docs/API.md#webhooks), run by ``bangscore alerts send`` after each
publish and by ``bangscore webhooks test``.

Each run reads the current snapshot's push state (:mod:`bangscore.build.push_state`): for
every kept step built after an endpoint was added, each change to one of the endpoint's games
(its appids, or its owner's watched games) becomes the events it subscribes to
(``verdict.changed``, ``price.dropped``, ``tier.changed``), enqueued once (the store's unique
key). Then every due delivery is claimed, signed as Standard Webhooks sign
(``webhook-id``, ``webhook-timestamp``, ``webhook-signature: v1,<base64 HMAC-SHA256 of
id.timestamp.body>``) and posted through :func:`bangscore.mail.egress.post`; a failure is
tried again after the store's backoff, an endpoint failing for 3 days is disabled and its
owner told by mail. A Discord or Slack incoming-webhook URL gets that service's body.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import html
import logging
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from bangscore.mail.egress import PostOutcome, Resolve, post, system_resolve
from bangscore.mail.messages import compose
from bangscore.stores.webhooks import Delivery, Endpoint, WebhookStore

log = logging.getLogger("bangscore.mail.webhooks")
EVENTS: Final = ("verdict.changed", "price.dropped", "tier.changed")
CLAIM_SECONDS: Final = 120


def event_types(fields: dict[str, list[Any]]) -> list[str]:
    """Given a change's fields (name -> [old, new]), return the events it makes: a verdict
    or tier that changed between two rated states, a price that went down."""
    out = []
    verdict = fields.get("verdict")
    if verdict and None not in verdict:
        out.append("verdict.changed")
    price = fields.get("price_usd")
    if price and None not in price and price[1] < price[0]:
        out.append("price.dropped")
    tier = fields.get("tier")
    if tier and None not in tier:
        out.append("tier.changed")
    return out


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """Given a ``whsec_`` secret, a message id, a Unix timestamp and a body, return the
    ``webhook-signature`` value (``v1,`` and the base64 HMAC-SHA256 of ``id.timestamp.body``
    under the secret's decoded bytes)."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def service(url: str) -> str | None:
    """Given an endpoint URL, return ``discord`` or ``slack`` for their incoming-webhook
    URLs, else None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in ("discord.com", "discordapp.com") and parts.path.startswith("/api/webhooks/"):
        return "discord"
    if host == "hooks.slack.com" and parts.path.startswith("/services/"):
        return "slack"
    return None


def sentence(event: dict[str, Any]) -> str:
    """Given an event document, return it as one line for a chat message."""
    data = event["data"]
    changes = ", ".join(f"{k} {old} -> {new}" for k, (old, new) in data["changes"].items())
    return f"{data['name']}: {event['type']} ({changes}) {data['url']}"


def body_for(url: str, event: dict[str, Any]) -> bytes:
    """Given an endpoint URL and the event document, return the body to post: Discord's
    ``{"content": ...}``, Slack's ``{"text": ...}``, else the event itself."""
    kind = service(url)
    if kind == "discord":
        return orjson.dumps({"content": sentence(event)[:2000]})
    if kind == "slack":
        return orjson.dumps({"text": sentence(event)})
    return orjson.dumps(event)


def event_document(
    kind: str, snapshot: str, created_at: str, change: Any, site_url: str
) -> dict[str, Any]:
    """Given an event type, the snapshot (id, RFC 3339 time), a push-state Change and the
    site URL, return the event (``type``, ``timestamp``, ``data``)."""
    return {
        "type": kind,
        "timestamp": created_at,
        "data": {
            "snapshot": snapshot,
            "appid": change.appid,
            "name": change.name,
            "url": f"{site_url}/game/{change.appid}",
            "changes": change.fields,
        },
    }


@dataclass
class WebhookRun:
    """What a run did: deliveries enqueued, delivered, failed (each ``id: reason``) and the
    endpoints it disabled."""

    enqueued: int = 0
    delivered: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)


def _created(iso: str) -> int:
    return int(dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp())


def enqueue(
    store: WebhookStore,
    steps: Iterable[Any],
    watched: Callable[[str], set[int]],
    *,
    site_url: str,
    now: int,
) -> int:
    """Given the store, the push state's steps, the watched appids by owner and the site
    URL, enqueue each endpoint's events of the steps built after it was added; return how
    many were new."""
    added = 0
    steps = list(steps)
    for endpoint in store.endpoints():
        if endpoint.disabled_at is not None:
            continue
        games = set(endpoint.appids) or watched(endpoint.account)
        for step in steps:
            if _created(step.created_at) < endpoint.created:
                continue
            for change in step.changes:
                if change.appid not in games:
                    continue
                for kind in event_types(change.fields):
                    if kind not in endpoint.events:
                        continue
                    doc = event_document(kind, step.snapshot, step.created_at, change, site_url)
                    delivery = Delivery(
                        "msg_" + secrets.token_hex(12),
                        endpoint.id,
                        kind,
                        step.snapshot,
                        change.appid,
                        orjson.dumps(doc),
                        now,
                        0,
                        "pending",
                        None,
                        None,
                        None,
                    )
                    added += store.enqueue(delivery)
    return added


def send_one(
    endpoint: Endpoint,
    delivery: Delivery,
    now: int,
    *,
    allow_loopback: bool = False,
    resolve: Resolve = system_resolve,
) -> PostOutcome:
    """Given an endpoint, one of its deliveries and the time, sign and post it once."""
    body = body_for(endpoint.url, orjson.loads(delivery.body))
    headers = {
        "webhook-id": delivery.id,
        "webhook-timestamp": str(now),
        "webhook-signature": sign(endpoint.secret, delivery.id, now, body),
        "User-Agent": "BangScore-Webhooks/1",
    }
    return post(endpoint.url, body, headers, allow_loopback=allow_loopback, resolve=resolve)


def deliver(
    store: WebhookStore,
    now: Callable[[], float],
    *,
    holder: str,
    allow_loopback: bool = False,
    resolve: Resolve = system_resolve,
    tell: Callable[[Endpoint], None] = lambda _: None,
    claim_seconds: int = CLAIM_SECONDS,
) -> WebhookRun:
    """Given the store, a clock, this run's name and the egress options, send every due
    delivery once, claimed for ``claim_seconds`` first (two runs never send one at once; a
    killed run's claim lapses and the delivery is sent again, same ``webhook-id``); ``tell``
    is called with each endpoint this run disabled (to mail its owner). Return what was
    done."""
    run = WebhookRun()
    for delivery in store.due(int(now())):
        if not store.claim(delivery.id, int(now()), claim_seconds):
            continue
        endpoint = store.endpoint(delivery.endpoint)
        if endpoint is None or endpoint.disabled_at is not None:
            continue
        outcome = send_one(
            endpoint, delivery, int(now()), allow_loopback=allow_loopback, resolve=resolve
        )
        store.finish(delivery.id, int(now()), outcome.status, outcome.error)
        if outcome.ok:
            store.succeeded(endpoint.id)
            run.delivered.append(delivery.id)
        else:
            run.failed.append(f"{delivery.id}: {outcome.error}")
            log.warning("webhook %s delivery %s: %s", endpoint.id, delivery.id, outcome.error)
            cut = store.failed(endpoint.id, int(now()))
            if cut is not None:
                run.disabled.append(cut.id)
                tell(cut)
        store.prune(endpoint.id)
    log.info("webhooks held by %s: %d delivered", holder, len(run.delivered))
    return run


def disabled_message(endpoint: Endpoint, from_address: str, domain: str) -> EmailMessage:
    """Given an endpoint just disabled, the From address and the mail domain, return the mail
    telling its owner, built as every mail is (:func:`bangscore.mail.messages.compose`); it
    names the URL's host only (a URL may carry a token). Raises UnsafeMessage for an address
    that is not a plain mailbox."""
    host = urlsplit(endpoint.url).hostname or "?"
    text = (
        f"Your webhook endpoint {endpoint.id} on {host} has accepted no delivery for 3 days, "
        "so BangScore stopped sending to it. Add it again once it answers."
    )
    return compose(
        subject="BangScore disabled a webhook endpoint that failed for 3 days",
        from_address=from_address,
        to=endpoint.account,
        message_id=f"<webhook-disabled.{endpoint.id}@{domain}>",
        text=text + "\n",
        html=f"<p>{html.escape(text)}</p>\n",
    )


def iter_deliveries(store: WebhookStore, endpoint_id: str) -> Iterator[Delivery]:
    """Given the store and an endpoint, yield its last 100 deliveries, newest first."""
    yield from store.deliveries(endpoint_id)
