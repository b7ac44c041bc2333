"""The rows of issue 36 for ``make bench``: the access log's cost (p99 and throughput with the
log on against off) and a replica's start on the real snapshot (spawn to first answer).

Run alone on a state folder holding the real snapshot (``bangscore build``) and a key store::

    python -m bench.harden --state DIR [--seconds 10] [--starts 3] [--out FILE]

The access-log rows: one ``bangscore serve --workers 1`` over the real snapshot, ``--quiet``
and then with its access log on (standard output to a file, as production's journald takes
it), each loaded by wrk (:mod:`bench.wrk`, 64 connections) on the precomputed list page with a
bulk key whose limit no run reaches; the two runs alternate ``rounds`` times and each figure is
the median. The start row: ``bangscore serve`` spawned ``starts`` times, the time from
``Popen`` to the first 200 of a keyed ``/api/v1/games`` (polled every 10 ms), median and
worst.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bangscore.stores import open_stores
from bangscore.stores.keystore import issue_key
from bangscore.stores.secret import load_session_secret
from bench.servers import PY, REPO, free_port, serving, wait_warm
from bench.wrk import WrkResult, wrk

LIST_PATH = "/api/v1/games?genre=rpg"
BULK_LIMIT = 1_000_000_000
START_SECONDS = 120.0


@dataclass(frozen=True)
class LogFigures:
    """Median wrk figures with the access log off and on: requests/s and p99 (ms)."""

    off_rps: float
    on_rps: float
    off_p99_ms: float
    on_p99_ms: float

    @property
    def throughput_ratio(self) -> float:
        """Return log-on requests/s over log-off requests/s."""
        return self.on_rps / self.off_rps

    @property
    def p99_ratio(self) -> float:
        """Return log-on p99 over log-off p99."""
        return self.on_p99_ms / self.off_p99_ms


def bench_key(state: Path) -> str:
    """Given a state folder with a SQLite key store, issue a bulk key no run exhausts; return
    it."""
    store = open_stores(f"sqlite:///{state / 'bangscore.sqlite3'}")
    try:
        key, _ = issue_key(store.keys, "bench@bangscore.local", "bulk", BULK_LIMIT, 0)
    finally:
        store.close()
    load_session_secret(None, state)  # as `keys create` does: serve creates none
    return key


def serve_command(state: Path, port: int, *, quiet: bool) -> list[str]:
    """Given a state folder, a port and whether the log is off, return the serve command."""
    args = [PY, "-m", "bangscore", "--state-dir", str(state), "serve", "--port", str(port)]
    return [*args, "--workers", "1", *(["--quiet"] if quiet else [])]


def measure_log(state: Path, key: str, seconds: float, rounds: int, logs: Path) -> LogFigures:
    """Given a state folder, a key, wrk seconds per run and rounds, return the median figures
    of the list page with the log off and on (alternating, so drift hits both alike)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    auth = {"Authorization": f"Bearer {key}"}
    runs: dict[bool, list[WrkResult]] = {True: [], False: []}
    for n in range(rounds):
        for quiet in (True, False):
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            log = logs / f"{'quiet' if quiet else 'logged'}-{n}.log"
            with serving(serve_command(state, port, quiet=quiet), f"{url}/metrics", log, env):
                wait_warm(url, auth)
                figure = wrk(url + LIST_PATH, seconds, headers=auth)
            runs[quiet].append(figure)
            print("log", "off" if quiet else "on", figure, flush=True)
    return LogFigures(
        off_rps=statistics.median(r.rps for r in runs[True]),
        on_rps=statistics.median(r.rps for r in runs[False]),
        off_p99_ms=statistics.median(r.p99_ms for r in runs[True]),
        on_p99_ms=statistics.median(r.p99_ms for r in runs[False]),
    )


