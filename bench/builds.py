"""The builds a benchmark measures: one build of a catalogue (or of the bundled dumps) as a
child process, its wall and CPU time, peak memory and stages (:func:`measure_build`), the real
catalogue's two builds (:func:`run_builds`), and the cost of one exact count in the SQLite
store (:func:`count_cost`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import time
from pathlib import Path

from bangscore.ingest.catalog import load_bundled_catalog, write_catalog
from bangscore.stores import open_stores
from bench.report import BULK_LIMIT, DUMPS_LABEL, BuildFigure, parse_stages
from bench.servers import PY, REPO


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
