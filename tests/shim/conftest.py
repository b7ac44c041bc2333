"""Real servers for the store, account and browser tests: ``bangscore serve`` processes
(uvicorn) on free ports over a published small catalog, with keys in SQLite or in the Redis of
tests/support/redis_server.py (its fixtures are registered by tests/conftest.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bangscore.storage import LocalStorage
from bangscore.stores.keystore import KeyStore, issue_key
from tests.support import factories
from tests.support.live import ShimServer


def create_key(store: KeyStore, *, limit: int, account: str = "a@x.io", plan: str = "bulk") -> str:
    """Given a store, issue an active key with a daily limit; return the plaintext key."""
    key, _ = issue_key(store, account, plan, limit, int(time.time()))  # type: ignore[arg-type]
    return key


@pytest.fixture(scope="session")
def snapshot_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small 45-game catalog published once into a folder (snapshot ``s1``)."""
    folder = tmp_path_factory.mktemp("snapshots")
    factories.publish_catalog(factories.small_catalog(), LocalStorage(folder), snapshot_id="s1")
    return folder


ShimFactory = Callable[..., ShimServer]


@pytest.fixture
def shim_factory(tmp_path: Path, snapshot_folder: Path) -> Iterator[ShimFactory]:
    """Return a factory: given a store URL (and env), a started shim over the small catalog.

    Processes share ``tmp_path/state`` (so one session secret) and are stopped at teardown.
    """
    shims: list[ShimServer] = []

    def make(store_url: str, **env: str) -> ShimServer:
        log = tmp_path / f"shim-{len(shims)}.log"
        shim = ShimServer(
            tmp_path / "state", log, store_url=store_url, snapshot=snapshot_folder, env=env
        )
        shims.append(shim)
        return shim.start()

    yield make
    for shim in shims:
        shim.stop()
