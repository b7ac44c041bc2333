"""The Bulk export's benchmark: the time to render the real catalogue's export and its bytes
per format (gzip JSON lines, gzip CSV, Parquet), written into ``make bench``'s results.

The catalogue is scored once; then the detail records (:func:`build.export.export_records`)
and each format's files are rendered in memory and timed apart, and the whole export
(:func:`build.export.render_export`, every file and the manifest) once more; best of
``repeat`` for each. No storage is written: the figures are the export's own work.

    .venv/bin/python -m bench.export [--repeat 2]   # prints the section
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bangscore.build import export as ex
from bangscore.build.score_history import extend
from bangscore.build.wire import dumps
from bangscore.contract.export import FILES
from bangscore.ingest.catalog import load_bundled_catalog
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import Catalog

REPO = Path(__file__).resolve().parents[1]
SITE = "http://127.0.0.1:8000"
T0 = dt.datetime(2026, 11, 22, tzinfo=dt.UTC)


@dataclass(frozen=True)
class FormatFigure:
    """One format of the export: its files, their bytes and rows, and seconds to render."""

    format: str
    files: tuple[str, ...]
    bytes: int
    rows: int
    seconds: float


@dataclass(frozen=True)
class ExportFigures:
    """The export of one catalogue: games, seconds for the detail records, per format, the
    whole :func:`render_export`, and the manifest's bytes."""

    games: int
    records_seconds: float
    formats: tuple[FormatFigure, ...]
    total_seconds: float
    manifest_bytes: int
    files: tuple[tuple[str, int, int], ...] = ()  # every file: name, rows, bytes


def best(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """Given a count and a function, run it ``repeat`` times; return (least seconds, the last
    result)."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return min(times), result


def measure_export(catalog: Catalog, repeat: int = 2) -> ExportFigures:
    """Given a catalogue, score it and return its export's figures (module docstring)."""
    games = score_catalog(catalog.games)
    day = catalog.prices_as_of.date() if catalog.prices_as_of else T0.date()
    history = extend({}, ((g.record.appid, g.bang_score, g.record.price_usd) for g in games), day)
    records_s, records = best(
        repeat, lambda: ex.export_records(games, SITE, catalog.prices_as_of, history)
    )

    def jsonl() -> dict[str, bytes]:
        return {"games.jsonl.gz": ex.jsonl_body([dumps(r) for r in records])}

    def csv() -> dict[str, bytes]:
        return {"games.csv.gz": ex.csv_body(records)}

    def parquet() -> dict[str, bytes]:
        bodies, _ = ex.parquet_bodies(records, sorted((int(r["appid"]), "added") for r in records))
        return bodies

    formats = []
    for name, render in (("jsonl (gzip)", jsonl), ("csv (gzip)", csv), ("parquet", parquet)):
        seconds, bodies = best(repeat, render)
        formats.append(
            FormatFigure(name, tuple(bodies), sum(len(b) for b in bodies.values()), 0, seconds)
        )
    total_s, export = best(
        repeat, lambda: ex.render_export(records, snapshot_id="bench", created_at=T0, site_url=SITE)
    )
    rows = {f.name: f.rows for f in export.manifest.files}
    formats = [
        FormatFigure(f.format, f.files, f.bytes, sum(rows[n] for n in f.files), f.seconds)
        for f in formats
    ]
    files = tuple((f.name, f.rows, f.bytes) for f in export.manifest.files)
    return ExportFigures(
        len(games), records_s, tuple(formats), total_s, len(export.manifest.to_bytes()), files
    )


def export_section(figures: ExportFigures) -> list[str]:
    """Given the export's figures, return the results' "Bulk export" section (Markdown lines)."""
    games_jsonl = next(f for f in figures.formats if f.format.startswith("jsonl")).bytes
    lines = [
        "## Bulk export",
        "",
        f"The real catalogue's export ({figures.games:,} games) rendered in memory "
        "(`bench/export.py`; best of 2): the detail records once, then each format's files. "
        "The Parquet figure holds all five tables (`changes.parquet` as a first export's, every "
        f"game `added`). Detail records: {figures.records_seconds:.1f} s. Whole export "
        f"(`render_export`: every file of {len(FILES)}, the changes, the manifest of "
        f"{figures.manifest_bytes / 1e3:.0f} kB): {figures.total_seconds:.1f} s.",
        "",
        "| format | files | rows | bytes | MB | / gzip JSON lines | render s |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for f in figures.formats:
        lines.append(
            f"| {f.format} | {', '.join(f'`{n}`' for n in f.files)} | {f.rows:,} | "
            f"{f.bytes:,} | {f.bytes / 1e6:.2f} | {f.bytes / games_jsonl:.2f} | "
            f"{f.seconds:.2f} |"
        )
    lines += ["", "| file | rows | bytes | / games.jsonl.gz |", "|---|---:|---:|---:|"]
    lines += [
        f"| `{name}` | {rows:,} | {size:,} | {size / games_jsonl:.2f} |"
        for name, rows, size in figures.files
    ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the real catalogue's export and print its section; return the exit code."""
    parser = argparse.ArgumentParser(prog="bench.export", description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs per figure (least kept)")
    args = parser.parse_args(argv)
    catalog, _ = load_bundled_catalog(REPO / "data")
    print("\n".join(export_section(measure_export(catalog, args.repeat))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
