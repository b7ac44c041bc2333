"""The Bulk export benchmark (bench/export.py): its figures on the 45-game catalogue add up to
the export's files, and its section reads them."""

from __future__ import annotations

import datetime as dt

from bangscore.build.export import export_records, render_export
from bangscore.build.score_history import extend
from bangscore.contract.export import FILES
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import Catalog
from bench.export import SITE, T0, export_section, measure_export
from tests.support import factories


def test_figures_are_the_exports_bytes_and_rows() -> None:
    records = factories.small_catalog()
    catalog = Catalog(
        origin="test",
        created_at=T0,
        prices_as_of=factories.PRICES_AS_OF,
        games=records,
    )
    figures = measure_export(catalog, repeat=1)
    games = score_catalog(records)
    day = dt.date(2026, 7, 24)
    history = extend({}, ((g.record.appid, g.bang_score, g.record.price_usd) for g in games), day)
    export = render_export(
        export_records(games, SITE, factories.PRICES_AS_OF, history),
        snapshot_id="bench",
        created_at=T0,
        site_url=SITE,
    )
    files = {f.name: f for f in export.manifest.files}
    assert figures.games == 45
    for figure in figures.formats:
        assert figure.bytes == sum(files[n].bytes for n in figure.files)
        assert figure.rows == sum(files[n].rows for n in figure.files)
        assert figure.seconds > 0
    assert [f.format for f in figures.formats] == ["jsonl (gzip)", "csv (gzip)", "parquet"]
    assert figures.formats[2].files == (
        "games.parquet",
        "price_history.parquet",
        "score_history.parquet",
        "tags.parquet",
        "forecasts.parquet",
        "changes.parquet",
    )
    assert figures.files == tuple((f.name, f.rows, f.bytes) for f in export.manifest.files)
    section = export_section(figures)
    assert section[0] == "## Bulk export"
    by_format = section[
        section.index("| format | files | rows | bytes | MB | / gzip JSON lines | render s |") + 2 :
    ][:3]
    assert by_format[2].startswith("| parquet | `games.parquet`, ")
    assert f"| {figures.formats[0].bytes:,} | " in by_format[0]
    assert by_format[0].endswith(f"| 1.00 | {figures.formats[0].seconds:.2f} |")
    assert section[-len(FILES) :] == [
        f"| `{n}` | {r:,} | {b:,} | {b / figures.formats[0].bytes:.2f} |"
        for n, r, b in figures.files
    ]
