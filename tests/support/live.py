"""Real ``bangscore serve`` processes for tests, in uvicorn's ``run_server`` manner: start on a
free loopback port, wait until it answers, hand it to the test, stop it afterwards.

One class serves every suite that needs a server in its own process: the store and browser
tests (a given store URL and snapshot folder) and the hardening tests (several workers, the
access log on, SIGKILL and restart on the same state folder).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bangscore.stores import open_stores
from bangscore.stores.secret import load_session_secret

REPO = Path(__file__).resolve().parents[2]
READY_SECONDS = 30.0
# One client for the tests' one-off requests to loopback servers and for their polls (a server
# starting, a state awaited). httpx.get() and its kin build a client per call, and with it a TLS
# context that loads the CA bundle: 19 ms of CPU a call (3 Dec 2026), polled every 50 ms while
# each of some hundreds of servers starts; py-spy over a whole `make test` put about a tenth of
# the suite's CPU there. No keep-alive: each request opens its own connection, as httpx.get()
# did, so none outlives the server it went to.
LOOPBACK = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``check`` every 50 ms until it is true; raise AssertionError after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if check():
                return
        time.sleep(0.05)
    raise AssertionError(f"not {what} within {seconds} s")


def parse_metrics(text: str) -> dict[str, float]:
    """Given Prometheus text, return each series (name and labels, as written) -> value."""
    return {
        series: float(value)
        for series, _, value in (
            line.rpartition(" ") for line in text.splitlines() if line and not line.startswith("#")
        )
    }


# What coverage's `patch = ["subprocess"]` passes to a child so that it measures itself.
_COVERAGE_VARIABLES = frozenset({"COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START"})


@dataclass
class ShimServer:
    """One ``bangscore serve`` process (and its workers) on a free loopback port.

    ``store_url`` and ``snapshot`` default to the state folder's SQLite store and snapshots;
    ``site_url`` defaults to the server's own URL. ``log_path`` collects stdout and stderr.
    Every test client is 127.0.0.1, so the anonymous and page allowances are raised for all.
    ``traced=False`` starts it outside coverage's subprocess measurement: for servers over the
    real catalogue, whose start (reading 134,000 manifest entries) takes twice as long traced,
    and whose code the servers over small catalogues measure already. ``stdout_pipe=True``
    gives its standard output (the access log) to a pipe, ``process.stdout``, that the test
    reads, slowly or never (standard error still goes to ``log_path``); ``stderr_pipe=True``
    gives standard error to a pipe, ``process.stderr``, likewise.
    """

    state_dir: Path
    log_path: Path
    store_url: str | None = None
    snapshot: Path | None = None
    workers: int = 1
    access_log: bool = False
    site_url: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    traced: bool = True
    stdout_pipe: bool = False
    stderr_pipe: bool = False
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Return the server's base URL, ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ShimServer:
        """Start the server on a fresh free port and wait until ``/metrics`` answers."""
        self.port = free_port()
        store_url = self.store_url or f"sqlite:///{self.state_dir / 'bangscore.sqlite3'}"
        if store_url.startswith("sqlite:///"):
            # As an operator would (`bangscore keys create`): serve creates neither a store
            # nor a session secret, so a mistyped or vanished path is not taken for empty state.
            open_stores(store_url).close()
        load_session_secret(None, self.state_dir)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("BANGSCORE_") and (self.traced or k not in _COVERAGE_VARIABLES)
        }
        env.update(
            {
                "BANGSCORE_ANONYMOUS_DAILY_LIMIT": "10000000",
                "BANGSCORE_PAGE_DAILY_LIMIT": "10000000",
                **self.env,
            }
        )
        args = [sys.executable, "-m", "bangscore", "--state-dir", str(self.state_dir)]
        if self.store_url:
            args += ["--store", self.store_url]
        args += ["serve", "--port", str(self.port), "--workers", str(self.workers)]
        args += ["--site-url", self.site_url or self.url]
        if self.snapshot is not None:
            args += ["--snapshot", str(self.snapshot)]
        if not self.access_log:
            args.append("--quiet")
        with open(self.log_path, "ab") as log:
            # A session of its own, so that stop() and kill() reach the workers too.
            self.process = subprocess.Popen(
                args,
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE if self.stdout_pipe else log,
                stderr=(
                    subprocess.PIPE
                    if self.stderr_pipe
                    else log
                    if self.stdout_pipe
                    else subprocess.STDOUT
                ),
                start_new_session=True,
            )
        try:
            wait_for(self._ready, READY_SECONDS, "serving")
        except AssertionError:
            self.stop()
            raise AssertionError(f"server did not start:\n{self.log()}") from None
        return self

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"server exited early:\n{self.log()}")
        # /metrics is neither counted nor keyed: polling it changes no count.
        return LOOPBACK.get(f"{self.url}/metrics", timeout=1.0).status_code == 200

    def metrics(self) -> dict[str, float]:
        """Return the process's ``/metrics`` as a name -> value mapping."""
        text = LOOPBACK.get(f"{self.url}/metrics", timeout=5.0).text
        return parse_metrics(text)

    def worker_clients(self, headers: dict[str, str] | None = None) -> list[httpx.Client]:
        """Return one keep-alive client per worker process, each pinned to a different worker.

        A fresh connection is accepted by whichever worker wins it, so connections are opened
        until each worker owns one (found through ``/proc``: the worker holding the accepted
        socket). The caller closes the clients. Linux only, as the rest of these servers are.
        """
        assert self.process is not None
        pinned: dict[int, httpx.Client] = {}
        for _ in range(50 * self.workers):
            client = httpx.Client(base_url=self.url, headers=headers, timeout=5.0)
            answer = client.get("/metrics")  # neither counted nor keyed
            local_port = answer.extensions["network_stream"].get_extra_info("client_addr")[1]
            owner = _owner_of_connection(self.process.pid, self.port, local_port)
            if owner is None or owner in pinned:
                client.close()
            else:
                pinned[owner] = client
            if len(pinned) == self.workers:
                return list(pinned.values())
        for client in pinned.values():
            client.close()
        raise AssertionError(f"no connection reached each of the {self.workers} workers")

    def _signal(self, signum: int) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signum)

    def kill(self) -> None:
        """SIGKILL the server's whole process group, as a crash would, and reap it."""
        if self.process is None:
            return
        self._signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        self.process = None

    def stop(self) -> None:
        """Stop the server with SIGTERM (a graceful shutdown flushes counts), else SIGKILL."""
        if self.process is None:
            return
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()
            return
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()
        self.process = None

    def log(self) -> str:
        """Return everything the server has logged so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _owner_of_connection(group: int, server_port: int, client_port: int) -> int | None:
    """Given a process group and the two ports of a loopback connection, return the pid in
    that group holding the server's end of it (None if it is gone)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        ports = (int(local.rsplit(":", 1)[1], 16), int(remote.rsplit(":", 1)[1], 16))
        if ports == (server_port, client_port) and fields[9] != "0":  # 0: no owner left
            inode = f"socket:[{fields[9]}]"
            break
    if inode is None:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError):
            # /proc/<pid>/stat: "pid (comm) state ppid pgrp ...", comm may hold spaces.
            if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[2]) != group:
                continue
            if any(os.readlink(fd) == inode for fd in (proc / "fd").iterdir()):
                return int(proc.name)
    return None
