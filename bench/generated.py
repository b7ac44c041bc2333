"""Every generated file of the repository, one table: what writes it, from what, and how
``make lint`` knows it is current (issue 59, item 3).

``python -m bench.generated write`` (``make docs``) regenerates them; ``python -m
bench.generated check`` (``make lint``) fails naming each one that is not current, as ``cog
--check`` does. Two kinds:

- Cheap ones are written every time and checked by writing them again in memory: the README's
  and docs/API.md's cog blocks (``cog -r``/``cog --check``) and docs/export-manifest.schema.json
  (:func:`bangscore.contract.export.manifest_schema` written out).
- Heavy ones need a real build or a scoring of the whole catalogue (minutes each): the
  calibration (scoring/CALIBRATION.md, its histogram and scoring/genre_norms.json), the
  decision/forecast backtest (docs/FORECAST.md), docs/API.md's real record, the answers a real
  server gave docs/API.md's client example (tests/fixtures/api_examples, which ``make check``
  replays) and the build's figures (docs/figures.json, which the cog blocks quote).
  docs/generated.json records, for each, a digest of its inputs (the data and code folders it
  reads, every other generated file left out) and of its outputs, as the run that wrote them
  left them. ``check`` recomputes both in about a second: inputs that changed mean "run make
  docs"; outputs that changed mean an edit by hand. ``write`` runs a heavy generator only when
  its inputs or outputs differ from the record (``--force`` runs all), so on a fresh clone
  ``make docs`` writes the same bytes.

The inputs are listed by hand per generator (:data:`HEAVY`): broad folders (the scoring, build
and ingest layers, the bundled data), so a change that could move a figure makes it stale; a
dependency outside them would not, and is to be added to its row.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

REPO = Path(__file__).resolve().parents[1]
RECORD = REPO / "docs" / "generated.json"
SCHEMA = "docs/export-manifest.schema.json"
COG_FILES = ("README.md", "docs/API.md")
# What every snapshot figure reads: the bundled data and the layers that join, score and draw.
CATALOGUE = ("data/raw", "data/anchors", "ingest", "scoring")
SNAPSHOT = (*CATALOGUE, "build", "bangscore/contract", "bangscore/site", "bangscore/storage")
_CHUNK = 1 << 20


def _api_record(text: bytes) -> bytes:
    """Given docs/API.md, return its real record's JSON block (the rest is cog's or by hand)."""
    from tests.support.doc_record import doc_block

    decoded = text.decode()
    start, end = doc_block(decoded)
    return decoded[start:end].encode()


class Recorded(TypedDict):
    """One heavy generator's row of docs/generated.json: its inputs' digest and each
    output's, as its last run left them."""

    inputs: str
    outputs: dict[str, str]


@dataclass(frozen=True)
class Heavy:
    """A generator that needs minutes: its name, the command that runs it (from the repo,
    ``python`` standing for this interpreter), the files it writes, what of each file is its
    own (``parts``: a function of the file's bytes, for a file it shares) and the files and
    folders it reads (relative to the repo)."""

    name: str
    command: tuple[str, ...]
    outputs: tuple[str, ...]
    inputs: tuple[str, ...]
    parts: tuple[tuple[str, Callable[[bytes], bytes]], ...] = ()


HEAVY: tuple[Heavy, ...] = (
    Heavy(
        "calibration",
        ("python", "-m", "bangscore.cli.calibrate"),
        ("scoring/genre_norms.json", "scoring/CALIBRATION.md", "scoring/score_histogram.png"),
        (*CATALOGUE, "build", "bangscore/contract", "bangscore/cli/calibrate.py"),
    ),
    Heavy(
        "forecast-backtest",
        ("python", "-m", "bench.forecast_backtest"),
        ("docs/FORECAST.md",),
        (
            *(*CATALOGUE, "build", "bangscore/contract", "bench/forecast_backtest.py"),
            *("bench/forecast_report.py", "bench/decision_backtest.py"),
        ),
    ),
    Heavy(
        "api-record",
        ("python", "-m", "tests.support.doc_record"),
        ("docs/API.md",),
        (
            *(*SNAPSHOT, "bangscore/manifest.py", "tests/support/factories.py"),
            *("tests/support/real_catalogue.py", "tests/support/doc_record.py"),
        ),
        parts=(("docs/API.md", _api_record),),
    ),
    Heavy(
        "api-examples",
        ("python", "-m", "tests.support.api_examples"),
        ("tests/fixtures/api_examples/client.json.gz",),
        (
            *(*SNAPSHOT, "shim", "bangscore/manifest.py", "bangscore/client.py"),
            *("bangscore/client_core.py", "tests/support/real_catalogue.py"),
            *("tests/support/factories.py", "tests/support/api_examples.py"),
        ),
    ),
    Heavy(
        "build-figures",
        ("python", "-m", "bench.figures"),
        ("docs/figures.json",),
        (*SNAPSHOT, "bangscore/manifest.py", "bangscore/cli/build.py", "bench/figures.py"),
    ),
)
GENERATED = frozenset(path for h in HEAVY for path in h.outputs if path not in dict(h.parts))


