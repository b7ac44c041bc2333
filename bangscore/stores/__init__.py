"""The key store, the watch store and the webhook store (docs/API.md#authentication,
docs/API.md#watches, docs/API.md#webhooks): their interfaces, and the factories that choose
a backend from the store's URL.

The server, the account site and the operators' tools (``keys``, ``usage``, ``watch``,
``alerts``) all reach the stores through this package, never through the server.
Interfaces and records: :mod:`bangscore.stores.keystore`, :mod:`bangscore.stores.watchstore`;
one module per backend: ``sqlite_store``/``sqlite_watches`` (one SQLite file, the default) and
``redis_store``/``redis_watches`` (one Redis, for many replicas). The backends are imported
only when chosen, so a SQLite deployment never loads the Redis client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bangscore.stores.keystore import KeyStore
from bangscore.stores.watchstore import WatchStore

if TYPE_CHECKING:
    from bangscore.stores.webhooks import WebhookStore

__all__ = ["open_key_store", "open_watch_store", "open_webhook_store"]

_SCHEMES_HINT = "use sqlite:///PATH or redis://HOST:PORT/DB"
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def open_key_store(url: str, *, create: bool = True, lease: bool = True) -> KeyStore:
    """Given ``sqlite:///PATH`` or ``redis://HOST:PORT/DB``, return the store; ValueError else.

    Without ``create``, a SQLite file that does not exist yet raises StoreMissing instead of
    becoming a new, empty store (a mistyped path would otherwise answer 401 to every real
    key). A path that cannot hold a database raises StoreUnavailable. ``lease``: a SQLite
    store leases blocks of quota (right when this process is the only one counting in it).
    """
    if url.startswith("sqlite:///"):
        from bangscore.stores.sqlite_store import SQLiteKeyStore

        return SQLiteKeyStore(url.removeprefix("sqlite:///"), create=create, lease=lease)
    if url.startswith(_REDIS_SCHEMES):
        from bangscore.stores.redis_store import RedisKeyStore

        return RedisKeyStore.from_url(url)
    raise ValueError(f"unsupported store {url!r}: {_SCHEMES_HINT}")


def open_watch_store(url: str, *, create: bool = True) -> WatchStore:
    """Given the key store's URL (``sqlite:///PATH`` or ``redis://HOST:PORT/DB``), return the
    watch store in the same database; ValueError for another scheme. Without ``create`` a
    missing SQLite file raises StoreMissing."""
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
