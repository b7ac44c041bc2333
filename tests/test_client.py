"""The Python client (bangscore/client.py) against a real ``bangscore serve`` over the small
catalogue (45 rated games, 5 known apps that are not rated) with a Bulk export published, and
its pure part (errors, retries, chunks) through :class:`httpx.MockTransport`, in `make check`."""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import random
import time
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from bangscore.build.export import write_export
from bangscore.client import (
    ApiError,
    AsyncClient,
    AuthenticationFailed,
    Client,
    DeadlineExceeded,
    GameNotRated,
    HistoryExpired,
    InvalidParameter,
    NotFound,
    PermissionDenied,
    RateLimited,
    ResponseTooLarge,
    ServerError,
    Unavailable,
    lookup_chunks,
    retry_after_seconds,
)
from bangscore.client_exchange import Core
from bangscore.contract.export import FILES
from bangscore.contract.records import GameDetail, ListItem
from bangscore.storage import LocalStorage
from tests.hardening.conftest import add_key, publish_into
from tests.support import factories, hostile_http
from tests.support.hostile_http import Canned, HostileServer
from tests.support.live import LOOPBACK, ShimServer, wait_for
from tests.support.push_builds import two_builds

UNKNOWN = 900_000  # appids from here up are known to no source
# Real servers: `make check` leaves the tests marked so out (the marker a server fixture adds).
server = pytest.mark.server


@dataclass(frozen=True)
class Served:
    """The module's server, its rated appids in list order and a bulk key."""

    server: ShimServer
    rated: list[int]
    bulk_key: str

    def key(self, *, plan: str = "free", limit: int = 1000) -> str:
        """Return a new key on the server (a fresh daily count)."""
        return add_key(self.server.state_dir, plan=plan, limit=limit)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    state = tmp_path_factory.mktemp("client-state")
    games = publish_into(state, factories.small_catalog(), "s1")
    write_export(
        LocalStorage(state / "export"),
        games,
        snapshot_id="s1",
        created_at=dt.datetime(2026, 11, 26, tzinfo=dt.UTC),
        site_url=factories.SITE,
        keep=7,
        prices_as_of=factories.PRICES_AS_OF,
    )
    bulk = add_key(state, plan="bulk", limit=1_000_000)
    server = ShimServer(
        state,
        state / "server.log",
        site_url=factories.SITE,
        env={"BANGSCORE_EXPORT": str(state / "export")},
    ).start()
    try:
        yield Served(server, [g.record.appid for g in games], bulk)
    finally:
        server.stop()


def wishlist(rated: list[int]) -> list[int]:
    """A 300-appid wishlist: every rated game, the ones not rated, unknown ones to 300,
    shuffled."""
    known = rated + [a.appid for a in factories.NOT_RATED]
    ids = known + list(range(UNKNOWN, UNKNOWN + 300 - len(known)))
    random.Random(34).shuffle(ids)
    assert len(ids) == 300
    return ids


@server
def test_a_300_game_wishlist_is_3_requests_then_3_revalidations(served: Served) -> None:
    asked = wishlist(served.rated)
    key = served.key()
    with Client(key, base_url=served.server.url) as api:
        first = api.lookup(asked)
        assert api.stats.requests == 3 and api.stats.revalidated == 0
        assert api.usage().used == 3  # usage itself is not counted
        second = api.lookup(asked)
        assert api.stats.requests == 3 + 1 + 3 and api.stats.revalidated == 3
        assert api.usage().used == 3  # the 304s were not counted
    assert second == first
    order = {appid: n for n, appid in enumerate(asked)}
    assert [g.appid for g in first.games] == sorted(served.rated, key=order.__getitem__)
    assert {(n.appid, n.reason) for n in first.not_rated} == {
        (a.appid, a.reason) for a in factories.NOT_RATED
    }
    assert first.not_found == sorted(first.not_found, key=order.__getitem__)
    assert len(first.not_found) == 300 - len(served.rated) - len(factories.NOT_RATED)
    assert all(isinstance(g, ListItem) and g.verdict for g in first.games)


