"""Real servers for the hardening tests: ``bangscore serve`` in a subprocess on a free loopback
port, over a snapshot published into a state folder, with keys in that folder's SQLite store.

The pattern is uvicorn's own ``run_server``: start, wait until it answers, hand it to the test,
stop it afterwards. A :class:`ShimServer` can also be killed with SIGKILL and started again on
the same state folder, which is what the fault tests need.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import GameRecord
from bangscore.storage import LocalStorage
from tests.support import factories
from tests.support.factories import sqlite_stores
from tests.support.live import ShimServer

SITE = factories.SITE


def publish_into(
    state_dir: Path, records: Sequence[GameRecord], snapshot_id: str
) -> list[ScoredGame]:
    """Given a state folder and records, publish a snapshot into its ``snapshots`` folder."""
    _, games = factories.publish_catalog(
        records, LocalStorage(state_dir / "snapshots"), snapshot_id=snapshot_id
    )
    return games


def add_key(state_dir: Path, *, plan: str = "bulk", limit: int = 1_000_000) -> str:
    """Given a state folder, create an active key in its SQLite store; return the plaintext."""
    store = sqlite_stores(state_dir / "bangscore.sqlite3")
    try:
        return factories.add_key(store, plan=plan, limit=limit)
    finally:
        store.close()


ServerFactory = Callable[..., ShimServer]


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    """Sockets a test opens; all closed at teardown."""
    opened: list[socket.socket] = []
    yield opened
    for sock in opened:
        sock.close()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[ServerFactory]:
    """Return a factory: given a state folder (and workers, access_log, env), a started server.

    Every server started is stopped at teardown.
    """
    servers: list[ShimServer] = []

    def make(state_dir: Path, **options: object) -> ShimServer:
        options = {"site_url": SITE, **options}
        options["env"] = {"BANGSCORE_POINTER_POLL_SECONDS": "0.2", **options.get("env", {})}  # type: ignore[dict-item]
        server = ShimServer(state_dir, tmp_path / f"server-{len(servers)}.log", **options)  # type: ignore[arg-type]
        servers.append(server)
        return server.start()

    yield make
    for server in servers:
        server.stop()


@dataclass(frozen=True)
class SharedServer:
    """The session's server: 2 workers, access log on, the small catalog as snapshot ``s1``."""

    server: ShimServer
    games: list[ScoredGame]

    def key(self, *, plan: str = "bulk", limit: int = 1_000_000) -> str:
        """Given a plan and daily limit, create a key in the server's store; return it."""
        return add_key(self.server.state_dir, plan=plan, limit=limit)


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """A real server for the whole session (2 uvicorn workers, access log on)."""
    state = tmp_path_factory.mktemp("shared-state")
    games = publish_into(state, factories.small_catalog(), "s1")
    server = ShimServer(
        state,
        state / "server.log",
        workers=2,
        access_log=True,
        site_url=SITE,
        env={"BANGSCORE_POINTER_POLL_SECONDS": "0.2"},
    ).start()
    try:
        yield SharedServer(server, games)
    finally:
        server.stop()
