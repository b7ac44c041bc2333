"""The benchmark suite behind ``make bench``: writes ``bench/RESULTS.md`` from one real run.

Same machine, same run, loopback only, one server process each, wrk with 64 connections:

- the shim (``bangscore serve``, quota counting on with a bulk key) for a precomputed list
  page, a detail record, a composed filter page (genres + tag + year range), a search and a
  304 revalidation; composed pages and searches also rotating over thousands of distinct
  requests, which defeats the shim's per-snapshot LRU caches;
- nginx serving the same bytes as static files (the ceiling);
- a bare Starlette app on uvicorn answering the same bytes as constants (:mod:`bench.bare`,
  the framework's ceiling, with the shim's uvicorn settings);
- Datasette serving the same catalog from SQLite (JSON API, filters, FTS on name);
- the production configuration (:mod:`bench.production`): the shim with its access log on and
  off, with and without gzip, nginx with its access log and ``gzip_static``, bytes on the
  wire, the snapshot's size on disk;
- the build (score, render, publish) of the real catalog and of a 200,000-game scaled copy
  (:mod:`bench.scale`): wall time and peak memory of the child process;
- the Bulk export of the real catalog (:mod:`bench.export`): render time and bytes per format
  (gzip JSON lines, gzip CSV, Parquet);
- the rows of issue 45 (:mod:`bench.flood`): a download flood, a distinct-query flood (the
  worker's memory after) and a lookup's 304.

If a throughput target is missed, the shim is profiled under load with py-spy and the
hottest functions are written into the results. The servers it starts and waits on are
:mod:`bench.servers`, the builds it measures :mod:`bench.builds`, the machine it reports
:mod:`bench.machine`.

    .venv/bin/python -m bench.run [--seconds 6] [--scaled 200000] [--out bench/RESULTS.md]
    .venv/bin/python -m bench.run --builds-only   # the two builds of the real catalogue only
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx

from bangscore.ingest.catalog import load_bundled_catalog, write_catalog
from bangscore.stores import open_stores
from bangscore.stores.keystore import issue_key
from bangscore.stores.secret import load_session_secret
from bench.builds import count_cost, measure_build, run_builds, run_dumps_build
from bench.catalogs import (
    Workload,
    build_sqlite,
    common_tag,
    composed_rotation,
    datasette_composed,
    datasette_list,
    detail_records,
    lookup_path,
    search_words,
    shim_composed,
)
from bench.export import export_section, measure_export
from bench.machine import machine, versions
from bench.production import (
    GZIP,
    NGINX_LOGGED,
    SHIM_LOGGED,
    SHIM_QUIET,
    disk_usage,
    nginx_logged_conf,
    section,
    wire_bytes,
    write_gzip_static,
)
from bench.report import (
    BULK_LIMIT,
    DUMPS_LABEL,
    LATENCY_ROW,
    build_table,
    report,
    stage_table,
)
from bench.scale import scale_catalog
from bench.servers import PY, REPO, free_port, nginx_conf, redis_server, serving, wait_warm
from bench.wrk import CONNECTIONS, WrkResult, profile, rotation_script, wrk

DETAIL_APPID = 620

SEARCH_WORD = "portal"

ROTATIONS = 6000
LOOKUP_ROW = "lookup, 100 ids"


def run(seconds: float, scaled: int, out: Path, work: Path) -> None:
    """Run every measurement into ``work`` and write the results to ``out``."""
    started = time.perf_counter()
    facts = machine()
    print("machine:", facts, flush=True)

    # Catalog files: the real one, and its scaled copy.
    catalog, _ = load_bundled_catalog(REPO / "data")
    real_file, scaled_file = work / "real.catalog.json.gz", work / "scaled.catalog.json.gz"
    write_catalog(catalog, real_file)

    real_state = work / "real"
    builds = [measure_build("real", real_file, real_state, len(catalog.games))]
    print("build:", builds[-1], flush=True)
    builds.append(measure_build(DUMPS_LABEL, None, work / "dumps", len(catalog.games)))
    print("build:", builds[-1], flush=True)
    shutil.rmtree(work / "dumps", ignore_errors=True)
    exported = measure_export(catalog)  # the Bulk export's time and bytes per format
    print("export:", exported, flush=True)

    # Keys: a bulk key with a limit no run can reach, so every request is counted and admitted.
    store = open_stores(f"sqlite:///{real_state / 'bangscore.sqlite3'}")
    key, bulk_key = issue_key(store.keys, "bench@bangscore.local", "bulk", BULK_LIMIT, 0)
    store.close()
    load_session_secret(None, real_state)  # as `keys create` does: serve creates none
    auth = {"Authorization": f"Bearer {key}"}

    records = detail_records(real_state / "snapshots")
    tag = common_tag(records)
    top_tags = [t for t, _ in Counter(t for r in records for t in r["tags"]).most_common(6)]
    combo = ("rpg,strategy", tag, 2010, 2020)
    workloads = [
        Workload(
            "precomputed list page",
            "/api/v1/games?genre=rpg",
            "list",
            datasette_list("genre=rpg&_sort_desc=bang_score"),
        ),
        Workload(
            "detail record",
            f"/api/v1/games/{DETAIL_APPID}",
            "detail",
            f"/bench/games/{DETAIL_APPID}.json?_shape=objects",
        ),
        Workload(
            "composed filter page", shim_composed(*combo), "composed", datasette_composed(*combo)
        ),
        Workload(
            "search",
            f"/api/v1/search?q={SEARCH_WORD}",
            "search",
            datasette_list(f"_search={SEARCH_WORD}"),
        ),
        Workload("304 revalidation", f"/api/v1/games/{DETAIL_APPID}", "detail", None),
        Workload(LOOKUP_ROW, lookup_path(records), "lookup", None),
    ]
    combos = composed_rotation(top_tags, ROTATIONS)
    words = search_words(records, ROTATIONS)
    rotations = {
        "composed, rotating": (
            rotation_script(work, "shim-composed", [shim_composed(*c) for c in combos]),
            rotation_script(work, "ds-composed", [datasette_composed(*c) for c in combos]),
            len(combos),
            CONNECTIONS,
        ),
        "search, rotating": (
            rotation_script(work, "shim-search", [f"/api/v1/search?q={w}" for w in words]),
            rotation_script(work, "ds-search", [datasette_list(f"_search={w}") for w in words]),
            len(words),
            CONNECTIONS,
        ),
    }
    # Latency without queueing: one connection, so p99 is the service time of a search.
    rotations[LATENCY_ROW] = (*rotations["search, rotating"][:3], 1)

    results: dict[tuple[str, str], WrkResult] = {}
    production = workloads[:2]  # the list page and the detail record
    prod: dict[tuple[str, str, str], WrkResult] = {}
    wire: dict[tuple[str, str], tuple[int, int]] = {}
    logs = work / "logs"
    logs.mkdir()

    # The shim: one uvicorn worker, access log off, quota counting on.
    shim_port = free_port()
    shim_url = f"http://127.0.0.1:{shim_port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    shim_cmd = [
        PY,
        "-m",
        "bangscore",
        "--state-dir",
        str(real_state),
        "serve",
        "--port",
        str(shim_port),
        "--workers",
        "1",
        "--quiet",
    ]
    static = work / "static"
    static.mkdir()
    profile_lines: list[str] = []
    with serving(shim_cmd, f"{shim_url}/metrics", logs / "shim.log", env):
        wait_warm(shim_url, auth)
        etag = ""
        for w in workloads:
            # Identity, as wrk asks: httpx's default (gzip) would take the gzip representation's
            # ETag, which wrk's revalidations never match (each one a counted 200, not a 304).
            r = httpx.get(shim_url + w.shim, headers={**auth, "Accept-Encoding": "identity"})
            assert r.status_code == 200, (w.shim, r.status_code, r.text[:300])
            if w.static and not (static / f"{w.static}.json").exists():
                (static / f"{w.static}.json").write_bytes(r.content)
            if w.name == "304 revalidation":
                etag = r.headers["etag"]
        assert json.loads((static / "composed.json").read_bytes())["total"] > 0
        for w in workloads:
            headers = {**auth, "If-None-Match": etag} if w.name == "304 revalidation" else auth
            results[(w.name, "shim")] = wrk(shim_url + w.shim, seconds, headers=headers)
            print("shim", w.name, results[(w.name, "shim")], flush=True)
        for name, (script, _, _, conns) in rotations.items():
            results[(name, "shim")] = wrk(
                shim_url, seconds, headers=auth, script=script, warmup=False, connections=conns
            )
            print("shim", name, results[(name, "shim")], flush=True)
        for w in production:
            prod[(w.name, SHIM_QUIET, "identity")] = results[(w.name, "shim")]
            prod[(w.name, SHIM_QUIET, "gzip")] = wrk(
                shim_url + w.shim, seconds, headers={**auth, **GZIP}
            )
            print("shim gzip", w.name, prod[(w.name, SHIM_QUIET, "gzip")], flush=True)
            for coding, extra in (("identity", {}), ("gzip", GZIP)):
                wire[(w.name, coding)] = wire_bytes(shim_url, w.shim, {**auth, **extra})

    # The same shim as operators run it: the JSON access log on, written to a file.
    logged_cmd = [arg for arg in shim_cmd if arg != "--quiet"]
    with serving(logged_cmd, f"{shim_url}/metrics", logs / "shim-logged.log", env):
        wait_warm(shim_url, auth)
        for w in production:
            for coding, extra in (("identity", {}), ("gzip", GZIP)):
                figure = wrk(shim_url + w.shim, seconds, headers={**auth, **extra})
                prod[(w.name, SHIM_LOGGED, coding)] = figure
                print("shim logged", coding, w.name, figure, flush=True)
    logged_lines = (logs / "shim-logged.log").read_bytes().count(b'"request_id"')
    print("access-log lines written:", logged_lines, flush=True)

    # The shim again with the Redis store, whose leases take the count off the request path.
    # The same key is copied there (its record holds only the digest).
    with redis_server(work / "redis") as redis_url:
        redis_store = open_stores(redis_url)
        redis_store.keys.add_key(bulk_key)
        redis_store.close()
        redis_port = free_port()
        redis_cmd = [*shim_cmd[:3], "--store", redis_url, *shim_cmd[3:]]
        redis_cmd[redis_cmd.index(str(shim_port))] = str(redis_port)
        redis_shim = f"http://127.0.0.1:{redis_port}"
        with serving(redis_cmd, f"{redis_shim}/metrics", logs / "shim-redis.log", env):
            wait_warm(redis_shim, auth)
            for w in workloads:
                headers = {**auth, "If-None-Match": etag} if w.name == "304 revalidation" else auth
                results[(w.name, "shim+redis")] = wrk(redis_shim + w.shim, seconds, headers=headers)
                print("shim+redis", w.name, results[(w.name, "shim+redis")], flush=True)

    # The framework's ceiling: bare Starlette answering the same bytes.
    bare_port = free_port()
    bare_url = f"http://127.0.0.1:{bare_port}"
    detail_etag = ""
    with serving(
        [PY, "-m", "bench.bare", str(static), str(bare_port)], f"{bare_url}/list", logs / "bare.log"
    ):
        detail_etag = httpx.get(f"{bare_url}/detail").headers["etag"]
        for w in workloads:
            assert w.static is not None
            headers = {"If-None-Match": detail_etag} if w.name == "304 revalidation" else {}
            results[(w.name, "bare")] = wrk(f"{bare_url}/{w.static}", seconds, headers=headers)
            print("bare", w.name, results[(w.name, "bare")], flush=True)

    # The same, sending the fourteen response headers of every shim answer (docs/API.md): the
    # response's own cost.
    hdr_port = free_port()
    hdr_url = f"http://127.0.0.1:{hdr_port}"
    with serving(
        [PY, "-m", "bench.bare", str(static), str(hdr_port), "--contract-headers"],
        f"{hdr_url}/list",
        logs / "bare-headers.log",
    ):
        for w in workloads:
            assert w.static is not None
            headers = {"If-None-Match": detail_etag} if w.name == "304 revalidation" else {}
            results[(w.name, "bare+headers")] = wrk(
                f"{hdr_url}/{w.static}", seconds, headers=headers
            )
            print("bare+headers", w.name, results[(w.name, "bare+headers")], flush=True)

    # The ceiling: nginx serving the same bytes as static files.
    nginx_port = free_port()
    prefix = work / "nginx"
    prefix.mkdir()
    for folder in (work, static, prefix):
        folder.chmod(0o755)  # nginx workers drop root: they must be able to read the files
    conf = nginx_conf(prefix, static, nginx_port)
    nginx_url = f"http://127.0.0.1:{nginx_port}"
    with serving(
        ["nginx", "-c", str(conf), "-p", str(prefix)], f"{nginx_url}/list.json", logs / "nginx.log"
    ):
        nginx_etag = httpx.get(f"{nginx_url}/detail.json").headers["etag"]
        for w in workloads:
            headers = {"If-None-Match": nginx_etag} if w.name == "304 revalidation" else {}
            results[(w.name, "nginx")] = wrk(
                f"{nginx_url}/{w.static}.json", seconds, headers=headers
            )
            print("nginx", w.name, results[(w.name, "nginx")], flush=True)

    # nginx as production runs it: access log on, gzip_static for clients taking gzip.
    write_gzip_static(static, [w.static for w in production if w.static])
    logged_conf = nginx_logged_conf(prefix, static, nginx_port)
    with serving(
        ["nginx", "-c", str(logged_conf), "-p", str(prefix)],
        f"{nginx_url}/list.json",
        logs / "nginx-logged.log",
    ):
        for w in production:
            for coding, extra in (("identity", {}), ("gzip", GZIP)):
                figure = wrk(f"{nginx_url}/{w.static}.json", seconds, headers=extra)
                prod[(w.name, NGINX_LOGGED, coding)] = figure
                print("nginx logged", coding, w.name, figure, flush=True)

    # Datasette over the same catalog in SQLite, immutable, facet suggestions off.
    db = work / "bench.db"
    build_sqlite(records, db)
    ds_port = free_port()
    ds_url = f"http://127.0.0.1:{ds_port}"
    ds_cmd = [
        str(Path(PY).parent / "datasette"),
        "serve",
        "-i",
        str(db),
        "-h",
        "127.0.0.1",
        "-p",
        str(ds_port),
        "--setting",
        "suggest_facets",
        "off",
    ]
    with serving(ds_cmd, f"{ds_url}/-/versions.json", logs / "datasette.log"):
        for w in workloads:
            if w.datasette is None:
                continue
            # Datasette answers a tag filter over the whole catalog slowly: wait for it.
            r = httpx.get(ds_url + w.datasette, timeout=120)
            assert r.status_code == 200 and r.json()["rows"], (w.datasette, r.text[:300])
            results[(w.name, "datasette")] = wrk(ds_url + w.datasette, seconds)
            print("datasette", w.name, results[(w.name, "datasette")], flush=True)
        for name, (_, script, _, conns) in rotations.items():
            results[(name, "datasette")] = wrk(
                ds_url, seconds, script=script, warmup=False, connections=conns
            )
            print("datasette", name, results[(name, "datasette")], flush=True)

    # Profile the shim under load if a throughput target is missed.
    missed = [
        w.name
        for w, share in ((workloads[0], 0.70), (workloads[2], 0.50))
        if results[(w.name, "shim")].rps < share * results[(w.name, "bare")].rps
    ]
    if missed:
        with serving(shim_cmd, f"{shim_url}/metrics", logs / "shim-profile.log", env) as shim:
            wait_warm(shim_url, auth)
            for w in (workloads[0], workloads[2]):
                if w.name in missed:
                    lines = profile(
                        shim.pid,
                        shim_url + w.shim,
                        auth,
                        seconds,
                        work / f"profile-{len(profile_lines)}.txt",
                    )
                    profile_lines += [f"**{w.name}** (py-spy, own time):", *lines, ""]

    # Issue 36: the access log's cost (alternating runs, log off and on) and a replica's start
    # to its first answer on the real snapshot.
    from bench import harden

    harden_starts = harden.measure_start(real_state, key, 3, logs)
    harden_log = harden.measure_log(real_state, key, seconds, 3, logs)
    harden_entries = harden.manifest_entries(real_state)
    # Issue 45: a download flood, a distinct-query flood and a lookup's 304.
    from bench import flood

    flooded = flood.measure(
        real_state, real_state / "snapshots", key, lookup_path(records), seconds, logs
    )

    # The scaled build last: it is the heaviest and must not disturb the servers above.
    scaled_catalog = scale_catalog(catalog, scaled)
    write_catalog(scaled_catalog, scaled_file)
    del scaled_catalog
    builds.append(measure_build("scaled", scaled_file, work / "scaled", scaled))
    print("build:", builds[-1], flush=True)
    shutil.rmtree(work / "scaled", ignore_errors=True)

    facts["load average at end (1/5/15 min)"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    text = report(
        facts,
        versions(),
        workloads,
        list(rotations),
        results,
        builds,
        profile_lines,
        count_us=count_cost(work),
        seconds=seconds,
        rotation_sizes={n: v[2] for n, v in rotations.items()},
        total_seconds=time.perf_counter() - started,
        tag=tag,
    )
    disk = disk_usage(real_state / "snapshots")
    # How busy the machine was is in the Machine table (load averages at start and end).
    text += "\n" + "\n".join(section([w.name for w in production], prod, wire, disk)) + "\n"
    text += "\n" + "\n".join(export_section(exported)) + "\n"
    text += "\n" + "\n".join(harden.section(harden_log, harden_starts, harden_entries))
    text += "\n" + "\n".join(flood.section(flooded))
    out.write_text(text)
    print(text)


@contextlib.contextmanager
def work_folder(prefix: str, *, keep: bool = False) -> Iterator[Path]:
    """Given a name prefix and whether to keep it, yield a new temporary folder, removed when
    the block ends unless kept (then its path is printed)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield work
    finally:
        if keep:
            print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark suite; return the exit code."""
    parser = argparse.ArgumentParser(prog="bench.run", description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="wrk duration per figure")
    parser.add_argument("--scaled", type=int, default=200_000, help="games in the scaled copy")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "RESULTS.md")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument(
        "--builds-only",
        action="store_true",
        help="measure only the real catalogue's two builds and print them (RESULTS.md untouched)",
    )
    parser.add_argument(
        "--stages-only",
        action="store_true",
        help="measure only the build `make run` does, by stage, and print it (RESULTS.md "
        "untouched)",
    )
    args = parser.parse_args(argv)
    with work_folder("bangscore-bench-", keep=args.keep) as work:
        if args.builds_only:
            print("\n".join(build_table(run_builds(work))))
        elif args.stages_only:
            games = len(load_bundled_catalog(REPO / "data")[0].games)
            print("\n".join(stage_table([run_dumps_build(work, games)])))
        else:
            run(args.seconds, args.scaled, args.out, work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
