"""Pipelining the Redis store's counts: every request counted on one event loop while a round
trip is in flight joins the next one, so the loop never waits on Redis and a busy replica sends
one pipeline of scripts per round trip instead of one round trip per request.

Each request still runs its own script (exact: Redis runs each alone); only the transport is
shared. A fault fails every request of its pipeline (the caller fails open on each).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import redis
import redis.asyncio
from redis.exceptions import NoScriptError

from bangscore.errors import StoreUnavailable

Call = tuple[list[str], list[Any], "asyncio.Future[Any]"]


class Pipeliner:
    """Sends scripts of one body (``script``) on an asyncio client, batched per round trip.
    ``down`` is told of each fault (the store's breaker) and ``closed`` says whether the
    breaker is open (then a call raises StoreUnavailable at once)."""

    def __init__(
        self,
        client: redis.asyncio.Redis,
        script: str,
        sha: str,
        down: Callable[[], None],
        closed: Callable[[], bool],
    ) -> None:
        self.client = client
        self.script = script
        self.sha = sha
        self.down = down
        self.closed = closed
        self._queue: list[Call] = []
        self._sending = False
        self.round_trips = 0

    async def call(self, keys: list[str], args: list[Any]) -> Any:
        """Given a script's keys and arguments, run it in the next pipeline; return its
        answer. Raises StoreUnavailable if Redis is down (or was, within the breaker's time)."""
        if self.closed():
            raise StoreUnavailable("redis: unavailable (retrying shortly)")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((keys, args, future))
        if not self._sending:
            self._sending = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                await self._send(batch)
        finally:
            self._sending = False

    async def _send(self, batch: list[Call]) -> None:
        self.round_trips += 1
        try:
            answers = await self._execute(batch)
        except redis.RedisError as exc:
            self.down()
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(StoreUnavailable(f"redis: {exc}"))
            return
        for (_, _, future), answer in zip(batch, answers, strict=True):
            if not future.done():
                future.set_result(answer)

    async def _execute(self, batch: list[Call]) -> list[Any]:
        for attempt in range(2):
            pipe = self.client.pipeline(transaction=False)
            for keys, args, _ in batch:
                pipe.evalsha(self.sha, len(keys), *keys, *args)
            try:
                return list(await pipe.execute())
            except NoScriptError:
                if attempt:
                    raise
                await self.client.script_load(self.script)  # a restarted Redis forgot it
        raise AssertionError("unreachable")