@contextlib.contextmanager
def spawned_until(
    args: Sequence[str], ready: Callable[[], bool], log: Path, limit: float = START_SECONDS
) -> Iterator[tuple[float, subprocess.Popen[bytes]]]:
    """Given a serve command line, a check of readiness, a log file and a limit in seconds,
    spawn the server (no BANGSCORE_ variable of ours), poll ``ready`` every 10 ms and yield
    (seconds from spawn until it was true, the process), stopping the server afterwards.
    RuntimeError if it exits or is not ready within ``limit``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    with open(log, "ab") as out:
        began = time.perf_counter()
        process = subprocess.Popen(list(args), cwd=REPO, stdout=out, stderr=out, env=env)
    try:
        while not ready():
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with {process.returncode}")
            if time.perf_counter() - began > limit:
                raise RuntimeError(f"not ready within {limit} s")
            time.sleep(0.01)
        yield time.perf_counter() - began, process
    finally:
        process.terminate()
        process.wait(30)


def answers(url: str, headers: dict[str, str] | None = None) -> bool:
    """Given a URL (and headers), return True when it answers 200 (redirects followed)."""
    try:
        got = httpx.get(url, headers=headers, timeout=2.0, follow_redirects=True)
        return got.status_code == 200
    except httpx.HTTPError:
        return False


def measure_start(state: Path, key: str, starts: int, logs: Path) -> list[float]:
    """Given a state folder and a key, spawn the server ``starts`` times; return the seconds
    from spawn to its first 200 on a keyed list page, each."""
    auth = {"Authorization": f"Bearer {key}"}
    figures = []
    for n in range(starts):
        port = free_port()
        ready = functools.partial(answers, f"http://127.0.0.1:{port}{LIST_PATH}", auth)
        command = serve_command(state, port, quiet=True)
        with spawned_until(command, ready, logs / f"start-{n}.log") as (seconds, _):
            figures.append(seconds)
        print(f"start {n}: {figures[-1]:.2f} s", flush=True)
    return figures


def manifest_entries(state: Path) -> int:
    """Given a state folder, return how many entries its current snapshot's manifest holds
    (0 with none published)."""
    from bangscore.manifest import read_manifest_view
    from bangscore.storage import LocalStorage

    storage = LocalStorage(state / "snapshots")
    pointer = storage.read_pointer()
    return len(read_manifest_view(storage, pointer).entries) if pointer else 0


def section(log: LogFigures | None, starts: Sequence[float], entries: int) -> list[str]:
    """Given the log figures and the start times, return the report's markdown section."""
    lines = ["## Hardening, round 5 (issue 36)", ""]
    if log is not None:
        lines += [
            "The shim on the real snapshot, one worker, the precomputed list page with a bulk "
            "key, wrk with 64 connections; medians of alternating runs, the access log off "
            "(`--quiet`) and on (standard output to a file).",
            "",
            "| access log | req/s | p99 ms |",
            "|---|---:|---:|",
            f"| off | {log.off_rps:,.0f} | {log.off_p99_ms:.2f} |",
            f"| on | {log.on_rps:,.0f} | {log.on_p99_ms:.2f} |",
            "",
        ]
    if starts:
        lines += [
            f"A replica's start on the real snapshot ({entries:,} manifest entries): from "
            "spawning `bangscore serve` to its first 200 on a keyed list page, "
            f"{len(starts)} starts.",
            "",
            "| start | seconds |",
            "|---|---:|",
            f"| median | {statistics.median(starts):.2f} |",
            f"| worst | {max(starts):.2f} |",
            "",
        ]
    lines += ["| target (issue 36) | measured | reached |", "|---|---|---|"]
    if log is not None:
        lines.append(
            f"| log on p99 within 1.5x log off | {log.p99_ratio:.2f}x | "
            f"{'reached' if log.p99_ratio <= 1.5 else '**not reached**'} |"
        )
        lines.append(
            f"| log on throughput >= 0.9x log off | {log.throughput_ratio:.2f}x | "
            f"{'reached' if log.throughput_ratio >= 0.9 else '**not reached**'} |"
        )
    if starts:
        worst = max(starts)
        lines.append(
            f"| replica start to first answer < 2 s | {statistics.median(starts):.2f} s median, "
            f"{worst:.2f} s worst | {'reached' if worst < 2 else '**not reached**'} |"
        )
    return [*lines, ""]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the rows of issue 36 on ``--state``; print the section (and write it to --out)."""
    parser = argparse.ArgumentParser(prog="python -m bench.harden")
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--skip-log", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    logs = args.state / "bench-logs"
    logs.mkdir(exist_ok=True)
    key = bench_key(args.state)
    starts = measure_start(args.state, key, args.starts, logs) if args.starts else []
    log = None if args.skip_log else measure_log(args.state, key, args.seconds, args.rounds, logs)
    text = "\n".join(section(log, starts, manifest_entries(args.state)))
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
