"""The Python client's failures (issues 55 and 56): every transport and decoding failure is an
``ApiError`` (``ApiConnectionError``, ``InvalidResponse``), a superseded listing's refusal names
its edition, and the ETag cache is bounded by bytes. Real sockets where a failure needs one (a
port nobody listens on, a server that cuts its answer), ``httpx.MockTransport`` elsewhere."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import tracemalloc
from collections.abc import AsyncIterator, Callable, Iterator

import httpx
import pytest

from bangscore.client import (
    ApiConnectionError,
    ApiError,
    AsyncClient,
    Client,
    GameNotRated,
    InvalidResponse,
)
from bangscore.client_core import LARGEST_SHARE, ETagCache
from tests.support import hostile_http
from tests.support.hostile_http import Canned, HostileServer

server = pytest.mark.server


def closed_port() -> int:
    """Return a loopback port nobody listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def cutting() -> Iterator[HostileServer]:
    """A server whose answers break: a body cut short, a head past h11's limit, gzip that is
    not gzip, an HTML maintenance page."""
    json_type = {"Content-Type": "application/json"}
    html = b"<html><title>Down for maintenance</title></html>"
    server = HostileServer(
        {
            "/api/v1/games/1": Canned(
                hostile_http.answer("200 OK", {**json_type, "Content-Length": "5000"}, b'{"a')
            ),
            "/api/v1/games/2": Canned(hostile_http.answer("200 OK", {"X-Pad": "a" * 200_000})),
            "/api/v1/games/3": Canned(
                hostile_http.answer("200 OK", {**json_type, "Content-Encoding": "gzip"}, b"junk")
            ),
            "/api/v1/games/4": Canned(
                hostile_http.answer("200 OK", {"Content-Type": "text/html"}, html)
            ),
            "/api/v1": Canned(hostile_http.answer("200 OK", {"Content-Type": "text/html"}, html)),
        }
    )
    yield server
    server.stop()


def test_a_server_that_is_down_raises_api_connection_error() -> None:
    """Issue 56 item 5: a raw ``httpx.ConnectError`` escaped."""
    with (
        Client(base_url=f"http://127.0.0.1:{closed_port()}") as api,
        pytest.raises(ApiConnectionError) as down,
    ):
        api.game(620)
    assert isinstance(down.value, ApiError) and down.value.status == 0
    assert isinstance(down.value.__cause__, httpx.ConnectError)
    assert "ConnectError" in down.value.detail


def test_the_async_client_raises_the_same() -> None:
    async def call() -> None:
        async with AsyncClient(base_url=f"http://127.0.0.1:{closed_port()}") as api:
            await api.lookup([620])

    with pytest.raises(ApiConnectionError):
        asyncio.run(call())


