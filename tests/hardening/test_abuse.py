"""Abuse of a real ``bangscore serve`` by one client: concurrent wrong sign-ins, bodies that
never come, ambiguous identity headers, oversized forms, and the headers that protect pages.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from pathlib import Path

import httpx
import orjson
import pytest

from tests.hardening.conftest import ServerFactory, SharedServer, publish_into
from tests.hardening.test_edge import connect, parse, read_until_closed, rss_mib, send_all
from tests.support import factories, signups
from tests.support.live import LOOPBACK, ShimServer, wait_for

# Real servers. The tests that time the server (a burst's elapsed seconds, a body timeout)
# are `serial`, run alone; the others ask for answers and headers, and run beside the rest.
pytestmark = pytest.mark.slow

BODY_SECONDS = 1.0
PASSWORD = "lantern quietly orbits the harbour"


def form_session(server: ShimServer) -> tuple[httpx.Client, str]:
    """Given a server, return a client holding an account-site session and its CSRF token."""
    client = httpx.Client(base_url=server.url, timeout=30.0)
    found = re.search(r'name="csrf" value="([^"]+)"', client.get("/account").text)
    assert found is not None
    return client, found.group(1)


def sign_up(server: ShimServer, email: str, password: str = PASSWORD) -> httpx.Response:
    """Given a server, post a sign-up form from a fresh session; return the answer."""
    client, csrf = form_session(server)
    try:
        return client.post(
            "/account/signup", data={"csrf": csrf, "email": email, "password": password}
        )
    finally:
        client.close()


# -- 3: concurrent wrong sign-ins -------------------------------------------------------------


@pytest.mark.serial
def test_a_burst_of_wrong_sign_ins_is_throttled_and_memory_stays_flat(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    server = server_factory(tmp_path, env={"BANGSCORE_MAX_CLIENT_CONNECTIONS": "500"})
    owner, _ = signups.signed_up(server.url, tmp_path, "owner@example.com", PASSWORD)
    owner.close()
    client, csrf = form_session(server)
    client.close()
    form = {"csrf": csrf, "email": "owner@example.com", "password": "wrong " + PASSWORD}
    before = rss_mib(server)
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak.append(rss_mib(server))

    async def burst() -> list[int]:
        limits = httpx.Limits(max_connections=100)
        async with httpx.AsyncClient(
            base_url=server.url, cookies=client.cookies, limits=limits, timeout=60.0
        ) as burst_client:
            answers = await asyncio.gather(
                *(burst_client.post("/account/signin", data=form) for _ in range(100))
            )
        return [a.status_code for a in answers]

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.monotonic()
    try:
        statuses = asyncio.run(burst())
    finally:
        elapsed = time.monotonic() - started
        done.set()
        sampler.join()
    verified = statuses.count(401)
    # The 3 free attempts, then one more each time a doubling delay (1 s, 2 s, 4 s...) has
    # passed on the server's whole-second clock, which can cut each by up to a second: a
    # burst of E seconds lets through at most k more, the largest k with 2**k - 1 - k <= E.
    extra = max(k for k in range(12) if 2**k - 1 - k <= elapsed)
    assert 1 <= verified <= 3 + extra, f"{verified} passwords checked in {elapsed:.1f} s"
    assert statuses.count(429) == 100 - verified
    grown = max(peak) - before
    assert grown < 100, f"the server grew by {grown:.0f} MiB"
    # The owner, from elsewhere, is not slowed (a different client address).
    with httpx.Client(
        base_url=server.url, transport=httpx.HTTPTransport(local_address="127.0.0.2")
    ) as owner:
        found = re.search(r'name="csrf" value="([^"]+)"', owner.get("/account").text)
        assert found is not None
        signed = owner.post(
            "/account/signin",
            data={"csrf": found.group(1), "email": "owner@example.com", "password": PASSWORD},
        )
    assert signed.status_code == 303


# -- 4: a body that never comes ---------------------------------------------------------------


@pytest.fixture
def body_server(tmp_path: Path, server_factory: ServerFactory) -> ShimServer:
    """One worker, a 1 s body timeout and at most 20 connections per client address."""
    publish_into(tmp_path, factories.small_catalog(), "s1")
    env = {
        "BANGSCORE_BODY_TIMEOUT_SECONDS": str(BODY_SECONDS),
        "BANGSCORE_MAX_CLIENT_CONNECTIONS": "20",
    }
    return server_factory(tmp_path, env=env)


STALLED = (
    b"POST /account/signin HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
)


@pytest.mark.serial
def test_a_body_that_never_comes_is_answered_408(
    body_server: ShimServer, sockets: list[socket.socket]
) -> None:
    sock = connect(body_server, sockets)
    started = time.monotonic()
    send_all(sock, STALLED + b"csrf=")
    status, headers, body = parse(read_until_closed(sock))
    assert BODY_SECONDS * 0.8 <= time.monotonic() - started < BODY_SECONDS + 3
    assert status == 408 and headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert b'"code":"request_timeout"' in body


@pytest.mark.serial
def test_others_are_served_while_one_client_holds_stalled_bodies(
    body_server: ShimServer, sockets: list[socket.socket]
) -> None:
    attack = [connect(body_server, sockets) for _ in range(60)]
    for sock in attack:
        send_all(sock, STALLED)
    # Past the cap, the attacker's connections are closed at once, unanswered.
    refused = 0
    for sock in attack[20:]:
        sock.settimeout(BODY_SECONDS / 2)
        try:
            refused += sock.recv(1) == b""
        except ConnectionResetError:
            refused += 1
        except TimeoutError:
            pass
    assert refused >= 40 - 2  # a connection or two may be counted before an earlier one closed
    with httpx.Client(
        base_url=body_server.url, transport=httpx.HTTPTransport(local_address="127.0.0.2")
    ) as other:
        assert other.get("/api/v1").status_code == 200
        assert other.get("/").status_code == 200
    answers = [read_until_closed(sock) for sock in attack[:20]]
    assert sum(a.startswith(b"HTTP/1.1 408") for a in answers) >= 18


# -- 8: identity edges ------------------------------------------------------------------------

GET = b"GET /api/v1 HTTP/1.1\r\n"


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (GET + b"Host: a\r\nAuthorization: Bearer x\r\nAuthorization: Bearer y\r\n\r\n", 400),
        (GET + b"\r\n", 400),
        (GET + b"Host: a\r\nHost: b\r\n\r\n", 400),
        (GET + b"Host: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 400),
        (b"POST /account/signin HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
         b"Content-Type: application/x-www-form-urlencoded\r\n\r\nzz\r\nab\r\n0\r\n\r\n",
         400),
        (GET + b"Host: a\r\n" + b"".join(b"X-%d: a\r\n" % i for i in range(5000)) + b"\r\n",
         431),
    ],
    ids=["two-authorization", "no-host", "two-host", "xchunked", "bad-chunk-size",
         "5000-headers"],
)  # fmt: skip
def test_ambiguous_requests_get_one_answer_and_a_close(
    shared_server: SharedServer, sockets: list[socket.socket], request_bytes: bytes, status: int
) -> None:
    sock = connect(shared_server.server, sockets)
    send_all(sock, request_bytes)
    raw = read_until_closed(sock)
    assert len(re.findall(rb"(?:^|\r\n)HTTP/1\.1 \d{3} ", raw)) == 1, raw[:400]
    got, headers, _ = parse(raw)
    assert got == status
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"


def test_a_quote_in_the_query_is_escaped_in_the_access_log(
    shared_server: SharedServer, sockets: list[socket.socket]
) -> None:
    marker = f"m{time.monotonic_ns()}"
    sock = connect(shared_server.server, sockets)
    send_all(sock, b'GET /api/v1?x=' + marker.encode() + b'"forged HTTP/1.1\r\nHost: a\r\n'
             b"Connection: close\r\n\r\n")  # fmt: skip
    read_until_closed(sock)
    wait_for(lambda: marker in shared_server.server.log(), 5, "logging the request")
    lines = [x for x in shared_server.server.log().splitlines() if marker in x]
    assert len(lines) == 1  # one line: the quote cannot end it or start another
    assert orjson.loads(lines[0])["path"] == f'/api/v1?x={marker}"forged'
    assert f'{marker}"' not in lines[0]  # escaped by JSON


# -- 9: oversized form fields -----------------------------------------------------------------


@pytest.mark.parametrize("field", ["email", "password", "csrf"], ids=["email", "password", "csrf"])
def test_a_form_field_over_4_kb_answers_413(shared_server: SharedServer, field: str) -> None:
    client, csrf = form_session(shared_server.server)
    data = {"csrf": csrf, "email": "a@example.com", "password": PASSWORD, field: "a" * 5000}
    try:
        answer = client.post("/account/signup", data=data)
    finally:
        client.close()
    assert answer.status_code == 413
    assert answer.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize(
    ("email", "password", "reason"),
    [
        ("evil\x1b]8;;http://x\x07@example.com", PASSWORD, "valid email"),
        ("user@example.com", "password1234", "too common"),
        ("user@example.com", "P@ssw0rd2024", "too common"),
        ("user@example.com", " " * 12, "only spaces"),
        ("longname@example.com", "longname@example.com", "email address"),
        ("user@example.com", "short", "10 to 1,024 characters"),
    ],
    ids=["ansi-email", "common", "leaked-pattern", "whitespace", "the-email", "short"],
)
def test_sign_up_refuses_bad_emails_and_guessable_passwords(
    tmp_path: Path, server_factory: ServerFactory, email: str, password: str, reason: str
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    server = server_factory(tmp_path)
    answer = sign_up(server, email, password)
    assert answer.status_code == 400
    assert reason in answer.text


def test_one_address_may_sign_up_only_a_few_accounts(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    server = server_factory(tmp_path)
    statuses = [sign_up(server, f"user{i}@example.com").status_code for i in range(5)]
    assert statuses == [200, 200, 200, 429, 429]  # "check your inbox", then refused


# -- 10: headers for pages --------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/games", "/account", "/docs"])
def test_pages_carry_a_content_security_policy_and_refuse_framing(
    shared_server: SharedServer, path: str
) -> None:
    answer = LOOPBACK.get(f"{shared_server.server.url}{path}")
    assert answer.status_code == 200
    policy = answer.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src", 1)[1].split(";")[0]
    assert "<script>" not in answer.text  # no inline script for the policy to block
    assert "onsubmit=" not in answer.text and "onclick=" not in answer.text


def test_account_pages_allow_no_cross_origin_reads(shared_server: SharedServer) -> None:
    url = shared_server.server.url
    assert "access-control-allow-origin" not in LOOPBACK.get(f"{url}/account").headers
    assert LOOPBACK.get(f"{url}/api/v1").headers["access-control-allow-origin"] == "*"


def test_hsts_is_sent_when_the_site_is_https(tmp_path: Path, server_factory: ServerFactory) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    server = server_factory(tmp_path, site_url="https://bangscore.example")
    for path in ("/", "/api/v1", "/account"):
        assert (
            "max-age=" in LOOPBACK.get(f"{server.url}{path}").headers["strict-transport-security"]
        )
    plain = server_factory(tmp_path)
    assert "strict-transport-security" not in LOOPBACK.get(f"{plain.url}/").headers
