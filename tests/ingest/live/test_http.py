"""Polite client over real sockets: retries, Retry-After, rate limit, cache, no network."""

from __future__ import annotations

import datetime as dt
import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from bangscore.errors import AnswerRefused, SourceError, SourceUnreachableError
from bangscore.ingest.live.http import (
    ClientSettings,
    PoliteClient,
    RateLimit,
    ResponseCache,
    TokenBucket,
    parse_retry_after,
)
from tests.ingest.replay import Handler, ReplayFactory, Reply, fixture_bytes, ok

DAY = dt.date(2025, 3, 1)
MakeClient = Callable[..., tuple[PoliteClient, list[float]]]


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[MakeClient]:
    made: list[PoliteClient] = []

    def make(
        *, attempts: int = 4, cache: bool = True, day: dt.date = DAY
    ) -> tuple[PoliteClient, list[float]]:
        waits: list[float] = []
        settings = ClientSettings(
            timeout_seconds=5,
            attempts=attempts,
            backoff_base_seconds=1.0,
            backoff_max_seconds=60.0,
            default_rate_limit=RateLimit(1000, 1.0),
        )
        store = ResponseCache(tmp_path / "cache", day) if cache else None
        made.append(PoliteClient(settings, store, sleep=waits.append))
        return made[-1], waits

    yield make
    for client in made:
        client.close()


def flaky(statuses: list[int], headers: dict[str, str], body: bytes) -> Handler:
    """A handler answering each status in turn (with ``headers``), then 200 with ``body``."""
    remaining = list(statuses)

    def handle(query: dict[str, str], _: bytes) -> Reply:
        if remaining:
            return remaining.pop(0), headers, b"{}"
        return ok(body)

    return handle


@pytest.mark.parametrize(
    ("statuses", "headers", "expected_waits"),
    [
        ([429], {"Retry-After": "7"}, [7.0]),
        ([503, 503], {}, [1.0, 2.0]),
        ([429], {"Retry-After": "3600"}, [60.0]),
        ([502], {"Retry-After": "not-a-date"}, [1.0]),
    ],
    ids=["429-retry-after-seconds", "5xx-exponential-backoff", "retry-after-capped", "bad-header"],
)
def test_retries_then_succeeds(
    replay: ReplayFactory,
    make_client: MakeClient,
    statuses: list[int],
    headers: dict[str, str],
    expected_waits: list[float],
) -> None:
    body = fixture_bytes("storefront/appdetails_620_usd.json")
    server = replay({("GET", "/api/appdetails"): flaky(statuses, headers, body)})
    client, waits = make_client()
    with client:
        payload = client.get_json(f"{server.base_url}/api/appdetails", {"appids": 620, "cc": "us"})
    assert payload["620"]["data"]["price_overview"]["currency"] == "USD"
    assert waits == expected_waits
    assert len(server.hits) == len(statuses) + 1


def test_gives_up_after_attempts_with_source_error(
    replay: ReplayFactory, make_client: MakeClient
) -> None:
    server = replay({("GET", "/x"): flaky([503] * 10, {}, b"{}")})
    client, waits = make_client(attempts=3)
    with client, pytest.raises(SourceError) as caught:
        client.get_json(f"{server.base_url}/x")
    assert caught.value.status == 503
    assert len(server.hits) == 3
    assert waits == [1.0, 2.0]


def test_client_error_is_not_retried(replay: ReplayFactory, make_client: MakeClient) -> None:
    server = replay({})
    client, _ = make_client()
    with client, pytest.raises(SourceError) as caught:
        client.get_json(f"{server.base_url}/missing")
    assert caught.value.status == 404
    assert len(server.hits) == 1


def test_cache_serves_rerun_same_day_and_refetches_next_day(
    replay: ReplayFactory, make_client: MakeClient
) -> None:
    body = fixture_bytes("hltb/search_half_life_alyx.json")
    server = replay({("POST", "/api/search"): lambda q, b: ok(body)})
    url = f"{server.base_url}/api/search"
    first, _ = make_client()
    with first:
        assert first.post_json(url, {"searchTerms": ["alyx"]})["data"][0]["game_id"] == 72067
    again, _ = make_client()
    with again:
        assert again.post_json(url, {"searchTerms": ["alyx"]})["count"] == 1
        assert (again.network_requests, again.cache_hits) == (0, 1)
        again.post_json(url, {"searchTerms": ["other"]})
    assert len(server.hits) == 2
    tomorrow, _ = make_client(day=DAY + dt.timedelta(days=1))
    with tomorrow:
        tomorrow.post_json(url, {"searchTerms": ["alyx"]})
    assert len(server.hits) == 3