def _files(path: Path) -> Iterator[Path]:
    """Given a file or folder, yield its files in a stable order (linked folders followed;
    byte caches, hidden folders and generated files left out)."""
    if path.is_file():
        yield path
        return
    for top, dirs, names in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            found = Path(top) / name
            if not name.endswith((".pyc", ".pyo")) and _relative(found) not in GENERATED:
                yield found


def _relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def input_digest(inputs: Sequence[str]) -> str:
    """Given files and folders relative to the repo, return the SHA-256 (hex) of each file's
    path and bytes, in order (a missing one counts by name)."""
    digest = hashlib.sha256()
    for name in inputs:
        path = REPO / name
        if not path.exists():
            digest.update(f"missing {name}\n".encode())
        for found in _files(path):
            digest.update(f"file {_relative(found)}\n".encode())
            with found.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
    return digest.hexdigest()


def output_digests(heavy: Heavy) -> dict[str, str]:
    """Given a heavy generator, return the SHA-256 of each output (of its own part of a
    shared file); "missing" for a file that is not there."""
    parts = dict(heavy.parts)
    out = {}
    for name in heavy.outputs:
        path = REPO / name
        if not path.is_file():
            out[name] = "missing"
            continue
        data = path.read_bytes()
        if name in parts:
            data = parts[name](data)
        out[name] = hashlib.sha256(data).hexdigest()
    return out


def read_record() -> dict[str, Recorded]:
    """Return docs/generated.json (empty when missing)."""
    if not RECORD.is_file():
        return {}
    recorded: dict[str, Recorded] = json.loads(RECORD.read_text())
    return recorded


def stale(heavy: Heavy, record: dict[str, Recorded]) -> str | None:
    """Given a heavy generator and the record, return why its files are not current (None:
    they are)."""
    entry = record.get(heavy.name)
    if entry is None:
        return "never recorded"
    if entry.get("inputs") != input_digest(heavy.inputs):
        return "its inputs changed since it ran"
    before = entry.get("outputs", {})
    edited = [name for name, now in output_digests(heavy).items() if now != before.get(name)]
    return f"{', '.join(edited)} changed since it ran (edited by hand?)" if edited else None


def _schema_text() -> str:
    from bangscore.contract.export import manifest_schema

    return json.dumps(manifest_schema(), indent=2, ensure_ascii=False) + "\n"


def _cog(*flags: str) -> int:
    cog = Path(sys.executable).with_name("cog")
    # -I .: the blocks import bench.figures from the checkout (bench is not installed).
    command = [str(cog), "-I", str(REPO), *flags, *COG_FILES]
    return subprocess.run(command, cwd=REPO, check=False).returncode


def write(force: bool = False) -> int:
    """Regenerate every generated file (a heavy one only when :func:`stale` or ``force``) and
    record the heavy ones; return the exit status (the first failing generator's)."""
    record = read_record()
    for heavy in HEAVY:
        why = "forced" if force else stale(heavy, record)
        if why is None:
            print(f"{heavy.name}: current")
            continue
        print(f"{heavy.name}: {why}: running {' '.join(heavy.command)}", flush=True)
        command = [sys.executable if a == "python" else a for a in heavy.command]
        done = subprocess.run(["nice", "-n", "10", *command], cwd=REPO, check=False)
        if done.returncode != 0:
            return done.returncode
        record[heavy.name] = {
            "inputs": input_digest(heavy.inputs),
            "outputs": output_digests(heavy),
        }
        RECORD.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    (REPO / SCHEMA).write_text(_schema_text())
    return _cog("-r")


def check() -> int:
    """Check every generated file is current, printing each that is not; return 0 or 1."""
    record = read_record()
    failed = 0
    for heavy in HEAVY:
        why = stale(heavy, record)
        if why is not None:
            failed = 1
            print(f"{heavy.name}: {', '.join(heavy.outputs)} not current: {why}; run `make docs`")
    if (REPO / SCHEMA).read_text() != _schema_text():
        failed = 1
        print(f"{SCHEMA} is not manifest_schema() written out: run `make docs`")
    return max(failed, _cog("--check"))


def main(argv: Sequence[str] | None = None) -> int:
    """Given ``write [--force]`` or ``check``, do it; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m bench.generated", description=__doc__)
    parser.add_argument("action", choices=("write", "check"))
    parser.add_argument("--force", action="store_true", help="run every heavy generator")
    args = parser.parse_args(argv)
    return write(args.force) if args.action == "write" else check()


if __name__ == "__main__":
    raise SystemExit(main())