@server
def test_the_async_client_rates_the_same_list_the_same_way(served: Served) -> None:
    asked = wishlist(served.rated)

    async def run() -> None:
        async with AsyncClient(served.key(), base_url=served.server.url) as api:
            first = await api.lookup(asked)
            second = await api.lookup(asked)
            assert (api.stats.requests, api.stats.revalidated) == (6, 3)
            assert second == first and len(first.games) == 45
            cheap = [g.price_usd async for g in api.iter_games(max_price=5)]
            assert len(cheap) == 18 and max(cheap) == 4.99
            listed = [g.appid async for g in api.iter_games()]
            assert listed == served.rated
            detail = await api.game(served.rated[0])
            assert isinstance(detail, GameDetail)

    asyncio.run(run())


@server
def test_iterators_walk_every_page_in_list_order(served: Served) -> None:
    with Client(served.key(), base_url=served.server.url) as api:
        assert [g.appid for g in api.iter_games()] == served.rated
        assert api.stats.requests == 5  # 45 games, 10 a page
        cheap = list(api.iter_games(max_price=4.99))
        assert len(cheap) == 18 and all(g.price_usd <= 4.99 for g in cheap)
        found = list(api.iter_search("quest", max_price=0))
        assert len(found) == 9 and {g.price_usd for g in found} == {0.0}
        rpg = api.games(genre=["rpg", "shooter"], year_from=1990, year_to=2030)
        assert {g.genre for g in rpg.games} <= {"rpg", "shooter"}


@server
def test_the_key_comes_from_the_environment(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BANGSCORE_API_KEY", served.key())
    with Client(base_url=served.server.url) as api:
        assert api.usage().plan == "free"
    monkeypatch.delenv("BANGSCORE_API_KEY")
    with Client(base_url=served.server.url) as api, pytest.raises(AuthenticationFailed) as no:
        api.usage()
    assert no.value.code == "missing_key"


@server
def test_failures_are_exceptions_from_the_problem_document(served: Served) -> None:
    with Client(served.key(), base_url=served.server.url) as api:
        with pytest.raises(GameNotRated) as unrated:
            api.game(77)
        assert (unrated.value.status, unrated.value.reason) == (404, "too_few_reviews")
        with pytest.raises(NotFound) as missing:
            api.game(UNKNOWN)
        assert missing.value.code == "game_not_found" and missing.value.request_id
        with pytest.raises(InvalidParameter) as bad:
            api.games(year_from=999, year_to=2010)
        assert [e.parameter for e in bad.value.errors] == ["year_from"]
        with pytest.raises(InvalidParameter) as crossed:  # issue 55 item 9: a 400 naming both
            api.games(year_from=2020, year_to=2010)
        assert [e.parameter for e in crossed.value.errors] == ["year_from", "year_to"]
        with pytest.raises(PermissionDenied) as denied:
            api.export()
        assert denied.value.code == "insufficient_scope"
    with Client("bsk_nonsense", base_url=served.server.url) as api:
        with pytest.raises(AuthenticationFailed) as refused:
            api.games()
        assert refused.value.code == "invalid_key"
    with Client(served.bulk_key, base_url=served.server.url) as api:
        manifest = api.export()
        assert {f.name for f in manifest.files} == set(FILES)
        assert all(f.url and f.address.endswith(f"/{f.name}") for f in manifest.files)
        assert manifest.licence.attribution.required is True


@server
def test_a_spent_quota_raises_rate_limited_with_the_seconds_to_the_reset(served: Served) -> None:
    waits: list[float] = []
    with Client(
        served.key(limit=1), base_url=served.server.url, max_wait=0, sleep=waits.append
    ) as api:
        api.games()
        with pytest.raises(RateLimited) as spent:
            api.games(page=2)
    assert spent.value.code == "quota_exceeded"
    assert spent.value.retry_after is not None and 0 < spent.value.retry_after <= 86_400
    assert waits == []  # longer than max_wait: raised at once, never slept


@server
def test_a_503_is_retried_after_retry_after_then_raised(tmp_path: Path) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path)
    server = ShimServer(
        tmp_path, tmp_path / "server.log", env={"BANGSCORE_RETRY_AFTER_SECONDS": "2"}
    ).start()
    waits: list[float] = []
    try:
        (tmp_path / "bangscore.sqlite3").unlink()  # the key store vanishes: every answer 503
        wait_for(lambda: LOOPBACK.get(f"{server.url}/api/v1").status_code == 503, 5, "503s")
        api = Client(key, base_url=server.url, retries=2, sleep=waits.append)
        with api, pytest.raises(Unavailable) as down:
            api.games()
    finally:
        server.stop()
    assert waits == [2.0, 2.0]
    assert (api.stats.requests, api.stats.retries) == (3, 2)
    assert down.value.retry_after == 2.0 and down.value.code == "unavailable"