def test_cache_key_ignores_query_order(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path, DAY)
    a = cache.path_for("GET", httpx.URL("http://h/p", params={"a": 1, "b": 2}), b"")
    b = cache.path_for("GET", httpx.URL("http://h/p", params={"b": 2, "a": 1}), b"")
    c = cache.path_for("GET", httpx.URL("http://h/p", params={"a": 1, "b": 3}), b"")
    assert a == b
    assert a != c
    assert a.parent == tmp_path / "2025-03-01" / "h"


def test_errors_are_not_cached(replay: ReplayFactory, make_client: MakeClient) -> None:
    server = replay({("GET", "/x"): flaky([500], {}, b'{"ok": 1}')})
    client, _ = make_client(attempts=1)
    with client, pytest.raises(SourceError):
        client.get_json(f"{server.base_url}/x")
    retry, _ = make_client(attempts=1)
    with retry:
        assert retry.get_json(f"{server.base_url}/x") == {"ok": 1}
    assert len(server.hits) == 2


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("http://127.0.0.1:1/api/appdetails", id="refused"),
        # RFC 2606 reserves .invalid: the name never resolves, whatever the network.
        pytest.param("http://bangscore-replay.invalid/api/appdetails", id="no-such-name"),
    ],
)
def test_unreachable_host_is_not_retried_and_marked_down(make_client: MakeClient, url: str) -> None:
    client, waits = make_client(attempts=5)
    host = httpx.URL(url).host
    netloc = httpx.URL(url).netloc.decode()
    with client:
        with pytest.raises(SourceUnreachableError, match=host):
            client.get_json(url)
        # A retry cannot cure a refused connection or a name that does not resolve.
        assert waits == []
        assert client.network_requests == 1
        assert netloc in client.down
        with pytest.raises(SourceUnreachableError, match=host):
            client.get_json(url.replace("appdetails", "appreviews/620"))
        assert client.network_requests == 1


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_token_bucket_bursts_then_paces_to_the_rate() -> None:
    clock = FakeClock()
    # 200 requests per 300 s: a full bucket of 200, then one token every 1.5 s.
    bucket = TokenBucket(RateLimit(200, 300.0), clock=clock, sleep=clock.sleep)
    waits = [bucket.acquire() for _ in range(202)]
    assert waits[:200] == [0.0] * 200
    assert waits[200:] == pytest.approx([1.5, 1.5])
    clock.now += 30.0  # 30 s idle refill 20 tokens
    assert [bucket.acquire() for _ in range(20)] == [0.0] * 20
    assert bucket.acquire() == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 120.0),
        ("Sat, 01 Mar 2025 00:00:30 GMT", 30.0),
        ("Fri, 28 Feb 2025 23:00:00 GMT", 0.0),
        ("soon", None),
        (None, None),
    ],
    ids=["seconds", "http-date", "past-date", "garbage", "absent"],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    now = dt.datetime(2025, 3, 1, tzinfo=dt.UTC)
    assert parse_retry_after(value, now) == expected


# -- hostile upstreams (issue 36) ----------------------------------------------------------------


def capped_client(tmp_path: Path, **knobs: float) -> PoliteClient:
    """Given caps (ClientSettings fields), return a cached client with no waiting."""
    settings = ClientSettings(
        timeout_seconds=5,
        attempts=3,
        default_rate_limit=RateLimit(1000, 1.0),
        **knobs,  # type: ignore[arg-type]
    )
    return PoliteClient(settings, ResponseCache(tmp_path / "cache", DAY), sleep=lambda s: None)


