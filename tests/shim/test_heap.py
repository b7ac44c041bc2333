"""The serving process's heap: a loaded snapshot is frozen out of the cyclic collector while
the app runs, and given back at shutdown."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bangscore.settings import Settings
from bangscore.shim import heap, lifecycle
from bangscore.shim.app import create_app
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource
from bangscore.storage import MemoryStorage
from tests.support import factories
from tests.support.factories import sqlite_stores

# A process that read the real catalogue froze it (tests/support/real_catalogue.py); these
# tests count the frozen.
pytestmark = pytest.mark.usefixtures("thawed")


def _in_a_generation(obj: object) -> bool:
    """Return True if the collector's generations hold ``obj`` (``gc.get_objects`` leaves
    out the permanent generation that ``gc.freeze`` fills)."""
    return any(o is obj for o in gc.get_objects())


def test_settle_collects_then_freezes_what_is_alive() -> None:
    class Cycle:
        def __init__(self) -> None:
            self.me = self

    kept = Cycle()
    garbage = weakref.ref(Cycle())  # a cycle: only the collector frees it
    assert garbage() is not None
    try:
        frozen = heap.settle()
        assert garbage() is None
        assert gc.is_tracked(kept) and not _in_a_generation(kept)  # in the permanent one
        # Other threads of this process (a test's idle worker threads ending) may free frozen
        # objects by reference counting meanwhile: the count only falls.
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        heap.release()
    assert gc.get_freeze_count() == 0
    assert _in_a_generation(kept)


def _app(tmp_path: Path, *, freeze_heap: bool) -> TestClient:
    storage = MemoryStorage()
    factories.publish_catalog(factories.small_catalog(), storage)
    stores = sqlite_stores(tmp_path / "keys.sqlite3")
    quota = Quota(
        stores.counter,
        stores.keys,
        anonymous_limit=100,
        page_limit=100,
        key_cache_seconds=0,
    )
    source = SnapshotSource(storage, cache_bytes=1 << 20, poll_seconds=3600)
    app = create_app(
        Settings(site_url=factories.SITE), source, quota, follow=False, freeze_heap=freeze_heap
    )
    return TestClient(app, base_url=factories.SITE)


def _frozen_within(seconds: float) -> bool:
    """Return True once something is frozen (the app's start-up warming runs as a task)."""
    deadline = time.monotonic() + seconds
    while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
        threading.Event().wait(0.01)
    return gc.get_freeze_count() > 0


def test_a_serving_app_freezes_its_snapshot_until_shutdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Warmed (and so settled) at once, not 2 s after start-up: the wait is not what is tested.
    monkeypatch.setattr(lifecycle, "WARM_AFTER_SECONDS", 0.0)
    with _app(tmp_path, freeze_heap=True) as client:
        assert client.get("/api/v1").status_code == 200
        assert _frozen_within(10)
    assert gc.get_freeze_count() == 0


def test_a_tests_app_leaves_the_collector_alone(tmp_path: Path) -> None:
    with _app(tmp_path, freeze_heap=False) as client:
        assert client.get("/search?q=quest").status_code == 200  # waits for the name index
        assert gc.get_freeze_count() == 0