@pytest.mark.parametrize(
    ("status", "retry_after", "attempt", "expected"),
    [
        pytest.param(429, "5", 0, 5.0, id="429 short wait"),
        pytest.param(503, "5", 0, 5.0, id="503 short wait"),
        pytest.param(429, "43200", 0, None, id="429 until midnight"),
        pytest.param(503, "5", 3, None, id="retries spent"),
        pytest.param(503, None, 0, None, id="no Retry-After"),
        pytest.param(503, "Wed, 21 Oct 2099 07:28:00 GMT", 0, None, id="a date past max_wait"),
        pytest.param(503, "Wed, 21 Oct 2026 07:28:00 GMT", 0, 0.0, id="a date gone: at once"),
        pytest.param(429, "\u00b2", 0, None, id="superscript two: not a number"),
        pytest.param(500, "5", 0, None, id="500 is not retried"),
    ],
)
def test_the_retry_policy(
    status: int, retry_after: str | None, attempt: int, expected: float | None
) -> None:
    core = Core("bsk_x", "http://127.0.0.1:1", retries=3, max_wait=60, cache_size=1)
    # As the wire has it: a header's bytes, read by httpx as Latin-1 when not ASCII.
    headers = [(b"Retry-After", retry_after.encode("latin-1"))] if retry_after else []
    assert core.wait_for(httpx.Response(status, headers=headers), attempt) == expected


@pytest.mark.parametrize(
    ("appids", "chunks"),
    [
        pytest.param([], [], id="none"),
        pytest.param([5, 5, 7], [[5, 7]], id="repeats once"),
        pytest.param(list(range(1, 251)), [100, 100, 50], id="250"),
        pytest.param(list(range(1, 301)) * 2, [100, 100, 100], id="300 twice"),
    ],
)
def test_lookup_chunks(appids: list[int], chunks: list[list[int]] | list[int]) -> None:
    made = lookup_chunks(appids)
    if chunks and isinstance(chunks[0], int):
        assert [len(c) for c in made] == chunks
        assert [a for c in made for a in c] == list(dict.fromkeys(appids))
    else:
        assert made == chunks


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        pytest.param("120", 120.0, id="delay-seconds"),
        pytest.param(" 7 ", 7.0, id="spaces around"),
        pytest.param("0", 0.0, id="zero"),
        pytest.param("9" * 40, 1e12, id="past a float: very long"),
        pytest.param("Tue, 01 Dec 2026 00:00:30 GMT", 30.0, id="IMF-fixdate"),
        pytest.param("Tuesday, 01-Dec-26 00:01:00 GMT", 60.0, id="obsolete RFC 850 date"),
        pytest.param("Tue Dec  1 00:00:05 2026", 5.0, id="obsolete asctime date"),
        pytest.param("Mon, 30 Nov 2026 00:00:00 GMT", 0.0, id="a date gone"),
        pytest.param("\u00b2", None, id="superscript two"),
        pytest.param("\u0663", None, id="arabic-indic three"),
        pytest.param("-5", None, id="negative"),
        pytest.param("1.5", None, id="fraction"),
        pytest.param("soon", None, id="garbage"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="absent"),
    ],
)
def test_retry_after_is_read_as_rfc_9110_says(value: str | None, seconds: float | None) -> None:
    now = dt.datetime(2026, 12, 1, tzinfo=dt.UTC).timestamp()
    assert retry_after_seconds(value, now) == seconds


# -- a hostile server (issue 45) -----------------------------------------------------------------