@server
@pytest.mark.parametrize(
    ("appid", "raised", "words"),
    [
        pytest.param(1, ApiConnectionError, "RemoteProtocolError", id="body-cut-short"),
        pytest.param(2, ApiConnectionError, "RemoteProtocolError", id="huge-head"),
        pytest.param(3, InvalidResponse, "corrupt gzip", id="corrupt-gzip"),
        pytest.param(4, InvalidResponse, "Down for maintenance", id="html-maintenance-page"),
    ],
)
def test_a_broken_answer_is_the_client_s_own_error_and_leaves_no_pending_task(
    cutting: HostileServer,
    appid: int,
    raised: type[ApiError],
    words: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 55 item 7: pydantic, orjson and httpx exceptions escaped, and an aborted stream
    left "Task was destroyed but it is pending" when the client's loop closed."""
    caplog.set_level(logging.ERROR, logger="asyncio")
    with Client(base_url=cutting.url) as api, pytest.raises(raised) as caught:
        api.game(appid)
    gc.collect()
    assert type(caught.value) is raised and words in caught.value.detail
    assert [r.getMessage() for r in caplog.records] == []


@server
def test_the_root_listing_as_html_is_an_invalid_response(cutting: HostileServer) -> None:
    with Client(base_url=cutting.url) as api, pytest.raises(InvalidResponse) as caught:
        api.root()
    assert caught.value.status == 200 and "not JSON" in caught.value.detail


def transport(answer: Callable[[httpx.Request], httpx.Response]) -> httpx.MockTransport:
    """Return a mock transport answering every request with ``answer``."""
    return httpx.MockTransport(answer)


class Streamed(httpx.AsyncByteStream):
    """A body handed over as a stream, as a server's comes."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body


def test_a_superseded_listing_s_refusal_names_its_edition() -> None:
    """Issue 56 item 5: ``GameNotRated`` for a superseded listing lacked ``superseded_by``."""
    body = (
        b'{"type": "t", "title": "Game not rated", "status": 404, "detail": "superseded",'
        b' "code": "game_not_rated", "request_id": "r1", "appid": 271590,'
        b' "name": "Grand Theft Auto V Legacy", "reason": "superseded", "superseded_by": 3240220}'
    )
    headers = {"Content-Type": "application/problem+json"}
    reply = transport(lambda _: httpx.Response(404, headers=headers, stream=Streamed(body)))
    with (
        Client("bsk_x", base_url="http://api.test", transport=reply) as api,
        pytest.raises(GameNotRated) as refused,
    ):
        api.game(271590)
    assert (refused.value.reason, refused.value.superseded_by) == ("superseded", 3240220)
    assert (refused.value.appid, refused.value.name) == (271590, "Grand Theft Auto V Legacy")


@pytest.mark.parametrize(
    ("puts", "kept"),
    [
        pytest.param(
            [(f"u{i}", 240) for i in range(9)],
            [f"u{i}" for i in range(1, 9)],
            id="oldest-out-by-bytes",
        ),
        pytest.param([("a", 100), ("big", 300), ("b", 10)], ["a", "b"], id="over-a-share-skipped"),
        pytest.param([("a", 100), ("a", 300)], [], id="a-skipped-body-drops-the-old-one"),
    ],
)
def test_the_etag_cache_is_bounded_by_bytes(puts: list[tuple[str, int]], kept: list[str]) -> None:
    # 2,000 bytes: a body of 250 or more is skipped; eight of 245 fit, the ninth evicts one.
    cache = ETagCache(size=100, max_bytes=250 * LARGEST_SHARE)
    for url, size in puts:
        cache.put(url, '"t"', b"x" * size)
    assert list(cache.entries) == kept
    assert cache.total == sum(len(u) + 3 + len(b) for u, (_, b) in cache.entries.items())
    assert cache.total <= cache.max_bytes


def test_24_hostile_16_mib_pages_leave_the_client_under_100_mb() -> None:
    """Issue 55 item 4: 24 hostile 16 MiB pages, each with its own ETag, took a client from 46
    to 453 MB (the cache was bounded by count only)."""
    page = 16 * 1024 * 1024 - 100  # the whole body just under the 16 MiB max_bytes
    served = 0

    def reply(request: httpx.Request) -> httpx.Response:
        nonlocal served
        served += 1
        # A valid search page padded with a member the client ignores.
        head = b'{"query": "q", "prices_as_of": null, "page": 1, "pages": 1, "total": 0,'
        head += b' "games": [], "pad": "'
        body = head + b"x" * page + b'"}'
        return httpx.Response(200, headers={"ETag": f'"{served}"'}, stream=Streamed(body))

    tracemalloc.start()
    try:
        with Client(base_url="http://api.test", transport=transport(reply)) as api:
            for n in range(24):
                assert api.search(f"page {n}").total == 0
            # The mock transport's answers (the "server's" 16 MiB) wait in reference cycles
            # for the collector; what survives it is what the client holds.
            gc.collect()
            held = tracemalloc.get_traced_memory()[0]
            cache = api._core.cache
    finally:
        tracemalloc.stop()
    assert served == 24 and len(cache.entries) == 0  # each body over an eighth of 32 MiB
    assert held < 100 * 2**20, f"{held / 2**20:.0f} MiB held after 24 pages"
