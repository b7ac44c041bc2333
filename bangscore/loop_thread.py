"""An asyncio event loop on a daemon thread, for a synchronous caller to run coroutines on.

httpx has no total timeout and a blocking read cannot be cancelled, so a synchronous client
that must end a whole exchange at a deadline (the ingest's live sources, the Python client)
runs its exchanges as coroutines on a loop of its own, each inside one timeout that cancels
it wherever it waits, as httpx's authors advise. The thread is a daemon, so a client never
closed cannot hold the interpreter open.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """An asyncio event loop running on a daemon thread named ``name``."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Given a coroutine, run it on the loop and return its result (or raise its error)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def close(self) -> None:
        """Given the running loop, end what still runs on it (tasks cancelled and awaited,
        async generators closed: none is left for the garbage collector to find pending on a
        closed loop, "Task was destroyed but it is pending"), stop it, wait for its thread
        and close it."""
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._drain(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()

    async def _drain(self) -> None:
        current = asyncio.current_task()
        pending = [t for t in asyncio.all_tasks() if t is not current]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await self.loop.shutdown_asyncgens()
