"""The webhook store (docs/API.md#webhooks): endpoints and their deliveries, in tables of
their own in the key store's SQLite file.

A delivery is one event for one endpoint, unique by (endpoint, event type, snapshot, appid),
so enqueueing the same changes twice adds nothing; it is claimed before it is sent (a claim
lapses after ``claim_seconds``, so a killed run's deliveries are sent again, never twice
while claimed), then marked delivered or given its next try time. The interface is
:class:`WebhookStore`; :class:`SQLiteWebhookStore` keeps it in the SQLite file,
:class:`bangscore.stores.redis_webhooks.RedisWebhookStore` in the same Redis as the keys;
:func:`bangscore.stores.open_webhook_store` chooses by the store's URL.
"""

from __future__ import annotations

import base64
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from bangscore.errors import StoreMissing, WatchStoreError

# How long after its first failure with no success since an endpoint is disabled.
DISABLE_AFTER_SECONDS: Final = 3 * 24 * 3600
# Delays before the 2nd, 3rd, 4th and 5th tries: 5 tries over about 24 hours.
RETRY_DELAYS: Final = (5 * 60, 3600, 6 * 3600, 17 * 3600)
MAX_TRIES: Final = len(RETRY_DELAYS) + 1
KEEP_DELIVERIES: Final = 100  # the last deliveries shown (and kept) per endpoint

SCHEMA = """
CREATE TABLE IF NOT EXISTS webhook_endpoints (
    id TEXT PRIMARY KEY, account TEXT NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL,
    events TEXT NOT NULL, appids TEXT NOT NULL, created INTEGER NOT NULL,
    failing_since INTEGER, disabled_at INTEGER
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY, endpoint TEXT NOT NULL, event TEXT NOT NULL, snapshot TEXT NOT NULL,
    appid INTEGER NOT NULL, body BLOB NOT NULL, created INTEGER NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending', claimed_until INTEGER NOT NULL DEFAULT 0,
    last_status INTEGER, last_error TEXT, done_at INTEGER,
    UNIQUE (endpoint, event, snapshot, appid)
);
CREATE INDEX IF NOT EXISTS webhook_due ON webhook_deliveries (state, next_at);
"""


@dataclass(frozen=True)
class Endpoint:
    """An endpoint: its id, owner, URL, ``whsec_`` secret, event types, appids (empty: the
    owner's watched games), creation time, first failure since the last success and the time
    it was disabled (Unix seconds; None: not so)."""

    id: str
    account: str
    url: str
    secret: str
    events: tuple[str, ...]
    appids: tuple[int, ...]
    created: int
    failing_since: int | None = None
    disabled_at: int | None = None


@dataclass(frozen=True)
class Delivery:
    """One event for one endpoint: its message id (``webhook-id``), endpoint, event type,
    snapshot, appid, JSON body, tries so far, state (``pending``, ``delivered``, ``failed``),
    the last answer's status or error and when it was created and finished."""

    id: str
    endpoint: str
    event: str
    snapshot: str
    appid: int
    body: bytes
    created: int
    tries: int
    state: str
    last_status: int | None
    last_error: str | None
    done_at: int | None


