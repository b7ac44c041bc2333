"""A paired regression check: this checkout against an earlier commit, on the same machine in
the same run, so the machine's drift hits both alike (``make bench-compare REF=<commit>``).

``make bench`` compares each run with bare Starlette and nginx, and a regression shows only
as a ratio that fell since the last RESULTS.md. On a shared two-core machine those ratios
move 10-15% between runs of the same code, which is as large as the regressions to be found.
Here both versions run side by side instead:

- the earlier commit's tree is taken with ``git archive`` (its code and its bundled dumps) and
  run with this checkout's virtual environment, its own package first on ``PYTHONPATH``; so
  is this checkout's, as its tracked files were at the start (:func:`working_tree`);
- each version builds the real catalogue from its own bundled dumps, ``--build-rounds`` times,
  in alternating order; the figure is each build's CPU seconds (user + system);
- each version's shim serves its own last build (one worker, quota counting on with a bulk
  key), and the same wrk loads as ``make bench`` run ``--rounds`` times, the two versions
  alternating which goes first; the figure is the median per load;
- the fixed loads run again with each version's key store on one redis-server (a database
  each), where the quota leases blocks and recalls them;
- the rotating loads meet cold caches in their first round (as in ``make bench``) and warm
  ones after, alike for both;
- a row whose throughput fell below 0.9 of the earlier commit's (a build whose CPU rose past
  1.1x) is marked a regression.

    .venv/bin/python -m bench.compare 3cb03e9 [--rounds 3] [--seconds 5] [--build-rounds 2]
    .venv/bin/python -m bench.compare 3cb03e9 --states REF_STATE HEAD_STATE  # serving only
    .venv/bin/python -m bench.compare 3cb03e9 --rounds 0 --build-rounds 4  # builds only
    .venv/bin/python -m bench.compare 3cb03e9 --states REF HEAD --redis-only  # quota on Redis

The Markdown report goes to ``--out`` (default bench/COMPARE.md). A load the earlier commit
does not serve (a later endpoint) is left out of both.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import math
import os
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.builds import measure_build
from bench.catalogs import (
    common_tag,
    composed_rotation,
    detail_records,
    lookup_path,
    search_words,
    shim_composed,
)
from bench.machine import machine
from bench.report import BULK_LIMIT
from bench.run import DETAIL_APPID, ROTATIONS, SEARCH_WORD, work_folder
from bench.servers import PY, REPO, free_port, redis_server, serving, wait_warm
from bench.wrk import WrkResult, process_cpu, rotation_script, wrk

FLOOR = 0.9  # throughput below this share of the earlier commit's is a regression
CEILING = 1.1  # a build's CPU seconds above this multiple of the earlier commit's is one

# Run by each version's own code: a bulk key in its key store, and the session secret its
# serve command reads (as `keys create` would make).
_ISSUE_KEY = """
import sys
from pathlib import Path
from bangscore.stores.keystore import issue_key
from bangscore.stores.secret import load_session_secret
try:  # the stores by job (issue 59); an earlier commit has one key store
    from bangscore.stores import open_stores
    def keys_of(url):
        stores = open_stores(url)
        return stores.keys, stores.close
except ImportError:
    from bangscore.stores import open_key_store
    def keys_of(url):
        store = open_key_store(url)
        return store, store.close
state = Path(sys.argv[1])
keys, close = keys_of(f"sqlite:///{state / 'bangscore.sqlite3'}")
key, record = issue_key(keys, "bench@bangscore.local", "bulk", int(sys.argv[2]), 0)
close()
if len(sys.argv) > 3:  # a Redis store: the same key copied there (its record holds the digest)
    redis, close = keys_of(sys.argv[3])
    redis.add_key(record)
    close()
