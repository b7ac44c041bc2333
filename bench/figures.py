"""The catalogue's and the snapshot's figures that README.md and docs/API.md quote (games rated,
objects, sizes on disk), measured on a real build and written to docs/figures.json, dated and
with the machine's load beside them; the docs' cog blocks read that file (:func:`sentence`).

Usage: ``.venv/bin/python -m bench.figures [--state var/figures-build]`` (``make docs`` runs
it when the build's inputs changed, bench/generated.py). It builds, under ``nice -n 10``, into
an emptied state folder of its own, so that the sizes are those of one build, as a fresh
clone's ``make build`` leaves ``var/`` (a second build into the same folder keeps the first
snapshot's objects beside the new ones), then measures: the manifest (games, objects, bytes
stored and uncompressed) and ``du`` of the state folder, its snapshots and its export.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from bangscore.contract.objects import NOT_RATED_KEY as NOT_RATED
from bangscore.manifest import read_body, read_manifest
from bangscore.scoring.value import SCORE_VERSION
from bangscore.storage.objects import LocalStorage

REPO = Path(__file__).resolve().parents[1]
FIGURES = REPO / "docs" / "figures.json"
MB = 1_000_000


def disk_mb(path: Path) -> int:
    """Given a folder, return what it takes on disk in MB (``du -sm``: 1 MiB blocks, as the
    README has always quoted it). Raises subprocess.CalledProcessError if du fails."""
    out = subprocess.run(["du", "-sm", str(path)], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[0])


def measure(state: Path, *, today: dt.date, load: str) -> dict[str, Any]:
    """Given the state folder of a finished build, the day and the load average (the first
    three fields of /proc/loadavg), return the figures of its current snapshot: its id and
    creation time, the score version that rated them, games rated, apps known but not rated,
    objects, MB stored (gzip where stored so) and uncompressed,
    and the MB on disk of the state folder, its snapshots and its Bulk export. Raises
    OSError when the folder holds no snapshot."""
    snapshots = state / "snapshots"
    storage = LocalStorage(snapshots)
    current = storage.read_pointer()
    if current is None:
        raise OSError(f"no current snapshot in {snapshots}")
    manifest = read_manifest(storage, current)
    entries = manifest.entries.values()
    stored = sum(e.encodings[0].size if e.encodings else e.size for e in entries)
    return {
        "measured": today.isoformat(),
        "load": load,
        "snapshot": current,
        "built": manifest.created_at.strftime("%Y-%m-%d %H:%M UTC"),
        "games": int(manifest.meta.get("games", 0)),
        "objects": len(manifest.entries),
        "score_version": SCORE_VERSION,
        "not_rated": len(orjson.loads(read_body(storage, manifest.entries[NOT_RATED]))["appid"]),
        "stored_mb": round(stored / MB, 1),
        "uncompressed_mb": round(sum(e.size for e in entries) / MB, 1),
        "var_mb": disk_mb(state),
        "snapshots_mb": disk_mb(snapshots),
        "export_mb": disk_mb(state / "export") if (state / "export").is_dir() else 0,
    }


def nightly_plan(state: Path) -> dict[str, Any]:
    """Given the state folder, return the live ingest's nightly plan for the games it would
    refresh, as ``bangscore ingest --dry-run`` prints it (it sends nothing): the games, the
    requests and the least wall time at the API host's rate limit. Raises ValueError when
    the plan does not read as expected."""
    env = {**os.environ, "BANGSCORE_STATE_DIR": str(state)}
    command = [sys.executable, "-m", "bangscore", "ingest", "--dry-run"]
    printed = subprocess.run(command, env=env, cwd=REPO, check=True, capture_output=True).stdout
    text = printed.decode()
    games = re.search(r"a full refresh of ([\d,]+) rated games", text)
    nightly = re.search(r"store_items\s+([\d,]+) requests .*least (.+?)\s*$", text, re.M)
    if games is None or nightly is None:
        raise ValueError(f"unexpected plan from ingest --dry-run: {text[:200]!r}")
    return {
        "nightly_games": int(games[1].replace(",", "")),
        "nightly_requests": int(nightly[1].replace(",", "")),
        "nightly_least": nightly[2],
    }


def sentence(name: str, figures_file: Path = FIGURES) -> str:
    """Given the name of a figure of docs/figures.json (``games``, ``var_mb``...), return it
    as the docs write it: counts with thousands separators, sizes as they are. For the docs'
    cog blocks. Raises KeyError for an unknown name."""
    value = orjson.loads(figures_file.read_bytes())[name]
    return f"{value:,}" if isinstance(value, int) else str(value)


def paragraph(text: str, first: str = "", rest: str = "", width: int = 96) -> str:
    """Given a paragraph's text (any line breaks), return it wrapped to ``width`` columns
    (the docs' 96), its first line led by ``first`` ("- " for a list item) and the others by
    ``rest``, ending in a newline. For the docs' cog blocks, whose figures vary in length."""
    wrapped = textwrap.fill(
        " ".join(text.split()),
        width=width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return wrapped + "\n"


def dated(figures_file: Path = FIGURES) -> str:
    """Return how docs/figures.json was measured, as the docs date a figure ("2 Dec 2026,
    snapshot built 2026-12-02 04:16 UTC, load 7.31 7.31 5.21")."""
    figures = orjson.loads(figures_file.read_bytes())
    day = dt.date.fromisoformat(figures["measured"])
    return (
        f"{day.day} {day:%b %Y}, `make docs` on a build of {figures['built']}, "
        f"load {figures['load']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Given command-line arguments, build from scratch, measure and write
    docs/figures.json; return the exit status (the build's, when it fails)."""
    parser = argparse.ArgumentParser(prog="python -m bench.figures", description=__doc__)
    parser.add_argument("--state", type=Path, default=REPO / "var" / "figures-build")
    args = parser.parse_args(argv)
    # The Bulk export beside the snapshot, as `make build` writes it (its size is quoted too).
    env = {
        **os.environ,
        "BANGSCORE_STATE_DIR": str(args.state),
        "BANGSCORE_EXPORT": str(args.state / "export"),
    }
    shutil.rmtree(args.state, ignore_errors=True)
    build = [sys.executable, "-m", "bangscore", "build"]
    done = subprocess.run(["nice", "-n", "10", *build], env=env, cwd=REPO, check=False)
    if done.returncode != 0:
        return done.returncode
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    figures = measure(args.state, today=dt.datetime.now(dt.UTC).date(), load=load)
    figures |= nightly_plan(args.state)
    FIGURES.write_bytes(orjson.dumps(figures, option=orjson.OPT_INDENT_2) + b"\n")
    print(f"wrote {FIGURES.relative_to(REPO)}: {figures['games']:,} games, {figures['objects']:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
