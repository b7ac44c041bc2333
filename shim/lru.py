"""The one cache type of the server: bounded, least recently used dropped first, thread-safe.

Every cache the shim keeps (stored bodies, the memos of answers and rendered pages, key
lookups, counts) is an :class:`Lru` owned by the object it serves, so it
dies with it: ``functools.lru_cache`` on a method would keep every ``self`` it has seen in one
cache shared by the class, and an old snapshot's indexes would live as long as the process.
The bookkeeping is cachetools' ``LRUCache`` (with ``getsizeof`` for a byte budget); this
module adds the one lock every method takes, since bodies are fetched on worker threads, and
the shim's two-call interface (``find``/``put``, ``get`` with a maker).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from cachetools import LRUCache

V = TypeVar("V")
# What a remembered answer costs beside its bodies: the answer object, its key (a parsed
# query), its ETag strings and the cache's own links: 1,400 bytes measured with tracemalloc
# for a list page's answer keyed by its parsed query, rounded up.
ENTRY_BYTES = 1536
MIB = 1 << 20


@dataclass(frozen=True, slots=True)
class AnswerBudgets:
    """The byte budgets of a snapshot's two memos (:class:`bangscore.shim.memo.Memo`), shared
    out of one total (``BANGSCORE_ANSWER_CACHE_BYTES``): the API's answers and the query
    strings that spell them (3/4: about 21,000 list or search pages of the real catalogue,
    8.9 KB each with their gzip body, so the 12,000 distinct composed pages and searches of
    ``make bench``'s two rotations stay remembered), and the website's rendered pages (1/4).
    Both live with their snapshot: while a switch finishes the old snapshot's are held too,
    until its last request ends. (Until issue 59 five caches shared the total; the composed
    list pages and the search pages, kept apart under both, were a second copy of what the
    memos keep.)"""

    total: int = 256 * MIB

    @property
    def answers(self) -> int:
        """Return the bytes of API answers and their spellings kept per snapshot."""
        return self.total * 3 // 4

    @property
    def pages(self) -> int:
        """Return the bytes of rendered website pages and their spellings kept per snapshot."""
        return self.total // 4


def _one(_value: object) -> int:
    return 1


class Lru(Generic[V]):
    """At most ``maxsize`` worth of values by key, the least recently used dropped first.

    Without ``weigh`` each value weighs 1 (``maxsize`` counts entries); with it, ``maxsize`` is
    a budget of the weights (bytes of bodies, say) and a value heavier than the whole budget is
    not kept.
    """

    def __init__(self, maxsize: int, weigh: Callable[[V], int] | None = None) -> None:
        self.maxsize = maxsize
        self._weigh: Callable[[V], int] = weigh or _one
        self._data: LRUCache[Hashable, V] = LRUCache(maxsize, getsizeof=self._weigh)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    @property
    def size(self) -> int:
        """Return the total weight held (the entry count without ``weigh``)."""
        return int(self._data.currsize)

    def find(self, key: Hashable) -> V | None:
        """Given a key, return its value (now the most recently used) or None."""
        with self._lock:
            return self._data.get(key)

    def put(self, key: Hashable, value: V) -> None:
        """Given a key and its value, keep it, dropping the least recently used beyond the
        budget."""
        if self._weigh(value) > self.maxsize:
            return  # cachetools would raise ValueError: too large to keep at all
        with self._lock:
            self._data[key] = value

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """Given a key and a function computing its value, return the cached value, computing
        and keeping it on a miss (outside the lock: a race computes twice, never blocks)."""
        value = self.find(key)
        if value is None:
            value = make()
            self.put(key, value)
        return value

    def clear(self) -> None:
        """Drop every value."""
        with self._lock:
            self._data.clear()
