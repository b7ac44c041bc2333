"""A bounded least-recently-used cache owned by one object.

``functools.lru_cache`` on a method keeps every ``self`` it has seen in one cache shared by
the class, so an old snapshot's indexes would live as long as the process. An :class:`Lru`
is an attribute of the object it serves and dies with it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    """At most ``maxsize`` values by key; the least recently used is dropped first."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """Given a key and a function computing its value, return the cached value, computing
        and keeping it (dropping the least recently used beyond ``maxsize``) on a miss."""
        with self._lock:
            if key in self._data:
                self._data.move_to_end(key)
                return self._data[key]
        value = make()  # outside the lock: a race computes twice, never blocks the others
        with self._lock:
            self._data[key] = value
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)
        return value
