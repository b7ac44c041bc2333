"""The network edge of a real ``bangscore serve`` with no proxy in front: bounded request
heads (431/414 as problems), slow and idle connections closed in time, memory flat under
many unfinished heads, protocol errors as problems, and no trusted proxy by default."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.hardening.conftest import ServerFactory, publish_into
from tests.support import factories, signups
from tests.support.live import LOOPBACK, ShimServer

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # real servers; timings: run alone

HEAD_SECONDS = 1.0
KEEP_ALIVE_SECONDS = 1
SOCKETS = 200


@pytest.fixture(scope="module")
def edge_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShimServer]:
    """One worker, a 1 s head timeout and a 1 s keep-alive, over the small catalog; the
    per-client connection cap is raised above SOCKETS (this test's one client opens them all).

    One server for the module: each test opens and closes its own connections, and asks
    nothing of the server's state, so a server each (about 1.8 s to start, 13 times) bought
    nothing."""
    state = tmp_path_factory.mktemp("edge")
    publish_into(state, factories.small_catalog(), "s1")
    env = {
        "BANGSCORE_HEAD_TIMEOUT_SECONDS": str(HEAD_SECONDS),
        "BANGSCORE_KEEP_ALIVE_SECONDS": str(KEEP_ALIVE_SECONDS),
        "BANGSCORE_MAX_CLIENT_CONNECTIONS": str(SOCKETS + 50),
    }
    server = ShimServer(state, state / "server.log", site_url=factories.SITE, env=env).start()
    try:
        yield server
    finally:
        server.stop()


def connect(server: ShimServer, opened: list[socket.socket]) -> socket.socket:
    """Given a server, return a new connection to it (timeout 10 s), tracked for teardown."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    opened.append(sock)
    return sock


def send_all(sock: socket.socket, data: bytes) -> None:
    """Send as much of ``data`` as the server takes; a server that has answered and closed
    may reset the rest, which is fine here."""
    with contextlib.suppress(OSError):
        sock.sendall(data)


def read_until_closed(sock: socket.socket) -> bytes:
    """Read until the server closes the connection (or 10 s pass: AssertionError)."""
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            raise AssertionError(f"connection still open; read so far: {out[:200]!r}") from None
        except ConnectionResetError:
            return out
        if not chunk:
            return out
        out += chunk


def parse(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Given a raw HTTP/1.1 response, return (status, lowercase headers, body)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def memory_status(server: ShimServer) -> dict[str, int]:
    """Given a started server, return its process's memory figures in kB as /proc's status
    names them (``VmRSS``, ``RssAnon``, ``RssFile``, ``RssShmem``...)."""
    assert server.process is not None
    lines = Path(f"/proc/{server.process.pid}/status").read_text().splitlines()
    return {
        name: int(rest.split()[0])
        for name, _, rest in (line.partition(":") for line in lines)
        if rest.strip().endswith(" kB")
    }


def rss_mib(server: ShimServer) -> float:
    """Return the resident memory of the server process in MiB."""
    return memory_status(server)["VmRSS"] / 1024


HEAD = b"GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (HEAD + b"X-Big: " + b"a" * (32 << 20) + b"\r\n\r\n", 431, "header_too_large"),
        (HEAD + b"X-Big: " + b"a" * (17 << 10) + b"\r\n\r\n", 431, "header_too_large"),
        (HEAD + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 8000) for i in range(9)) + b"\r\n", 431,
         "header_too_large"),
        (b"GET /api/v1/games?q=" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414,
         "uri_too_long"),
        (b"GET /api/v1 HTTP/1.1\r\nHost x\r\n\r\n", 400, "bad_request"),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400, "bad_request"),
    ],
    ids=["32MiB-header", "17KiB-header", "72KiB-head", "1MiB-query", "malformed", "tls-hello"],
)  # fmt: skip
def test_oversized_or_malformed_heads_get_a_problem_and_a_closed_connection(
    edge_server: ShimServer,
    sockets: list[socket.socket],
    request_bytes: bytes,
    status: int,
    code: str,
) -> None:
    sock = connect(edge_server, sockets)
    send_all(sock, request_bytes)
    got, headers, body = parse(read_until_closed(sock))
    assert got == status
    assert headers["content-type"] == "application/problem+json"
    assert len(headers["x-request-id"]) == 16
    assert "x-ratelimit-limit" in headers and "ratelimit" in headers
    assert headers["connection"] == "close"
    assert f'"code":"{code}"'.encode() in body