load_session_secret(None, state)
print(key)
"""
# The loads run again with each version's key store on Redis (the quota's leases and recalls).
REDIS_LOADS = ("precomputed list page", "detail record", "composed filter page", "304 revalidation")


@dataclass(frozen=True)
class Side:
    """One version under test: its label (``ref``/``head`` and the commit), its source tree,
    and the environment its processes run in (its tree first on ``PYTHONPATH``)."""

    label: str
    tree: Path
    env: dict[str, str]


@dataclass(frozen=True)
class Row:
    """One load's paired figures: medians of requests per second and of p50 and p99 latency
    (ms) for the earlier commit (``ref``) and this checkout (``head``), the non-2xx/3xx answers
    and socket errors over all its runs (a figure of failures measures nothing), the medians of
    each server's CPU microseconds per request (NaN when not measured), and whether it
    regressed."""

    name: str
    ref_rps: float
    head_rps: float
    ref_p50: float
    ref_p99: float
    head_p50: float
    head_p99: float
    failed: int = 0
    ref_cpu_us: float = math.nan
    head_cpu_us: float = math.nan

    @property
    def ratio(self) -> float:
        """Return head's throughput as a share of ref's (NaN if ref answered nothing)."""
        return self.head_rps / self.ref_rps if self.ref_rps > 0 else float("nan")

    @property
    def regressed(self) -> bool:
        """Return True if head's throughput fell below :data:`FLOOR` of ref's (a NaN ratio is
        not a regression: there is nothing to compare)."""
        return self.ratio < FLOOR


def side_env(tree: Path) -> dict[str, str]:
    """Given a source tree, return the environment its processes run in: this one without
    ``BANGSCORE_*`` settings, with ``tree`` first on ``PYTHONPATH`` (ahead of the editable
    install's finder, so ``import bangscore`` is that tree's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    env["PYTHONPATH"] = str(tree)
    return env


def checkout(ref: str, folder: Path, repo: Path = REPO) -> str:
    """Given a commit-ish of ``repo`` and a folder that does not exist yet, extract the
    commit's tree into it with ``git archive``; return its short hash. Raises RuntimeError if
    git does not know the ref."""
    found = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", f"{ref}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0:
        raise RuntimeError(f"unknown commit {ref!r}: {found.stderr.strip()}")
    folder.mkdir(parents=True)
    with subprocess.Popen(
        ["git", "-C", str(repo), "archive", "--format=tar", ref], stdout=subprocess.PIPE
    ) as archive:
        subprocess.run(["tar", "-x", "-C", str(folder)], stdin=archive.stdout, check=True)
    if archive.returncode != 0:
        raise RuntimeError(f"git archive {ref} failed")
    return found.stdout.strip()


def head_label(repo: Path = REPO) -> str:
    """Return the checkout's short hash, with ``-dirty`` when it has uncommitted changes."""
    out = subprocess.run(
        ["git", "-C", str(repo), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def working_tree(repo: Path = REPO) -> str:
    """Return a commit of the checkout's tracked files as they are now (``git stash create``,
    which touches neither the files nor the stash), or ``HEAD`` when nothing is changed: taken
    with :func:`checkout`, a run of twenty minutes measures the code as it was at its start,
    whatever is edited meanwhile. Untracked files are not in it."""
    # The commit needs a name only: a machine without a git identity must not refuse it.
    who = {"GIT_AUTHOR_NAME": "bench.compare", "GIT_AUTHOR_EMAIL": "bench@localhost"}
    who |= {"GIT_COMMITTER_NAME": "bench.compare", "GIT_COMMITTER_EMAIL": "bench@localhost"}
    out = subprocess.run(
        ["git", "-C", str(repo), "stash", "create"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **who},
    )
    return out.stdout.strip() or "HEAD"


def median_row(name: str, ref: Sequence[WrkResult], head: Sequence[WrkResult]) -> Row:
    """Given one load's wrk figures per round for each version, return its row of medians."""
    return Row(
        name,
        statistics.median(r.rps for r in ref),
        statistics.median(r.rps for r in head),
        statistics.median(r.p50_ms for r in ref),
        statistics.median(r.p99_ms for r in ref),
        statistics.median(r.p50_ms for r in head),
        statistics.median(r.p99_ms for r in head),
        sum(r.non_2xx + r.errors for r in (*ref, *head)),
        _median_cpu(ref),
        _median_cpu(head),
    )


def _micros(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.0f}"


def _median_cpu(results: Sequence[WrkResult]) -> float:
    measured = [r.cpu_us for r in results if r.cpu_us is not None]
    return statistics.median(measured) if measured else math.nan


def build_cpu(side: Side, state: Path, games: int) -> float:
    """Given a version and an empty state folder, build the real catalogue from the version's
    bundled dumps into it; return the build's CPU seconds. Raises RuntimeError if it fails."""
    figure = measure_build(side.label, None, state, games, repo=side.tree, env=side.env)
    return figure.cpu_seconds


def issue_bench_key(side: Side, state: Path, redis_url: str | None = None) -> str:
    """Given a version, its built state folder and the Redis store it serves from (None: the
    state's SQLite store), issue a bulk key with that version's code; return the key."""
    out = subprocess.run(
        [PY, "-c", _ISSUE_KEY, str(state), str(BULK_LIMIT), *([redis_url] if redis_url else [])],
        cwd=side.tree,
        env=side.env,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


# A load: given the server's URL, a key's headers and the server's CPU seconds so far, run wrk.
Load = Callable[[str, Mapping[str, str], Callable[[], float]], WrkResult]


def loads(state: Path, work: Path, seconds: float) -> dict[str, tuple[str, Load]]:
    """Given head's built state (its records name the paths) and a work folder, return the
    loads by row name as (a path to check that both versions answer, the wrk run)."""
    records = detail_records(state / "snapshots")
    top_tags = [t for t, _ in Counter(t for r in records for t in r["tags"]).most_common(6)]
    composed = shim_composed("rpg,strategy", common_tag(records), 2010, 2020)
    comp = rotation_script(
        work, "composed", [shim_composed(*c) for c in composed_rotation(top_tags, ROTATIONS)]
    )
    words = [f"/api/v1/search?q={w}" for w in search_words(records, ROTATIONS)]
    search = rotation_script(work, "search", words)
    detail = f"/api/v1/games/{DETAIL_APPID}"

    def fixed(path: str) -> tuple[str, Load]:
        return path, lambda url, auth, cpu: wrk(
            url + path, seconds, headers=dict(auth), server_cpu=cpu
        )

    def rotating(script: Path, first: str, connections: int = 64) -> tuple[str, Load]:
        return first, lambda url, auth, cpu: wrk(
            url, seconds, headers=dict(auth), script=script, warmup=False,
            connections=connections, server_cpu=cpu,
        )  # fmt: skip

    def revalidate(url: str, auth: Mapping[str, str], cpu: Callable[[], float]) -> WrkResult:
        # The identity representation's tag: wrk sends no Accept-Encoding, and httpx's default
        # (gzip) would fetch the gzip tag, which wrk's requests never match (every one a 200).
        plain = {**auth, "Accept-Encoding": "identity"}
        etag = httpx.get(url + detail, headers=plain).headers["etag"]
        return wrk(url + detail, seconds, headers={**auth, "If-None-Match": etag}, server_cpu=cpu)

    return {
        "precomputed list page": fixed("/api/v1/games?genre=rpg"),
        "detail record": fixed(detail),
        "composed filter page": fixed(composed),
        "search": fixed(f"/api/v1/search?q={SEARCH_WORD}"),
        "304 revalidation": (detail, revalidate),
        "lookup, 100 ids": fixed(lookup_path(records)),
        "composed, rotating": rotating(
            comp, shim_composed("rpg,strategy", top_tags[0], 2010, 2020)
        ),
        "search, rotating": rotating(search, words[0]),
        "search, rotating, 1 connection": rotating(search, words[0], connections=1),
    }


def settle(url: str, auth: Mapping[str, str]) -> None:
    """Given a started shim and a key's headers, build its deferred indexes (a search and a
    composed page need them) and, on a version that reports it, wait for its warm-up to end
    (``bangscore_warm``: :func:`bench.servers.wait_warm`)."""
    httpx.get(f"{url}/api/v1/search?q={SEARCH_WORD}", headers=dict(auth), timeout=120)
    httpx.get(f"{url}/api/v1/games?genre=rpg,strategy&year_from=2010", headers=dict(auth))
    if "bangscore_warm" in httpx.get(f"{url}/metrics", timeout=10).text:
        wait_warm(url, auth)


def builds(
    sides: Mapping[str, Side], rounds: int, work: Path
) -> tuple[dict[str, list[float]], dict[str, Path]]:
    """Given the two versions, build each ``rounds`` times in alternating order; return each
    version's CPU seconds per build and the state folder of its last build (kept to serve)."""
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    last: dict[str, Path] = {}
    for i in range(rounds):
        for name in list(sides)[:: 1 if i % 2 == 0 else -1]:
            state = work / f"{name}-build-{i}"
            cpu[name].append(build_cpu(sides[name], state, 0))
            print(f"build {i} {sides[name].label}: {cpu[name][-1]:.1f} s CPU", flush=True)
            if name in last:
                shutil.rmtree(last[name], ignore_errors=True)
            last[name] = state
    return cpu, last


def serve_rounds(
    sides: Mapping[str, Side],
    states: Mapping[str, Path],
    rounds: int,
    seconds: float,
    work: Path,
    *,
    redis_urls: Mapping[str, str] | None = None,
) -> dict[str, dict[str, list[WrkResult]]]:
    """Given the two versions and their built states, serve both and run every load both
    answer ``rounds`` times, alternating which version goes first; return the wrk figures by
    load and version. With ``redis_urls`` (a Redis database per version), each serves from
    that key store and only :data:`REDIS_LOADS` run, named with ", Redis store"."""
    with contextlib.ExitStack() as stack:
        served: dict[str, tuple[str, dict[str, str], Callable[[], float]]] = {}
        for name, side in sides.items():
            store = redis_urls[name] if redis_urls else None
            auth = {"Authorization": f"Bearer {issue_bench_key(side, states[name], store)}"}
            url = f"http://127.0.0.1:{free_port()}"
            cmd = [PY, "-m", "bangscore", *(["--store", store] if store else [])]
            cmd += ["--state-dir", str(states[name]), "serve", "--port", url.rsplit(":", 1)[1]]
            cmd += ["--workers", "1", "--quiet"]
            log = work / f"serve-{name}{'-redis' if store else ''}.log"
            server = stack.enter_context(
                serving(cmd, f"{url}/metrics", log, side.env, cwd=side.tree)
            )
            settle(url, auth)
            served[name] = (url, auth, functools.partial(process_cpu, server.pid))
        table = {
            row + (", Redis store" if redis_urls else ""): load
            for row, (path, load) in loads(states["head"], work, seconds).items()
            if (not redis_urls or row in REDIS_LOADS)
            and all(
                httpx.get(u + path, headers=a).status_code == 200 for u, a, _ in served.values()
            )
        }
        figures: dict[str, dict[str, list[WrkResult]]] = {}
        for i in range(rounds):
            for row, load in table.items():
                for name in list(sides)[:: 1 if i % 2 == 0 else -1]:
                    result = load(*served[name])
                    figures.setdefault(row, {}).setdefault(name, []).append(result)
                    print(f"round {i} {row} {sides[name].label}: {result}", flush=True)
    return figures


def report(
    sides: Mapping[str, Side],
    cpu: Mapping[str, Sequence[float]],
    rows: Sequence[Row],
    facts: Mapping[str, str],
    settings: str,
) -> str:
    """Given the versions, their build CPU seconds (empty: no builds ran), the serving rows,
    the machine's facts and a line on the run's settings, return the Markdown report."""
    ref, head = sides["ref"].label, sides["head"].label
    when = dt.datetime.now(dt.UTC).strftime("%d %b %Y %H:%M UTC")
    lines = [
        "# Paired regression check",
        "",
        f"Written by `python -m bench.compare` on {when}: {head} against {ref}, side by side",
        f"on one machine ({facts['CPU']}, {facts['cores (nproc)']} cores; load average at the",
        f"start {facts['load average at start (1/5/15 min)']}). {settings}",
        f"A row is marked **regressed** below {FLOOR:.0%} of the earlier commit's throughput,",
        f"a build above {CEILING:.2g}x its CPU seconds.",
        "",
        "## Builds (the real catalogue from each version's bundled dumps)",
        "",
        f"| CPU seconds per build | {ref} | {head} | head/ref | |",
        "|---|---:|---:|---:|---|",
    ]
    if cpu:
        r, h = statistics.median(cpu["ref"]), statistics.median(cpu["head"])
        each = ", ".join(f"{x:.1f}" for x in cpu["ref"]), ", ".join(f"{x:.1f}" for x in cpu["head"])
        mark = "**regressed**" if h / r > CEILING else ""
        lines.append(
            f"| median ({each[0]} / {each[1]}) | {r:.1f} | {h:.1f} | {h / r:.2f} | {mark} |"
        )
    else:
        lines.append("| not run: served the state folders given (`--states`) | - | - | - | |")
    lines += [
        "",
        "## Serving (one worker each, quota counting on; medians over the rounds)",
        "",
        f"| load | {ref} req/s | {head} req/s | head/ref | {ref} p50 / p99 ms "
        f"| {head} p50 / p99 ms | server CPU µs per request, ref / head | non-2xx or errors | |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        mark = "**regressed**" if row.regressed else ""
        lines.append(
            f"| {row.name} | {row.ref_rps:,.0f} | {row.head_rps:,.0f} | {row.ratio:.2f} "
            f"| {row.ref_p50:.2f} / {row.ref_p99:.2f} | {row.head_p50:.2f} / {row.head_p99:.2f} "
            f"| {_micros(row.ref_cpu_us)} / {_micros(row.head_cpu_us)} | {row.failed:,} | {mark} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the paired check against the commit named on the command line; write the report.
    Return 0, or 2 with a message for a commit git does not know."""
    parser = argparse.ArgumentParser(prog="bench.compare", description=__doc__.split("\n")[0])
    parser.add_argument("ref", help="the earlier commit (hash, tag or branch)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="wrk rounds per load (0: builds only)"
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="wrk duration per figure")
    parser.add_argument("--build-rounds", type=int, default=2, help="builds per version (>= 1)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "COMPARE.md")
    parser.add_argument(
        "--states",
        nargs=2,
        type=Path,
        metavar=("REF_STATE", "HEAD_STATE"),
        help="serve these state folders (each built by its version) instead of building",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder (the builds)")
    parser.add_argument(
        "--redis-only",
        action="store_true",
        help="serve only with the key store on Redis (the rows of the quota's Redis counting)",
    )
    args = parser.parse_args(argv)
    if args.rounds < 0 or args.build_rounds < 1:
        parser.error("--rounds must be at least 0 (0: builds only), --build-rounds at least 1")
    with work_folder("bangscore-compare-", keep=args.keep) as work:
        try:
            ref_hash = checkout(args.ref, work / "ref")
        except RuntimeError as exc:
            print(f"bench.compare: {exc}", file=sys.stderr)
            return 2
        label = head_label()
        checkout(working_tree(), work / "head")
        sides = {
            "ref": Side(f"ref {ref_hash}", work / "ref", side_env(work / "ref")),
            "head": Side(f"head {label}", work / "head", side_env(work / "head")),
        }
        facts = machine()
        if args.states:
            cpu: dict[str, list[float]] = {}
            states = {"ref": args.states[0].resolve(), "head": args.states[1].resolve()}
        else:
            cpu, states = builds(sides, args.build_rounds, work)
        figures: dict[str, dict[str, list[WrkResult]]] = {}
        if args.rounds:
            if not args.redis_only:
                figures = serve_rounds(sides, states, args.rounds, args.seconds, work)
            with redis_server(work / "redis") as redis_url:
                base = redis_url.rsplit("/", 1)[0]
                dbs = {"ref": f"{base}/1", "head": f"{base}/2"}
                figures |= serve_rounds(
                    sides, states, args.rounds, args.seconds, work, redis_urls=dbs
                )
        rows = [median_row(name, f["ref"], f["head"]) for name, f in figures.items()]
        built = "No builds" if args.states else f"{args.build_rounds} builds"
        served = " (the Redis store's loads only)" if args.redis_only else ""
        settings = (
            f"{built} and {args.rounds} rounds of {args.seconds:g} s of wrk "
            f"per load{served} and version, in alternating order."
        )
        args.out.write_text(report(sides, cpu, rows, facts, settings))
        print(args.out.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
