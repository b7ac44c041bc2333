"""Real servers for the hardening tests: ``bangscore serve`` in a subprocess on a free loopback
port, over a snapshot published into a state folder, with keys in that folder's SQLite store.

The pattern is uvicorn's own ``run_server``: start, wait until it answers, hand it to the test,
stop it afterwards. A :class:`LiveServer` can also be killed with SIGKILL and started again on
the same state folder, which is what the fault tests need.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from build.storage import LocalStorage
from build.wire import ScoredGame
from ingest.records import GameRecord
from shim.sqlite_store import SQLiteStore
from tests import factories

REPO = Path(__file__).resolve().parents[2]
SITE = factories.SITE
READY_SECONDS = 30.0


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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
    store = SQLiteStore(state_dir / "bangscore.sqlite3")
    try:
        return factories.add_key(store, plan=plan, limit=limit)
    finally:
        store.close()


@dataclass
class LiveServer:
    """One ``bangscore serve`` process (and its workers) on a loopback port.

    ``log_path`` collects its stdout and stderr (uvicorn's access and error logs).
    """

    state_dir: Path
    log_path: Path
    workers: int = 1
    access_log: bool = False
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Return the server's base URL, ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        """Start the server on a fresh free port and wait until it answers; return self."""
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
        env.update(
            {
                # Every test client is 127.0.0.1: give the anonymous allowance room for all.
                "BANGSCORE_ANONYMOUS_DAILY_LIMIT": "10000000",
                "BANGSCORE_POINTER_POLL_SECONDS": "0.2",
                **self.env,
            }
        )
        args = [
            sys.executable,
            "-m",
            "shim.cli",
            "--state-dir",
            str(self.state_dir),
            "serve",
            "--port",
            str(self.port),
            "--workers",
            str(self.workers),
            "--site-url",
            SITE,
        ]
        if not self.access_log:
            args.append("--quiet")
        with open(self.log_path, "ab") as log:
            # A session of its own, so that stop() can end the supervisor and its workers as one.
            self.process = subprocess.Popen(
                args,
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log()}")
            with contextlib.suppress(httpx.HTTPError):
                # /metrics is neither counted nor keyed: polling it changes no count.
                if httpx.get(f"{self.url}/metrics", timeout=1.0).status_code == 200:
                    return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server not ready after {READY_SECONDS} s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL the server's whole process group, as a crash would, and reap it."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        """Stop the server gracefully (SIGTERM), killing it if it lingers."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill()
        self.process = None

    def log(self) -> str:
        """Return everything the server has logged so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


ServerFactory = Callable[..., LiveServer]


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[ServerFactory]:
    """Return a factory: given a state folder (and workers, access_log, env), a started server.

    Every server started is stopped at teardown.
    """
    servers: list[LiveServer] = []

    def make(state_dir: Path, **options: object) -> LiveServer:
        server = LiveServer(state_dir, tmp_path / f"server-{len(servers)}.log", **options)  # type: ignore[arg-type]
        servers.append(server)
        return server.start()

    yield make
    for server in servers:
        server.stop()


@dataclass(frozen=True)
class SharedServer:
    """The session's server: 2 workers, access log on, the small catalog as snapshot ``s1``."""

    server: LiveServer
    games: list[ScoredGame]

    def key(self, *, plan: str = "bulk", limit: int = 1_000_000) -> str:
        """Given a plan and daily limit, create a key in the server's store; return it."""
        return add_key(self.server.state_dir, plan=plan, limit=limit)


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    """A real server for the whole session (2 uvicorn workers, access log on)."""
    state = tmp_path_factory.mktemp("shared-state")
    games = publish_into(state, factories.small_catalog(), "s1")
    server = LiveServer(state, state / "server.log", workers=2, access_log=True).start()
    try:
        yield SharedServer(server, games)
    finally:
        server.stop()