def test_a_head_within_the_limits_is_served(edge_server: ShimServer) -> None:
    headers = {"X-Fine": "a" * (15 << 10)}
    assert LOOPBACK.get(f"{edge_server.url}/api/v1", headers=headers).status_code == 200


@pytest.mark.parametrize(
    ("sent", "answered"),
    [
        (b"", False),
        (b"GE", True),
        (HEAD, True),
    ],
    ids=["nothing", "half-a-request-line", "unfinished-headers"],
)
def test_a_head_not_finished_in_time_closes_the_connection(
    edge_server: ShimServer, sockets: list[socket.socket], sent: bytes, answered: bool
) -> None:
    sock = connect(edge_server, sockets)
    started = time.monotonic()
    send_all(sock, sent)
    raw = read_until_closed(sock)
    waited = time.monotonic() - started
    assert HEAD_SECONDS * 0.8 <= waited < HEAD_SECONDS + 3
    if answered:
        status, headers, body = parse(raw)
        assert status == 408 and headers["content-type"] == "application/problem+json"
        assert b'"code":"request_timeout"' in body
    else:
        assert raw == b""


def test_trickling_a_header_does_not_keep_the_connection_open(
    edge_server: ShimServer, sockets: list[socket.socket]
) -> None:
    sock = connect(edge_server, sockets)
    sock.settimeout(0.2)
    started = time.monotonic()
    send_all(sock, HEAD)
    closed_after = None
    for _ in range(100):  # one byte every 0.1 s, bounded: 10 s at most
        try:
            sock.sendall(b"a")
            if sock.recv(65536) == b"":
                closed_after = time.monotonic() - started
                break
            closed_after = time.monotonic() - started  # the 408 answer arrived
            break
        except TimeoutError:
            continue
        except OSError:
            closed_after = time.monotonic() - started
            break
    assert closed_after is not None and closed_after < HEAD_SECONDS + 3


def test_an_idle_keep_alive_connection_is_closed(
    edge_server: ShimServer, sockets: list[socket.socket]
) -> None:
    sock = connect(edge_server, sockets)
    send_all(sock, HEAD + b"\r\n")
    first = b""
    while b"\r\n\r\n" not in first:
        first += sock.recv(65536)
    started = time.monotonic()
    read_until_closed(sock)  # the rest of the body, then the close
    assert time.monotonic() - started < KEEP_ALIVE_SECONDS + 3


def test_memory_stays_flat_under_many_unfinished_heads(
    edge_server: ShimServer, sockets: list[socket.socket]
) -> None:
    before = rss_mib(edge_server)
    chunk = HEAD + b"X-Big: " + b"a" * (256 << 10)  # never finished; 50 MiB over 200 sockets
    for _ in range(SOCKETS):
        send_all(connect(edge_server, sockets), chunk)
    grown = rss_mib(edge_server) - before
    assert grown < 32, f"the server grew by {grown:.0f} MiB"
    answers = [read_until_closed(sock) for sock in sockets]
    assert sum(a.startswith(b"HTTP/1.1 431") for a in answers) == SOCKETS
    assert LOOPBACK.get(f"{edge_server.url}/api/v1").status_code == 200


