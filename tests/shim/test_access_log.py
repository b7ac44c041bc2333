"""The structured access log (shim/access_log.py): the line's fields, keys removed, buffered
writes in whole lines, and every request of an app logged once."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from bangscore.shim.access_log import (
    CHUNK_BYTES,
    PIPE_BUF,
    SHORT_PATH_CHARS,
    AccessLog,
    Entry,
    clean_path,
    format_line,
    rfc3339_ms,
)
from bangscore.stores.keys import generate_key, key_id
from tests.support import factories
from tests.support.factories import add_key

KEY = generate_key()
KEY_ID = key_id(KEY)

PATHS = [
    pytest.param("/api/v1/games", b"", "/api/v1/games", id="no-query"),
    pytest.param("/api/v1/games", b"genre=rpg&page=2", "/api/v1/games?genre=rpg&page=2", id="kept"),
    pytest.param("/api/v1/games", f"api_key={KEY}".encode(), "/api/v1/games", id="only-key"),
    pytest.param(
        "/api/v1/games",
        f"genre=rpg&api_key={KEY}&page=2".encode(),
        "/api/v1/games?genre=rpg&page=2",
        id="key-between",
    ),
    pytest.param(
        "/api/v1/games",
        f"api%5Fkey={KEY}&page=2".encode(),
        "/api/v1/games?page=2",
        id="escaped-name",
    ),
    pytest.param("/api/v1/games", b"api_key=&page=1", "/api/v1/games?page=1", id="empty-key"),
    pytest.param(
        f"/api/v1/games/{KEY}", b"", f"/api/v1/games/bsk_{KEY_ID}\u2026", id="key-in-path"
    ),
    pytest.param(
        "/api/v1/search",
        f"q={KEY}".encode(),
        f"/api/v1/search?q=bsk_{KEY_ID}\u2026",
        id="key-in-other-parameter",
    ),
    pytest.param(
        "/api/v1/games",
        f"API_KEY={KEY}&page=2".encode(),
        "/api/v1/games?page=2",
        id="upper-case-name",
    ),
    pytest.param(
        "/api/v1/games", f"+api_key+={KEY}".encode(), "/api/v1/games", id="plus-spaced-name"
    ),
    pytest.param(
        "/api/v1/search",
        f"q=x{KEY}y".encode(),
        f"/api/v1/search?q=bsk_{KEY_ID}\u2026",
        id="key-glued-to-a-word",
    ),
    pytest.param(
        "/api/v1/search",
        b"q=" + KEY.replace("_", "%255F").encode(),
        f"/api/v1/search?q=bsk_{KEY_ID}\u2026",
        id="key-escaped-twice",
    ),
    pytest.param(
        "/api/v1/search",
        b"q=" + b"a" * 60,
        "/api/v1/search?q=" + "a" * 60,
        id="long-word-without-a-key",
    ),
]


@pytest.mark.parametrize(("path", "query", "expected"), PATHS)
def test_clean_path_removes_every_key(path: str, query: bytes, expected: str) -> None:
    cleaned = clean_path(path, query)
    assert cleaned == expected
    assert KEY not in cleaned and KEY[4:] not in cleaned


@pytest.mark.parametrize(
    "started",
    [
        pytest.param(1_795_000_000.25, id="quarter-second"),
        pytest.param(0.0, id="epoch"),
        pytest.param(3_663_084_434.8749995, id="rounds-to-the-microsecond-first"),
        pytest.param(1_795_000_000.9999996, id="rounds-into-the-next-second"),
        pytest.param(1_795_000_000.0004999, id="just-under-a-millisecond"),
    ],
)
def test_the_time_reads_as_datetime_writes_it(started: float) -> None:
    expected = dt.datetime.fromtimestamp(started, dt.UTC).isoformat(timespec="milliseconds")
    assert rfc3339_ms(started) == expected


@given(st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_the_time_matches_datetime_for_any_instant(started: float) -> None:
    expected = dt.datetime.fromtimestamp(started, dt.UTC).isoformat(timespec="milliseconds")
    assert rfc3339_ms(started) == expected


def _entry(n: int = 0, query: bytes = b"") -> Entry:
    return (
        1_795_000_000.25,
        f"{n:016x}",
        "GET",
        '/api/v1/games"quoted',
        query,
        200,
        914,
        123,
        "AbCdEfGh",
        "203.0.113.9",
    )


def test_a_line_is_one_json_object_with_every_field() -> None:
    line = format_line(_entry(7, f"api_key={KEY}".encode()))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert orjson.loads(line) == {
        "time": "2026-11-18T11:06:40.250+00:00",
        "request_id": "0000000000000007",
        "method": "GET",
        "path": '/api/v1/games"quoted',
        "status": 200,
        "bytes": 914,
        "us": 123,
        "key_id": "AbCdEfGh",
        "client": "203.0.113.9",
    }
    assert KEY.encode() not in line


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    yield read_end, write_end
    os.close(read_end)
    os.close(write_end)


def _drain(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return out
        if not chunk:
            return out
        out += chunk


def test_nothing_is_written_until_a_flush_and_close_writes_everything(
    pipe: tuple[int, int],
) -> None:
    read_end, write_end = pipe
    log = AccessLog(write_end)
    for n in range(200):
        log.record(_entry(n))
    assert _drain(read_end) == b""  # recording never writes
    log.close()
    lines = _drain(read_end).splitlines()
    assert [orjson.loads(line)["request_id"] for line in lines] == [f"{n:016x}" for n in range(200)]
    assert log.written == 200


def test_writes_are_whole_lines_of_at_most_pipe_buf(tmp_path: Path) -> None:
    class Recording(AccessLog):
        def __init__(self) -> None:
            super().__init__(-1)
            self.writes: list[bytes] = []

        def _write(self, data: bytes) -> bool:
            self.writes.append(data)
            return True

    log = Recording()
    for n in range(300):
        log.record(_entry(n))
    log.close()
    assert len(log.writes) > 1
    assert all(len(w) <= CHUNK_BYTES and w.endswith(b"\n") for w in log.writes)
    assert sum(w.count(b"\n") for w in log.writes) == 300


def test_an_app_logs_each_request_with_its_key_id(
    tmp_path: Path, small_snapshot: Any, pipe: tuple[int, int]
) -> None:
    read_end, write_end = pipe
    log = AccessLog(write_end)
    app, store, _ = factories.make_app(small_snapshot[0], tmp_path, access_log=log)
    key = add_key(store)
    with TestClient(app, base_url=factories.SITE) as client:
        ok = client.get(f"/api/v1/games?api_key={key}&genre=rpg")
        again = client.get(f"/api/v1/games?api_key={key}&genre=rpg")  # the edge's fast path
        missing = client.get("/nowhere")
    log.close()  # the lifespan closed it too: closing twice is harmless
    lines = [orjson.loads(line) for line in _drain(read_end).splitlines()]
    assert [(e["path"], e["status"], e["key_id"]) for e in lines] == [
        ("/api/v1/games?genre=rpg", 200, key_id(key)),
        ("/api/v1/games?genre=rpg", 200, key_id(key)),
        ("/nowhere", 404, None),
    ]
    responses = (ok, again, missing)
    assert [e["request_id"] for e in lines] == [r.headers["x-request-id"] for r in responses]
    # Bytes of the body as sent: the gzip representation's here.
    assert [e["bytes"] for e in lines] == [int(r.headers["content-length"]) for r in responses]
    assert lines[0]["bytes"] < len(ok.content)
    assert all(e["client"] == "testclient" and e["us"] > 0 for e in lines)
    assert key[4:] not in str(lines)


# -- bounded, atomic, one line a line (issue 36) -------------------------------------------------


def _long(n: int, path: str, client: str = "203.0.113.9") -> Entry:
    return (1_795_000_000.25, f"{n:016x}", "GET", path, b"", 404, 100, 5, None, client)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/" + "a" * 15_000, id="ascii"),
        pytest.param("/" + "\u4e2d" * 5_000, id="three-byte-characters"),
        pytest.param("/" + "\x01" * 5_000, id="six-byte-escapes"),
    ],
)
def test_a_line_is_cut_under_pipe_buf_with_a_marker(path: str) -> None:
    line = format_line(_long(1, path))
    assert len(line) <= PIPE_BUF and line.endswith(b"\n")
    logged = orjson.loads(line)["path"]
    assert "...[cut " in logged and path.startswith(logged.partition("...[cut ")[0])


def test_line_separators_are_escaped() -> None:
    line = format_line(_long(1, "/a\u2028b\u2029c\x85d"))
    assert len(line.decode().splitlines()) == 1
    assert orjson.loads(line)["path"] == "/a\u2028b\u2029c\x85d"


def test_a_client_past_its_share_gets_short_paths_and_others_do_not() -> None:
    log = AccessLog(-1, client_long_bytes=10_000)
    for n in range(10):
        log.record(_long(n, "/" + "x" * 3000, client="198.51.100.1"))
    log.record(_long(10, "/" + "y" * 3000, client="198.51.100.2"))
    lengths = [len(orjson.loads(line)["path"]) for line in log.pending]
    assert all(2000 < n <= 2048 for n in lengths[:3])
    assert all(SHORT_PATH_CHARS - 2 <= n <= SHORT_PATH_CHARS for n in lengths[3:10])
    assert 2000 < lengths[10] <= 2048  # another client's share is its own
    assert log.cut_lines == 7


def test_a_full_queue_drops_and_counts(pipe: tuple[int, int]) -> None:
    _, write_end = pipe
    log = AccessLog(write_end, queue_bytes=64 * 1024, close_seconds=0.2, report_fd=write_end)
    for n in range(2000):
        log.record(_entry(n))
    assert log.dropped_full > 0
    assert sum(len(line) for line in log.pending) <= 64 * 1024


def test_close_never_waits_on_a_reader_that_never_reads(pipe: tuple[int, int]) -> None:
    _, write_end = pipe
    report_read, report_write = os.pipe()
    os.set_blocking(report_read, False)
    log = AccessLog(write_end, close_seconds=0.3, report_fd=report_write)
    for n in range(3000):  # about 600 KB: far more than the pipe's 64 KiB
        log.record(_entry(n))
    log.flush()
    started = time.monotonic()
    log.close()
    assert time.monotonic() - started < 2.0
    assert log.written + log.dropped == 3000 and log.dropped > 0
    assert b"lines dropped" in _drain(report_read)
    os.close(report_read)
    os.close(report_write)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param(b"t=abc.def", "/p?t=[redacted]", id="watch-token"),
        pytest.param(b"expires=1&signature=xyz", "/p?expires=1&signature=[redacted]", id="export"),
        pytest.param(b"X-Amz-Signature=abc&a=1", "/p?X-Amz-Signature=[redacted]&a=1", id="s3"),
        pytest.param(b"%74=abc", "/p?%74=[redacted]", id="escaped-name"),
        pytest.param(b"at=1&tt=2", "/p?at=1&tt=2", id="other-names-kept"),
    ],
)
def test_token_parameters_are_redacted(query: bytes, expected: str) -> None:
    assert clean_path("/p", query) == expected
