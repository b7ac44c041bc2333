"""The serving process's heap: a loaded snapshot's objects kept out of the cyclic collector.

A loaded snapshot holds millions of long-lived Python objects (the search index, the
known-but-unrated apps and their name index). CPython's full (generation 2) collection walks
every tracked object, so once a snapshot is in memory each full collection, triggered every
so many allocations by ordinary request work, stalls the event loop for 50-150 ms: measured
with ``make bench`` on the real catalogue, it put the p99 of a precomputed list page at about
200 ms instead of about 10 ms.

:func:`settle` runs after a snapshot and its indexes are loaded: one full collection frees what
the previous snapshot left, then ``gc.freeze`` moves every object alive to the permanent
generation, which collections skip. Objects of the old snapshot still referenced by requests
in flight are frozen too; acyclic ones are still freed by reference counting when those
requests end, and the next :func:`settle` (the next switch) unfreezes and collects the rest.
The cost is one full collection per snapshot switch, off the request path only in the sense
that switches are rare (nightly).
"""

from __future__ import annotations

import ctypes
import gc


def _malloc_trim() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``; nothing where
    the C library has none). Building a snapshot's indexes allocates and frees tens of MB of
    short-lived objects; without this the process keeps those pages resident."""
    # The process's own symbols (CDLL(None)) hold the C library's: no search for it on disk
    # (find_library runs ldconfig in a subprocess).
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is not None:
        trim(0)


def settle() -> int:
    """Collect garbage, then freeze every object alive and hand the free heap pages back to
    the system; return how many objects are frozen."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _malloc_trim()
    return gc.get_freeze_count()


def release() -> None:
    """Give every frozen object back to the collector (at shutdown)."""
    gc.unfreeze()
