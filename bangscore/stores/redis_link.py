"""One Redis shared by the Redis stores of a process (keys, accounts and the counter:
:func:`bangscore.stores.open_stores`): its client and the breaker every round trip goes
through.

Redis down: every call raises StoreUnavailable at once for ``retry_after`` seconds after a
failure (a breaker, so that a dead Redis costs no connect attempt per request) and the caller
fails open. Key prefix of every store: ``bs:``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from bangscore.errors import StoreUnavailable

T = TypeVar("T")
PREFIX = "bs:"
# The URL's query parameters that are ours (the counter's, and the link's timeouts), not the
# client's: redis://HOST:PORT/DB?replicas=4&timeout=0.5.
OUR_PARAMETERS = frozenset(
    {"replicas", "max_block", "lease_idle", "flush_every", "retry_after", "timeout"}
)


def text_fields(fields: Any) -> dict[str, str]:
    """Given a hash as redis-py returns it, return it as str to str (the client decodes
    responses: this only narrows redis-py's bytes | str types)."""
    return {str(k): str(v) for k, v in dict(fields).items()}


class RedisLink:
    """A Redis ``client`` behind a breaker: ``retry_after`` seconds (on ``clock``) of failing
    fast after a fault. Counts its round trips (``round_trips``)."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        retry_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.retry_after = retry_after
        self.clock = clock
        self.round_trips = 0
        self._down_until = 0.0

    def call(self, fn: Callable[[], T]) -> T:
        """Given one round trip to Redis, run it and return its answer; StoreUnavailable on a
        fault and, without trying, for ``retry_after`` seconds after it."""
        if self.clock() < self._down_until:
            raise StoreUnavailable("redis: unavailable (retrying shortly)")
        self.round_trips += 1
        try:
            return fn()
        except redis.RedisError as exc:
            self._down_until = self.clock() + self.retry_after
            raise StoreUnavailable(f"redis: {exc}") from exc

    def close(self) -> None:
        """Release the client's connections (it reconnects if used again)."""
        self.client.close()


def redis_client(
    url: str, *, timeout: float, fail_fast: bool = True
) -> tuple[redis.Redis, dict[str, str]]:
    """Given ``redis://HOST:PORT/DB`` (or ``rediss://``, ``unix://``) with optional query
    parameters, return a client decoding responses to str and our parameters by name
    (:data:`OUR_PARAMETERS`; the rest go to the client). ``timeout``: the seconds per Redis
    call when the URL names none (its ``timeout`` parameter wins). ``fail_fast``: no retry of a
    failed call (the caller fails open instead of waiting); without it, redis-py's own retries.
    The one place every Redis store opens its client. Raises ValueError for a malformed URL or
    number."""
    parts = urlsplit(url)
    ours: dict[str, str] = {}
    theirs: list[tuple[str, str]] = []
    for name, value in parse_qsl(parts.query):
        if name in OUR_PARAMETERS:
            ours[name] = value
        else:
            theirs.append((name, value))
    seconds = float(ours.get("timeout", str(timeout)))
    fast: dict[str, Any] = {"retry": Retry(NoBackoff(), 0), "health_check_interval": 0}
    client = redis.Redis.from_url(
        urlunsplit(parts._replace(query=urlencode(theirs))),
        decode_responses=True,
        socket_timeout=seconds,
        socket_connect_timeout=seconds,
        **(fast if fail_fast else {}),
    )
    return client, ours


def open_link(url: str) -> tuple[RedisLink, dict[str, str]]:
    """Given ``redis://HOST:PORT/DB`` (or ``rediss://``, ``unix://``) with optional query
    parameters, return the link and our parameters by name (:data:`OUR_PARAMETERS`; the rest
    go to the client: :func:`redis_client`). ``timeout``: seconds per Redis call (default
    0.25); ``retry_after``: the breaker's seconds (default 1). Raises ValueError for a
    malformed URL or number."""
    client, ours = redis_client(url, timeout=0.25)
    return RedisLink(client, retry_after=float(ours.get("retry_after", "1"))), ours