@functools.cache
def gzip_bomb() -> bytes:
    """1 GiB of zeros, gzip-compressed: about 1 MB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    zeros = b"\0" * (1 << 20)
    return b"".join([*(packer.compress(zeros) for _ in range(1024)), packer.flush()])


@pytest.fixture
def hostile() -> Iterator[HostileServer]:
    """A server answering the client's paths with a gzip bomb, trickles and odd Retry-After."""
    json_gzip = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    trickled = '{"pad": "' + " " * 180 + '"}'
    server = HostileServer(
        {
            "/api/v1/games/1": Canned(hostile_http.answer("200 OK", json_gzip, gzip_bomb())),
            "/api/v1/games/2": Canned(
                hostile_http.answer("200 OK", {"Content-Length": str(len(trickled))}),
                trickled.encode(),
            ),
            "/api/v1/games/3": Canned(
                b"", hostile_http.answer("200 OK", {"X-Pad": "a" * 200}, b"{}")
            ),
            "/api/v1/games/4": Canned(
                hostile_http.answer("429 Too Many Requests", {"Retry-After": "\u00b2"})
            ),
        }
    )
    yield server
    server.stop()


@server
def test_a_1_gib_gzip_bomb_is_refused_without_decoding_it_whole(hostile: HostileServer) -> None:
    """Issue 45 finding 6: the client decoded a 1 MB gzip answer to 1 GiB (2.1 GB RSS)."""
    assert len(gzip_bomb()) < 1_100_000
    tracemalloc.start()
    try:
        with (
            Client(base_url=hostile.url, max_bytes=1 << 20) as api,
            pytest.raises(ResponseTooLarge) as refused,
        ):
            api.game(1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.value.status == 200 and "1,048,576 bytes" in refused.value.detail
    assert isinstance(refused.value, ApiError)
    assert peak < 16 << 20, f"{peak / 2**20:.0f} MiB allocated refusing a 1 GiB bomb"


@server
@pytest.mark.parametrize("appid", [2, 3], ids=["body trickles", "head trickles"])
def test_a_trickling_server_cannot_hold_a_call_past_its_deadline(
    hostile: HostileServer, appid: int
) -> None:
    """Issue 45 finding 6: a trickling server held a call with a 5 s timeout for 43.6 s; here
    it would take 10 s (a byte every 50 ms), the deadline is 1 s."""
    started = time.monotonic()
    with (
        Client(base_url=hostile.url, timeout=5, deadline=1) as api,
        pytest.raises(DeadlineExceeded) as late,
    ):
        api.game(appid)
    elapsed = time.monotonic() - started
    assert elapsed < 2.5, f"the call took {elapsed:.1f} s"
    assert late.value.status == 0 and "1 s deadline" in late.value.detail


@server
def test_the_async_client_keeps_the_same_deadline(hostile: HostileServer) -> None:
    async def call() -> None:
        async with AsyncClient(base_url=hostile.url, timeout=5, deadline=1) as api:
            await api.game(2)

    started = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        asyncio.run(call())
    assert time.monotonic() - started < 2.5


@server
def test_a_garbage_retry_after_raises_the_client_s_own_error(hostile: HostileServer) -> None:
    """Issue 45 finding 6: ``Retry-After: ²`` raised ValueError."""
    waits: list[float] = []
    with (
        Client(base_url=hostile.url, sleep=waits.append) as api,
        pytest.raises(RateLimited) as limited,
    ):
        api.game(4)
    assert limited.value.retry_after is None and waits == []
    assert hostile.paths == ["/api/v1/games/4"]  # not retried: no wait was given


class Streamed(httpx.AsyncByteStream):
    """A body the mock transport hands over as a stream, as a server's comes (the client
    reads every answer as a stream, counting its bytes)."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.body


def problem(status: int, code: str, **extra: object) -> Callable[[], httpx.Response]:
    """Return a maker of problem+json answers with the status and code (and the extra members
    given): a fresh answer each request."""
    body = {"type": f"{factories.SITE}/docs/errors#{code}", "title": code, "status": status}
    body |= {"detail": f"a {code}", "code": code, "request_id": "r1", **extra}
    headers = {"Content-Type": "application/problem+json"}
    headers |= {"Retry-After": "2"} if status in (429, 503) else {}
    return lambda: httpx.Response(status, headers=headers, stream=Streamed(orjson.dumps(body)))


@pytest.mark.parametrize(
    ("status", "code", "raised"),
    [
        pytest.param(404, "game_not_found", NotFound, id="404-not-found"),
        pytest.param(404, "game_not_rated", GameNotRated, id="404-not-rated"),
        pytest.param(401, "invalid_key", AuthenticationFailed, id="401"),
        pytest.param(403, "insufficient_scope", PermissionDenied, id="403"),
        pytest.param(429, "quota_exceeded", RateLimited, id="429"),
        pytest.param(503, "unavailable", Unavailable, id="503"),
        pytest.param(502, None, ServerError, id="502-no-problem"),
    ],
)
def test_an_answer_becomes_its_exception_through_a_mock_transport(
    status: int, code: str | None, raised: type[ApiError]
) -> None:
    extra = (
        {"appid": 77, "name": "", "reason": "too_few_reviews"} if code == "game_not_rated" else {}
    )
    answer = (
        problem(status, code, **extra)
        if code
        else lambda: httpx.Response(status, stream=Streamed(b"bad gateway"))
    )
    asked: list[httpx.Request] = []

    def reply(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        return answer()

    waits: list[float] = []
    api = Client(
        "bsk_x",
        base_url="http://api.test",
        transport=httpx.MockTransport(reply),
        sleep=waits.append,
    )
    with api, pytest.raises(raised) as caught:
        api.game(77)
    assert type(caught.value) is raised
    assert (caught.value.status, caught.value.code) == (status, code)
    assert asked[0].url == "http://api.test/api/v1/games/77"
    assert asked[0].headers["authorization"] == "Bearer bsk_x"
    retried = status in (429, 503)
    assert (len(asked), waits) == ((4, [2.0] * 3) if retried else (1, []))
    assert caught.value.request_id == ("r1" if code else None)


def test_a_404_is_the_clients_not_found_and_no_server_refusal() -> None:
    # `except NotFound` (the client's) catches a 404; the server's refusal class is another.
    from bangscore.errors import ResourceNotFound

    api = Client(
        "bsk_x",
        base_url="http://api.test",
        transport=httpx.MockTransport(lambda _: problem(404, "not_found")()),
    )
    with api, pytest.raises(NotFound) as caught:
        api.usage()
    assert not isinstance(caught.value, ResourceNotFound)


@pytest.fixture(scope="module")
def two_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ShimServer, Any]]:
    """A server over two builds of the small catalogue (the second with changes), and them."""
    state = tmp_path_factory.mktemp("client-changes")
    builds = two_builds(state / "snapshots")
    server = ShimServer(state, state / "server.log", site_url=factories.SITE).start()
    try:
        yield server, builds
    finally:
        server.stop()


@server
def test_iter_changes_walks_every_change_since_a_snapshot(two_served: Any) -> None:
    shim, builds = two_served
    key = add_key(shim.state_dir, plan="free", limit=100)
    with Client(key, base_url=shim.url) as api:
        page = api.changes(builds.first)
        assert (page.since, page.snapshot, page.page) == (builds.first, builds.second, 1)
        walked = list(api.iter_changes(builds.first))
        assert walked == page.changes and page.total == len(walked) > 0
        assert {c.snapshot for c in walked} == {builds.second}
        assert api.changes(builds.second).total == 0
        with pytest.raises(HistoryExpired) as caught:
            api.changes("20200101T000000Z-0000")
    assert (caught.value.status, caught.value.code) == (410, "history_expired")
    assert (caught.value.oldest, caught.value.snapshot) == (builds.first, builds.second)


@server
def test_the_async_client_walks_the_same_changes(two_served: Any) -> None:
    shim, builds = two_served
    key = add_key(shim.state_dir, plan="free", limit=100)

    async def walk() -> list[Any]:
        async with AsyncClient(key, base_url=shim.url) as api:
            return [c async for c in api.iter_changes(builds.first)]

    with Client(key, base_url=shim.url) as api:
        assert asyncio.run(walk()) == list(api.iter_changes(builds.first))
