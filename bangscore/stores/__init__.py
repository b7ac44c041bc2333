"""The stores by job (docs/API.md#authentication, docs/API.md#watches, docs/API.md#webhooks):
:func:`open_stores` gives the keys, the counter (where the leases of quota live), the accounts
and the watches of one database, on the backend its URL names; :func:`open_webhook_store` the
webhooks of the same database.

The server, the account site and the operators' tools (``keys``, ``usage``, ``watch``,
``alerts``) all reach the stores through this package, never through the server.
Interfaces and records: :mod:`bangscore.stores.keystore` (keys, counter, accounts),
:mod:`bangscore.stores.watchstore`. SQLite (one file, the default): ``sqlite_store`` (the file,
keys, accounts), ``sqlite_counter``, ``sqlite_watches``; Redis (one Redis, for many replicas):
``redis_link`` (client and breaker), ``redis_keys``, ``redis_accounts``, ``redis_counter``,
``redis_watches``. The backends are imported only when chosen, so a SQLite deployment never
loads the Redis client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bangscore.stores.keystore import AccountStore, Counter, KeyStore
from bangscore.stores.watchstore import WatchStore

if TYPE_CHECKING:
    from bangscore.stores.webhooks import WebhookStore

__all__ = ["Stores", "open_stores", "open_watch_store", "open_webhook_store"]

_SCHEMES_HINT = "use sqlite:///PATH or redis://HOST:PORT/DB"
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


@dataclass(frozen=True, slots=True)
class Stores:
    """The four stores of one database, by job: ``keys`` (records, revocation, listings),
    ``counter`` (daily counts and leases of quota), ``accounts`` (accounts, sessions, sign-in
    failures) and ``watches`` (watches, addresses, the mail queue)."""

    keys: KeyStore
    counter: Counter
    accounts: AccountStore
    watches: WatchStore

    def close(self) -> None:
        """Flush and give back what the counter holds, then release every connection (the
        stores may be used again: they reconnect)."""
        self.counter.close()
        self.watches.close()


def open_stores(url: str, *, create: bool = True, lease: bool = True) -> Stores:
    """Given ``sqlite:///PATH`` or ``redis://HOST:PORT/DB``, return its stores; ValueError for
    another scheme or a bad parameter.

    Without ``create``, a SQLite file that does not exist yet raises StoreMissing instead of
    becoming a new, empty store (a mistyped path would otherwise answer 401 to every real
    key). A path that cannot hold a database raises StoreUnavailable. ``lease``: a SQLite
    counter leases blocks of quota (right when this process is the only one counting in it).
    Redis's query parameters: :func:`bangscore.stores.redis_link.open_link`.
    """
    if url.startswith("sqlite:///"):
        from bangscore.stores.sqlite_counter import SQLiteCounter
        from bangscore.stores.sqlite_store import SQLiteAccounts, SQLiteFile, SQLiteKeys

        db = SQLiteFile(url.removeprefix("sqlite:///"), create=create)
        counter = SQLiteCounter(db, lease=lease)
        return Stores(SQLiteKeys(db, counter), counter, SQLiteAccounts(db), open_watch_store(url))
    if url.startswith(_REDIS_SCHEMES):
        from bangscore.stores.redis_accounts import RedisAccounts
        from bangscore.stores.redis_counter import RedisCounter
        from bangscore.stores.redis_keys import RedisKeys
        from bangscore.stores.redis_link import open_link

        link, params = open_link(url)
        redis_counter = RedisCounter.from_link(link, params)
        return Stores(
            RedisKeys(link, redis_counter),
            redis_counter,
            RedisAccounts(link),
            open_watch_store(url),
        )
    raise ValueError(f"unsupported store {url!r}: {_SCHEMES_HINT}")


def open_watch_store(url: str, *, create: bool = True) -> WatchStore:
    """Given the stores' URL (``sqlite:///PATH`` or ``redis://HOST:PORT/DB``), return the
    watch store alone (the mail and ``watch`` commands need no other); ValueError for another
    scheme. Without ``create`` a missing SQLite file raises StoreMissing."""
    if url.startswith("sqlite:///"):
        from bangscore.stores.sqlite_watches import SQLiteWatchStore

        return SQLiteWatchStore(url.removeprefix("sqlite:///"), create=create)
    if url.startswith(_REDIS_SCHEMES):
        from bangscore.stores.redis_watches import RedisWatchStore

        return RedisWatchStore.from_url(url)
    raise ValueError(f"unsupported store {url!r}: {_SCHEMES_HINT}")


def open_webhook_store(url: str, *, create: bool = True) -> WebhookStore:
    """Given the key store's URL (``sqlite:///PATH`` or ``redis://HOST:PORT/DB``), return the
    webhook store in the same database; ValueError for another scheme. Without ``create`` a
    missing SQLite file raises StoreMissing."""
    if url.startswith("sqlite:///"):
        from bangscore.stores.webhooks import SQLiteWebhookStore

        return SQLiteWebhookStore(url.removeprefix("sqlite:///"), create=create)
    if url.startswith(_REDIS_SCHEMES):
        from bangscore.stores.redis_webhooks import RedisWebhookStore

        return RedisWebhookStore.from_url(url)
    raise ValueError(f"unsupported store {url!r}: {_SCHEMES_HINT}")
