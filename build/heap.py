"""The build process's heap: the catalog and its scored games kept out of the cyclic collector.

Loading a catalog creates a few million long-lived Python objects (records, their provenance,
the scored games; from the raw dumps also every source's observations) and almost no cyclic
garbage: about 500 unreachable objects in a whole ingest of the real dumps. Yet CPython starts
a full (generation 2) collection each time the tracked objects grow by a quarter, and each
walks every tracked object: about 40 of them in an ingest of the dumps and 14 in a build from
the catalogue file, 4-9 s of CPU per build on the real catalogue, about a tenth of it.

:func:`long_lived` pauses the collector while that heap is built; once it is (the caller says
so), every object alive is frozen (``gc.freeze``: collections skip the permanent generation)
and the collector runs again, so rendering and publishing, which keep little alive, collect
only their own young objects. At the end everything is given back to the collector, so a
build run inside a longer process (a test) leaves its heap as it found it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def long_lived() -> Iterator[Callable[[], None]]:
    """Pause the cyclic collector for a block; yield ``loaded``, to call once the objects
    meant to live until the block ends exist (the catalog, its scored games): it freezes every
    object alive and restarts the collector. On leaving the block (normally or by an
    exception, which passes through) the frozen objects are given back to the collector and
    it is enabled again only if it was before."""
    enabled = gc.isenabled()

    def loaded() -> None:
        gc.freeze()
        if enabled:
            gc.enable()

    gc.disable()
    try:
        yield loaded
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()