def test_x_forwarded_for_is_ignored_unless_the_proxy_is_configured(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    direct = server_factory(tmp_path)
    trusting = server_factory(tmp_path, env={"BANGSCORE_FORWARDED_ALLOW_IPS": "127.0.0.1"})

    def used(server: ShimServer, ip: str | None) -> int:
        headers = {"X-Forwarded-For": ip} if ip else {}
        response = LOOPBACK.get(f"{server.url}/api/v1", headers=headers)
        return int(response.headers["x-ratelimit-used"])

    # No proxy trusted: every claimed address is the same client, counted together.
    assert [used(direct, ip) for ip in ("203.0.113.1", "203.0.113.2", None)] == [1, 2, 3]
    # A configured proxy's header names the client: a fresh count per address.
    assert [used(trusting, ip) for ip in ("203.0.113.3", "203.0.113.4")] == [1, 1]


def test_one_ipv6_64_behind_the_proxy_is_one_client(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    """Issue 45 finding 4: behind the proxy, 40 addresses of one IPv6 /64 passed a limit of 5
    (40/40 API calls, 40/40 page views) and 30 wrong passwords went unthrottled."""
    publish_into(tmp_path, factories.small_catalog(), "s1")
    limit = 5
    env = {
        "BANGSCORE_FORWARDED_ALLOW_IPS": "127.0.0.1",
        "BANGSCORE_ANONYMOUS_DAILY_LIMIT": str(limit),
        "BANGSCORE_PAGE_DAILY_LIMIT": str(limit),
    }
    server = server_factory(tmp_path, site_url=None, env=env)
    one_64 = [f"2001:db8:1:2:{i:x}:{i * 7:x}:{i * 13:x}:1" for i in range(1, 41)]

    def statuses(path: str) -> list[int]:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            return [client.get(path, headers={"X-Forwarded-For": ip}).status_code for ip in one_64]

    for path in ("/api/v1", "/about/score"):
        answered = statuses(path)
        assert answered.count(200) == limit, f"{path}: {answered.count(200)} of 40 passed"
        assert answered.count(429) == 40 - limit
        # Another /64 (the next subscriber) has its own allowance; an IPv4 client too.
        for other in ("2001:db8:1:3::1", "203.0.113.9"):
            fresh = LOOPBACK.get(f"{server.url}{path}", headers={"X-Forwarded-For": other})
            assert fresh.status_code == 200, (path, other)

    # Sign-in: one account; 30 wrong passwords, each from another address of the /64.
    store_url = f"sqlite:///{tmp_path / 'bangscore.sqlite3'}"
    owner, _ = signups.signed_in_old_account(server.url, store_url, "owner@example.com")
    owner.close()
    with httpx.Client(base_url=server.url, timeout=30) as client:
        csrf = signups.CSRF.findall(client.get("/account").text)[0]
        wrong = {"csrf": csrf, "email": "owner@example.com", "password": "wrong password!!"}
        started = time.monotonic()
        checked = [
            client.post("/account/signin", data=wrong, headers={"X-Forwarded-For": ip})
            for ip in one_64[:30]
        ]
        elapsed = time.monotonic() - started
        codes = [a.status_code for a in checked]
        # 3 free failures, then one more each time a doubling delay has passed (see
        # test_abuse's burst): at most k more in E seconds, the largest k with 2**k-1-k <= E.
        extra = max(k for k in range(12) if 2**k - 1 - k <= elapsed)
        assert 3 <= codes.count(401) <= 3 + extra, f"{codes.count(401)} of 30 checked"
        assert codes.count(429) == 30 - codes.count(401)
        # Sign-up: 3 an hour per client; 6 addresses of the /64 are one client.
        signup = {"csrf": csrf, "password": "lantern quietly orbits the harbour"}
        made = [
            client.post(
                "/account/signup",
                data={**signup, "email": f"new{i}@example.com"},
                headers={"X-Forwarded-For": ip},
            ).status_code
            for i, ip in enumerate(one_64[30:36])
        ]
    assert made == [200, 200, 200, 429, 429, 429]