def new_secret() -> str:
    """Return a new signing secret: ``whsec_`` and 24 random bytes in base64 (Standard
    Webhooks' form)."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def new_endpoint(
    account: str, url: str, events: tuple[str, ...], appids: tuple[int, ...], now: int
) -> Endpoint:
    """Given an owner, URL, event types, appids and the time, return a new endpoint with a
    fresh id (``wh_`` and 16 hex digits) and secret."""
    return Endpoint("wh_" + secrets.token_hex(8), account, url, new_secret(), events, appids, now)


class WebhookStore(Protocol):
    """Endpoints and their deliveries (each method as :class:`SQLiteWebhookStore` documents
    it); every backend claims a delivery before it is sent."""

    def close(self) -> None: ...

    def add_endpoint(
        self, account: str, url: str, events: tuple[str, ...], appids: tuple[int, ...], now: int
    ) -> Endpoint: ...

    def endpoints(self, account: str | None = None) -> list[Endpoint]: ...

    def endpoint(self, endpoint_id: str) -> Endpoint | None: ...

    def remove_endpoint(self, endpoint_id: str) -> None: ...

    def failed(self, endpoint_id: str, now: int) -> Endpoint | None: ...

    def succeeded(self, endpoint_id: str) -> None: ...

    def enqueue(self, delivery: Delivery) -> bool: ...

    def due(self, now: int) -> list[Delivery]: ...

    def claim(self, delivery_id: str, now: int, seconds: int) -> bool: ...

    def finish(
        self, delivery_id: str, now: int, status: int | None, error: str | None
    ) -> Delivery: ...

    def deliveries_by_id(self, delivery_id: str) -> Delivery: ...

    def deliveries(self, endpoint_id: str, limit: int = KEEP_DELIVERIES) -> list[Delivery]: ...

    def prune(self, endpoint_id: str) -> None: ...


def next_try(tries: int, status: int | None, now: int) -> tuple[str, int]:
    """Given a delivery's tries so far (this one counted), the answer's status and the time,
    return its state (``delivered`` for a 2xx, ``failed`` after :data:`MAX_TRIES`, else
    ``pending``) and the time of its next try (after the next of :data:`RETRY_DELAYS`)."""
    ok = status is not None and 200 <= status < 300
    state = "delivered" if ok else ("failed" if tries >= MAX_TRIES else "pending")
    return state, now + RETRY_DELAYS[min(tries, MAX_TRIES - 1) - 1]


class SQLiteWebhookStore:
    """Endpoints and deliveries in a SQLite file (the key store's); ``create`` False refuses
    a missing file (StoreMissing)."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        if not create and not Path(path).exists():
            raise StoreMissing(f"no store at {path}")
        # The server uses it from its event loop thread, built on another.
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    # -- endpoints -------------------------------------------------------------------------

    def add_endpoint(
        self, account: str, url: str, events: tuple[str, ...], appids: tuple[int, ...], now: int
    ) -> Endpoint:
        """Given an owner, URL, event types, appids and the time, store and return a new
        endpoint with a fresh id and secret."""
        endpoint = new_endpoint(account, url, events, appids, now)
        self._db.execute(
            "INSERT INTO webhook_endpoints (id, account, url, secret, events, appids, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                endpoint.id,
                account,
                url,
                endpoint.secret,
                ",".join(events),
                ",".join(map(str, appids)),
                now,
            ),
        )
        return endpoint

    def endpoints(self, account: str | None = None) -> list[Endpoint]:
        """Return every endpoint (or one owner's), oldest first."""
        sql = "SELECT * FROM webhook_endpoints"
        rows = (
            self._db.execute(sql + " WHERE account = ? ORDER BY created, id", (account,))
            if account is not None
            else self._db.execute(sql + " ORDER BY created, id")
        )
        return [_endpoint(r) for r in rows]

    def endpoint(self, endpoint_id: str) -> Endpoint | None:
        """Return the endpoint of that id, or None."""
        row = self._db.execute(
            "SELECT * FROM webhook_endpoints WHERE id = ?", (endpoint_id,)
        ).fetchone()
        return _endpoint(row) if row else None

    def remove_endpoint(self, endpoint_id: str) -> None:
        """Remove an endpoint and its deliveries; WatchStoreError if there is none."""
        with self._db:
            gone = self._db.execute("DELETE FROM webhook_endpoints WHERE id = ?", (endpoint_id,))
            if gone.rowcount == 0:
                raise WatchStoreError(f"no webhook endpoint {endpoint_id}")
            self._db.execute("DELETE FROM webhook_deliveries WHERE endpoint = ?", (endpoint_id,))

    def failed(self, endpoint_id: str, now: int) -> Endpoint | None:
        """Record a failed try: the endpoint's first failure time is kept; past
        :data:`DISABLE_AFTER_SECONDS` of failures it is disabled. Return the endpoint when this
        call disabled it (its owner is then told), else None."""
        self._db.execute(
            "UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND failing_since IS NULL",
            (now, endpoint_id),
        )
        cut = self._db.execute(
            "UPDATE webhook_endpoints SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL "
            "AND failing_since <= ?",
            (now, endpoint_id, now - DISABLE_AFTER_SECONDS),
        )
        return self.endpoint(endpoint_id) if cut.rowcount else None

    def succeeded(self, endpoint_id: str) -> None:
        """Record a delivered try: the endpoint is no longer failing."""
        self._db.execute(
            "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?", (endpoint_id,)
        )

    # -- deliveries ------------------------------------------------------------------------

    def enqueue(self, delivery: Delivery) -> bool:
        """Add a delivery, due now; return False (nothing added) when the endpoint already has
        this event of this snapshot and game."""
        added = self._db.execute(
            "INSERT OR IGNORE INTO webhook_deliveries (id, endpoint, event, snapshot, appid, "
            "body, created, next_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                delivery.id,
                delivery.endpoint,
                delivery.event,
                delivery.snapshot,
                delivery.appid,
                delivery.body,
                delivery.created,
                delivery.created,
            ),
        )
        return added.rowcount == 1

    def due(self, now: int) -> list[Delivery]:
        """Return the pending deliveries due at ``now`` of endpoints not disabled, oldest
        first."""
        rows = self._db.execute(
            "SELECT d.* FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint "
            "WHERE d.state = 'pending' AND d.next_at <= ? AND d.claimed_until <= ? "
            "AND e.disabled_at IS NULL ORDER BY d.created, d.id",
            (now, now),
        )
        return [_delivery(r) for r in rows]

    def claim(self, delivery_id: str, now: int, seconds: int) -> bool:
        """Claim a pending delivery for ``seconds``; False if another run holds it or it is
        no longer pending."""
        claimed = self._db.execute(
            "UPDATE webhook_deliveries SET claimed_until = ? WHERE id = ? AND state = 'pending' "
            "AND claimed_until <= ?",
            (now + seconds, delivery_id, now),
        )
        return claimed.rowcount == 1

    def finish(self, delivery_id: str, now: int, status: int | None, error: str | None) -> Delivery:
        """Record a try's outcome: delivered (a 2xx ``status``), else failed for good after
        :data:`MAX_TRIES` tries or due again after the next of :data:`RETRY_DELAYS`; the claim
        is released. Return the delivery as recorded."""
        with self._db:
            (tries,) = self._db.execute(
                "SELECT tries FROM webhook_deliveries WHERE id = ?", (delivery_id,)
            ).fetchone()
            tries += 1
            state, next_at = next_try(tries, status, now)
            self._db.execute(
                "UPDATE webhook_deliveries SET tries = ?, state = ?, next_at = ?, "
                "claimed_until = 0, last_status = ?, last_error = ?, done_at = ? WHERE id = ?",
                (
                    tries,
                    state,
                    next_at,
                    status,
                    error,
                    now if state != "pending" else None,
                    delivery_id,
                ),
            )
        return self.deliveries_by_id(delivery_id)

    def deliveries_by_id(self, delivery_id: str) -> Delivery:
        """Return the delivery of that id (KeyError if none)."""
        row = self._db.execute(
            "SELECT * FROM webhook_deliveries WHERE id = ?", (delivery_id,)
        ).fetchone()
        if row is None:
            raise KeyError(delivery_id)
        return _delivery(row)

    def deliveries(self, endpoint_id: str, limit: int = KEEP_DELIVERIES) -> list[Delivery]:
        """Return an endpoint's last ``limit`` deliveries, newest first."""
        rows = self._db.execute(
            "SELECT * FROM webhook_deliveries WHERE endpoint = ? ORDER BY created DESC, id DESC "
            "LIMIT ?",
            (endpoint_id, limit),
        )
        return [_delivery(r) for r in rows]

    def prune(self, endpoint_id: str) -> None:
        """Drop an endpoint's finished deliveries older than its last :data:`KEEP_DELIVERIES`."""
        self._db.execute(
            "DELETE FROM webhook_deliveries WHERE endpoint = ? AND state != 'pending' AND id NOT "
            "IN (SELECT id FROM webhook_deliveries WHERE endpoint = ? ORDER BY created DESC, "
            "id DESC LIMIT ?)",
            (endpoint_id, endpoint_id, KEEP_DELIVERIES),
        )


def _endpoint(row: tuple[object, ...]) -> Endpoint:
    id_, account, url, secret, events, appids, created, failing, disabled = row
    return Endpoint(
        str(id_),
        str(account),
        str(url),
        str(secret),
        tuple(e for e in str(events).split(",") if e),
        tuple(int(a) for a in str(appids).split(",") if a),
        int(str(created)),
        None if failing is None else int(str(failing)),
        None if disabled is None else int(str(disabled)),
    )


def _delivery(row: tuple[object, ...]) -> Delivery:
    (
        id_,
        endpoint,
        event,
        snapshot,
        appid,
        body,
        created,
        tries,
        _,
        state,
        _,
        status,
        error,
        done,
    ) = row
    assert isinstance(body, bytes)
    return Delivery(
        str(id_),
        str(endpoint),
        str(event),
        str(snapshot),
        int(str(appid)),
        body,
        int(str(created)),
        int(str(tries)),
        str(state),
        None if status is None else int(str(status)),
        None if error is None else str(error),
        None if done is None else int(str(done)),
    )
