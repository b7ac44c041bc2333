"""``make calibrate``: regenerate scoring/genre_norms.json (a product input),
scoring/CALIBRATION.md and scoring/score_histogram.png from a real run.

Usage: ``.venv/bin/python -m bangscore.cli.calibrate [--data-dir data] [--out-dir scoring]``.

Loads the catalog of the bundled dumps, derives the figures the model reads from it
(:func:`~bangscore.scoring.calibration.norms.derive_norms`) into ``scoring/genre_norms.json``,
scores it with the one pipeline (:func:`~bangscore.scoring.pipeline.score_catalog`) and writes
the internal calibration report, which repeats those figures (a test keeps them equal). The
pure steps (``summarize``, ``render_report``) return values; :func:`main` does the I/O. It is
a tool of the source checkout (it reads data/ and composes the ingest's loader with the
builder's buyer fields): the command line is the layer that may import both."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bangscore.build.buyer import buyer_fields
from bangscore.scoring import value
from bangscore.scoring.calibration.figures import plot_histogram
from bangscore.scoring.calibration.norms import (
    DEFAULT_DATA_DIR,
    PACKAGE_DIR,
    REPORT_NAME,
    derive_norms,
    write_norms,
)
from bangscore.scoring.calibration.prior import weights
from bangscore.scoring.calibration.report import HISTOGRAM_NAME, render_report
from bangscore.scoring.calibration.summary import summarize
from bangscore.scoring.pipeline import score_catalog

if TYPE_CHECKING:
    from bangscore.ingest.catalog import IngestReport
    from bangscore.scoring.records import Catalog


def main(argv: Sequence[str] | None = None) -> int:
    """Given command-line arguments, load the bundled catalog, score it and write the report
    and histogram (:func:`calibrate`); return the exit status (0)."""
    from bangscore.ingest.catalog import load_bundled_catalog

    parser = argparse.ArgumentParser(prog="python -m bangscore.cli.calibrate", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out-dir", type=Path, default=PACKAGE_DIR)
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    args = parser.parse_args(argv)
    catalog, report = load_bundled_catalog(args.data_dir, progress=args.progress)
    calibrate(catalog, report, args.out_dir, progress=args.progress)
    return 0


def calibrate(
    catalog: Catalog, report: IngestReport, out_dir: Path, *, progress: bool = False
) -> None:
    """Given the catalog of the bundled dumps and its ingest report (``load_bundled_catalog``'s
    pair: the tests pass the one they keep, tests/support/real_catalogue.py, instead of joining
    the dumps again), derive the norms into scoring/genre_norms.json (rewritten only when they
    moved, the model then reloaded), score the catalog and write the report and histogram into
    ``out_dir`` (made if missing), printing what it wrote."""
    from bangscore.ingest.resolve.checks import PLAYTIME_TO_MAIN

    norms = dataclasses.replace(
        derive_norms(catalog.games),
        thin_reviews=value.THIN_REVIEWS,
        adult_reviews=value.ADULT_REVIEWS,
    )
    if write_norms(norms, value.NORMS_FILE):
        # The model read the old figures at import: read the new ones before scoring.
        importlib.reload(value)
    scored = score_catalog(catalog.games, progress=progress)
    thin, adult = weights(scored)
    if (thin, adult) != (value.THIN_REVIEWS, value.ADULT_REVIEWS):
        # Only games under 1,000 reviews and adult games move: score again with the weights.
        norms = dataclasses.replace(norms, thin_reviews=thin, adult_reviews=adult)
        write_norms(norms, value.NORMS_FILE)
        importlib.reload(value)
        scored = score_catalog(catalog.games, progress=progress)
    summary = summarize(scored, catalog.not_rated, playtime_to_main=PLAYTIME_TO_MAIN)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_histogram(scored, out_dir / HISTOGRAM_NAME)
    text = render_report(
        scored,
        summary,
        origin=catalog.origin,
        generated=catalog.created_at.date(),
        report=report,
        norms=norms,
        buyer=buyer_fields(scored, catalog.prices_as_of.date() if catalog.prices_as_of else None),
    )
    (out_dir / REPORT_NAME).write_text(text, encoding="utf-8")
    counts = ", ".join(f"{t} {c}" for t, c in summary.tier_counts.items())
    print(f"scored {summary.games} games: {counts}")
    print(f"wrote {out_dir / REPORT_NAME} and {out_dir / HISTOGRAM_NAME}")


if __name__ == "__main__":
    raise SystemExit(main())