def cached_files(tmp_path: Path) -> list[Path]:
    return [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


BOMB = gzip.compress(b"\0" * (16 * 1024 * 1024))  # 16 MiB of zeros in about 16 KB


@pytest.mark.parametrize(
    ("knobs", "reply", "reason"),
    [
        pytest.param(
            {"max_body_bytes": 1 << 20},
            (200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, BOMB),
            "decoded",
            id="gzip-bomb-decoded",
        ),
        pytest.param(
            {"max_wire_bytes": 1 << 20},
            (200, {"Content-Type": "application/json"}, b"[" + b"0," * (1 << 20) + b"0]"),
            "bytes",
            id="too-large-on-the-wire",
        ),
    ],
)
def test_an_answer_past_the_size_caps_is_refused_and_not_cached(
    tmp_path: Path,
    replay: ReplayFactory,
    knobs: dict[str, float],
    reply: tuple[int, dict[str, str], bytes],
    reason: str,
) -> None:
    server = replay({("GET", "/big"): lambda q, b: reply})
    with capped_client(tmp_path, **knobs) as client, pytest.raises(AnswerRefused) as caught:
        client.get_json(f"{server.base_url}/big")
    assert reason in str(caught.value)
    assert len(server.hits) == 1  # refused, not retried
    assert cached_files(tmp_path) == []


def test_a_200_that_is_not_json_is_not_cached_and_the_rerun_asks_again(
    tmp_path: Path, replay: ReplayFactory
) -> None:
    denied = (200, {"Content-Type": "text/html"}, b"<html><h1>Access Denied</h1></html>")
    answers = [denied, ok({"items": [1]})]
    server = replay(
        {("GET", "/x"): lambda q, b: answers.pop(0) if len(answers) > 1 else answers[0]}
    )
    url = f"{server.base_url}/x"
    with capped_client(tmp_path) as client, pytest.raises(ValueError):
        client.get_json(url)
    assert cached_files(tmp_path) == []
    with capped_client(tmp_path) as rerun:
        assert rerun.get_json(url) == {"items": [1]}
        assert rerun.network_requests == 1
    with capped_client(tmp_path) as third:
        assert third.get_json(url) == {"items": [1]}
        assert (third.network_requests, third.cache_hits) == (0, 1)
    assert len(server.hits) == 2


def test_a_body_the_adapter_refuses_is_not_cached_and_a_bad_cached_one_is_dropped(
    tmp_path: Path, replay: ReplayFactory
) -> None:
    server = replay({("GET", "/x"): lambda q, b: ok({"unexpected": True})})
    url = f"{server.base_url}/x"

    def parse(decoded: dict[str, object]) -> object:
        return decoded["items"]  # KeyError: the shape the adapter expects is not there

    with capped_client(tmp_path) as client, pytest.raises(KeyError):
        client.get_json(url, parse=parse)
    assert cached_files(tmp_path) == []
    with capped_client(tmp_path) as plain:
        assert plain.get_json(url) == {"unexpected": True}  # cached: it is JSON
    assert len(cached_files(tmp_path)) == 1
    with capped_client(tmp_path) as strict, pytest.raises(KeyError):
        strict.get_json(url, parse=parse)  # the cached body does not parse: fetched again
    assert len(server.hits) == 3


# What the trickling server sends, one byte every 50 ms: a 200 whose 200-byte body trickles
# after a quick head, or a head that trickles (a 200-byte header: 10 s before any body).
TRICKLED_BODY = (b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n", b" " * 200)
TRICKLED_HEAD = (
    b"",
    b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 200 + b"\r\nContent-Length: 2\r\n\r\n{}",
)


@pytest.fixture(params=[TRICKLED_BODY, TRICKLED_HEAD], ids=["body", "head"])
def trickle(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server that answers every request with a 200 sending first its quick part at once,
    then its slow part one byte every 50 ms (10 s in all): each read is quick (the read
    timeout never fires), the whole never ends in time."""
    quick, slow = request.param
    stop = threading.Event()
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(quick)
                for byte in slow:
                    if stop.wait(0.05):
                        break
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/slow"
    stop.set()
    thread.join(5)
    listener.close()


def test_a_request_ends_at_its_deadline_however_slowly_the_bytes_come(
    tmp_path: Path, trickle: str
) -> None:
    started = time.monotonic()
    with capped_client(tmp_path, deadline_seconds=0.5) as client, pytest.raises(AnswerRefused):
        client.get_json(trickle)
    assert time.monotonic() - started < 3.0  # the slow part alone takes 10 s
    assert client.network_requests == 1


def test_a_redirect_is_followed_on_the_same_host_only(
    tmp_path: Path, replay: ReplayFactory
) -> None:
    elsewhere = replay({("GET", "/latest/meta-data"): lambda q, b: ok({"secret": 1})})
    other = elsewhere.base_url.replace("127.0.0.1", "localhost")
    server = replay(
        {
            ("GET", "/moved"): lambda q, b: (302, {"Location": "/here"}, b""),
            ("GET", "/here"): lambda q, b: ok({"here": 1}),
            ("GET", "/away"): lambda q, b: (302, {"Location": f"{other}/latest/meta-data"}, b""),
        }
    )
    with capped_client(tmp_path) as client:
        assert client.get_json(f"{server.base_url}/moved") == {"here": 1}
        assert client.network_requests == 2  # each hop takes a token of the host's bucket
        with pytest.raises(AnswerRefused) as caught:
            client.get_json(f"{server.base_url}/away")
    assert "another host" in str(caught.value)
    assert elsewhere.hits == []
    assert server.paths() == ["/moved", "/here", "/away"]
