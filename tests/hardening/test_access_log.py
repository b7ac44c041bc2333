"""The access log cannot hurt a real server (issue 36): a reader that never reads costs bounded
memory and no shutdown (of standard output, nor of standard error), lines from two workers
never interleave however long the URL, one line stays one line for any reader, and no
credential in a URL reaches it."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from bangscore.stores.keys import generate_key
from tests.hardening.conftest import ServerFactory, SharedServer, publish_into
from tests.support.factories import small_catalog
from tests.support.live import LOOPBACK, ShimServer, wait_for

pytestmark = pytest.mark.slow  # real servers, thousands of requests

PIPE_BUF = select.PIPE_BUF  # a write up to this size to a pipe is whole (pipe(7))
LONG = 15_000  # characters of path: under the 16 KiB request line, as the client sent


def rss_bytes(pid: int) -> int:
    """Given a process id, return its resident set size in bytes (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


@pytest.fixture
def state(tmp_path: Path) -> Path:
    folder = tmp_path / "state"
    publish_into(folder, small_catalog(), "s1")
    return folder


def test_a_reader_that_never_reads_bounds_memory_counts_drops_and_never_holds_shutdown(
    server_factory: ServerFactory, state: Path
) -> None:
    # Standard output is a pipe nobody reads (a stalled journald): its 64 KiB fill at once.
    server = server_factory(
        state,
        access_log=True,
        stdout_pipe=True,
        env={"BANGSCORE_ACCESS_LOG_QUEUE_BYTES": str(256 * 1024)},
    )
    assert server.process is not None
    pid = server.process.pid  # one worker: uvicorn serves in this process
    with httpx.Client(base_url=server.url, timeout=10.0) as client:
        client.get("/api/v1")
        before = rss_bytes(pid)
        for n in range(3000):
            assert client.get(f"/{n}{'x' * LONG}").status_code == 404
        grown = rss_bytes(pid) - before
        wait_for(
            lambda: server.metrics()["bangscore_access_log_dropped_total"] > 0,
            5,
            "dropped lines counted",
        )
    # 3,000 lines of 15,000 characters are 45 MB: held until a reader comes, they grew the
    # server by that much (round 4). Bounded: the queue's 256 KiB and the client's share.
    assert grown < 16 * 1024 * 1024, f"grew {grown / 2**20:.1f} MiB"
    started = time.monotonic()
    os.killpg(pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        raise AssertionError("SIGTERM did not end the server within 10 s") from None
    stopped = time.monotonic() - started
    assert stopped < 10
    assert "access log:" in server.log() and "lines dropped" in server.log()


def malformed(url: str) -> bytes:
    """Given a server URL, send one request that is not HTTP/1.1 on a fresh connection (uvicorn
    logs "Invalid HTTP request received." on standard error for it); return the answer's head,
    raising TimeoutError if none comes within 5 s (the server stopped answering)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5.0) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n")
        return conn.recv(64)


def test_a_stalled_reader_of_standard_error_never_stops_the_server(
    server_factory: ServerFactory, state: Path
) -> None:
    # Standard error is a pipe nobody reads. Each malformed request logs a warning of about 50
    # bytes there: before the handler was made non-blocking, the 64 KiB pipe filled after about
    # 1,300 of them and the next warning blocked the event loop, freezing the server.
    server = server_factory(state, stderr_pipe=True)
    assert server.process is not None
    for n in range(3000):
        try:
            head = malformed(server.url)
        except TimeoutError:
            raise AssertionError(f"no answer after {n} malformed requests") from None
        assert head.startswith(b"HTTP/1.1 400"), head
    with httpx.Client(base_url=server.url, timeout=5.0) as client:
        assert client.get("/api/v1").status_code == 200
    # The lines the pipe could not take were dropped and counted, not queued.
    assert server.metrics()["bangscore_log_dropped_total"] > 1000
    started = time.monotonic()
    os.killpg(server.process.pid, signal.SIGTERM)
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        raise AssertionError("SIGTERM did not end the server within 10 s") from None
    assert time.monotonic() - started < 10


def slow_reader(stream: Any, into: bytearray, done: threading.Event) -> threading.Thread:
    """Given a pipe's read end, read it 512 bytes at a time, pausing a millisecond after each
    read (a slow consumer keeps the pipe nearly full), into ``into`` until EOF."""

    def read() -> None:
        fd = stream.fileno()
        while not done.is_set() and (chunk := os.read(fd, 512)):
            into.extend(chunk)
            done.wait(0.001)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_two_workers_lines_never_interleave_with_a_slow_reader(
    server_factory: ServerFactory, state: Path
) -> None:
    server = server_factory(state, access_log=True, stdout_pipe=True, workers=2)
    assert server.process is not None and server.process.stdout is not None
    out, done = bytearray(), threading.Event()
    reader = slow_reader(server.process.stdout, out, done)
    clients = server.worker_clients()
    sent = [0]

    def hammer(client: httpx.Client) -> None:
        for n in range(800):
            # 6,000 characters: a line longer than PIPE_BUF (4,096) unless it is cut
            client.get(f"/{n}{'y' * 6000}")
            sent[0] += 1

    threads = [threading.Thread(target=hammer, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    for client in clients:
        client.close()
    dropped = server.metrics().get("bangscore_access_log_dropped_total", 0.0)
    assert server.process is not None
    os.killpg(server.process.pid, signal.SIGTERM)
    server.process.wait(60)
    reader.join(60)  # to the end of the pipe: every line the workers wrote
    done.set()
    server.stop()
    lines = bytes(out).split(b"\n")
    assert lines[-1] == b""
    records = [orjson.loads(line) for line in lines[:-1]]  # every line whole JSON
    long = [r for r in records if r["path"].startswith("/") and "yyyy" in r["path"]]
    assert len(long) + dropped >= sent[0] == 1600
    assert max(len(line) + 1 for line in lines[:-1]) <= PIPE_BUF
    assert any("...[cut " in r["path"] for r in long)


# -- what a line holds --------------------------------------------------------------------------


def logged(server: ShimServer, request_ids: list[str]) -> list[dict[str, Any]]:
    """Given the request ids of answered requests, return their access-log lines (JSON) once
    the log holds them all, in the order of the ids; the log file read with ``splitlines``,
    as a reader splitting on any Unicode line end would."""

    def lines() -> list[dict[str, Any]]:
        found = [
            orjson.loads(line)
            for line in server.log().splitlines()
            if line.startswith("{") and '"request_id"' in line
        ]
        return [e for e in found if e["request_id"] in request_ids]

    wait_for(lambda: len(lines()) == len(request_ids), 5, f"logging {request_ids}")
    return sorted(lines(), key=lambda e: request_ids.index(e["request_id"]))


def test_line_separators_stay_inside_one_line(shared_server: SharedServer) -> None:
    url = shared_server.server.url
    sent = LOOPBACK.get(f"{url}/x%E2%80%A8y%C2%85z%E2%80%A9w%0Bv")
    [line] = logged(shared_server.server, [sent.headers["x-request-id"]])
    assert line["path"] == "/x\u2028y\u0085z\u2029w\x0bv"


def test_a_head_logs_the_bytes_it_sent(shared_server: SharedServer) -> None:
    url = shared_server.server.url
    head, get = LOOPBACK.head(f"{url}/api/v1"), LOOPBACK.get(f"{url}/api/v1")
    lines = logged(
        shared_server.server, [head.headers["x-request-id"], get.headers["x-request-id"]]
    )
    assert [e["bytes"] for e in lines] == [0, int(get.headers["content-length"])]


TOKEN = "Zm9vYmFyYmF6cXV4LnNlY3JldC10b2tlbi12YWx1ZQ"


@pytest.mark.parametrize(
    ("method", "path", "logged_path"),
    [
        pytest.param(
            "GET",
            f"/account/watches/confirm?t={TOKEN}",
            "/account/watches/confirm?t=[redacted]",
            id="confirm-get",
        ),
        pytest.param(
            "POST",
            f"/account/watches/confirm?t={TOKEN}",
            "/account/watches/confirm?t=[redacted]",
            id="confirm-post",
        ),
        pytest.param(
            "GET",
            f"/account/watches/unsubscribe?t={TOKEN}",
            "/account/watches/unsubscribe?t=[redacted]",
            id="unsubscribe",
        ),
        pytest.param(
            "GET",
            f"/export/s1/games.jsonl.gz?expires=1900000000&signature={TOKEN}",
            "/export/s1/games.jsonl.gz?expires=1900000000&signature=[redacted]",
            id="export-link",
        ),
        pytest.param(
            "GET",
            f"/api/v1/search?q=a&%74={TOKEN}",
            "/api/v1/search?q=a&%74=[redacted]",
            id="escaped-name",
        ),
    ],
)
def test_tokens_in_urls_are_redacted_like_keys(
    shared_server: SharedServer, method: str, path: str, logged_path: str
) -> None:
    sent = LOOPBACK.request(method, f"{shared_server.server.url}{path}")
    [line] = logged(shared_server.server, [sent.headers["x-request-id"]])
    assert line["path"] == logged_path
    assert TOKEN not in shared_server.server.log()


@pytest.mark.parametrize(
    "near",
    [
        pytest.param(lambda key: key[:-1], id="one-short"),
        pytest.param(lambda key: key + "Q", id="one-long"),
        pytest.param(lambda key: key[:-2] + ("AB" if key[-2:] != "AB" else "BA"), id="typo"),
    ],
)
def test_a_key_one_character_off_is_not_logged_whole(
    shared_server: SharedServer, near: Callable[[str], str]
) -> None:
    key = generate_key()
    sent = LOOPBACK.get(f"{shared_server.server.url}/api/v1/search?q={near(key)}")
    [line] = logged(shared_server.server, [sent.headers["x-request-id"]])
    assert key[4:24] not in line["path"]
    assert key[4:24] not in shared_server.server.log()
