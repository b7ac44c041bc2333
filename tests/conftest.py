"""Shared fixtures: factories for records, published snapshots and app clients."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from starlette.testclient import TestClient

from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import Catalog
from bangscore.storage import ObjectStorage
from bangscore.stores.sqlite_store import SQLiteKeyStore
from tests import factories
from tests.redis_server import (  # noqa: F401 -- fixtures
    redis_factory,
    redis_server,
    redis_url,
    store_factory,
)
from tests.servers import aws_env, bucket, seaweed, seaweed_factory  # noqa: F401 -- fixtures
from tests.smtp_server import smtp_server  # noqa: F401 -- fixture

if TYPE_CHECKING:
    from bangscore.ingest.catalog import IngestReport

# Markers implied by a fixture, so that `make check` can leave these tests out by marker and a
# new test that uses one of these fixtures is marked without having to remember it. Tests that
# start a replay server themselves (``start_replay``) carry ``@pytest.mark.server`` in place.
MARKS_BY_FIXTURE = {
    # the real catalog: its dumps joined, scored and published (seconds each)
    "real_snapshot": "slow",
    "bundled": "slow",
    # real servers: shim processes, redis-server, SeaweedFS, replay HTTP servers
    "shared_server": "server",
    "server_factory": "server",
    "shim_factory": "server",
    "redis_server": "server",
    "redis_url": "server",
    "redis_factory": "server",
    "seaweed": "server",
    "seaweed_factory": "server",
    "bucket": "server",
    "aws_env": "server",
    "replay": "server",
    "served": "server",
    "storefront_server": "server",
    "smtp_server": "server",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Add the markers that :data:`MARKS_BY_FIXTURE` implies to each collected test."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        for fixture, marker in MARKS_BY_FIXTURE.items():
            if fixture in used:
                item.add_marker(marker)


@pytest.fixture(scope="session")
def small_snapshot() -> tuple[ObjectStorage, list[ScoredGame]]:
    """The small 45-game catalog, published once per session into memory."""
    return factories.publish_catalog(factories.small_catalog())


@pytest.fixture
def client_factory(
    tmp_path: Path,
) -> Iterator[Callable[..., tuple[TestClient, SQLiteKeyStore]]]:
    """Return a factory: given a store (and options), a started TestClient and its key store."""
    clients: list[TestClient] = []

    def make(storage: ObjectStorage, **options: object) -> tuple[TestClient, SQLiteKeyStore]:
        app, store, _ = factories.make_app(storage, tmp_path, **options)  # type: ignore[arg-type]
        client = TestClient(app, base_url=factories.SITE)
        client.__enter__()
        clients.append(client)
        return client, store

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture(scope="session")
def bundled() -> tuple[Catalog, IngestReport]:
    """The catalog of the real bundled dumps and its report, loaded once per test session."""
    from bangscore.ingest.catalog import load_bundled_catalog

    return load_bundled_catalog(Path(__file__).parent.parent / "data")


@pytest.fixture(scope="session")
def real_snapshot(
    bundled: tuple[Catalog, IngestReport],
) -> tuple[ObjectStorage, list[ScoredGame]]:
    """The real catalog from the bundled dumps, scored and published once per session."""
    catalog, _ = bundled
    return factories.publish_catalog(catalog.games, not_rated=catalog.not_rated)
