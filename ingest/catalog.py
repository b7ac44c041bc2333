"""The catalog of the bundled dumps: read every source of the registry
(:mod:`ingest.dumps.registry`), resolve and cross-check it into rated records and not-rated apps
(:mod:`ingest.resolve.resolution`), date its prices (``prices_as_of``). The file format is
:mod:`ingest.catalog_file`; this module re-exports the names callers use.
"""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

from bangscore.ingest.catalog_file import read_catalog, write_catalog
from bangscore.ingest.dumps.registry import BUNDLED, Source, read_observations
from bangscore.ingest.resolve.resolution import IngestReport, assemble, prices_as_of
from bangscore.scoring.records import Catalog

__all__ = [
    "BUNDLED",
    "IngestReport",
    "Source",
    "assemble",
    "load_bundled_catalog",
    "read_catalog",
    "read_observations",
    "write_catalog",
]


def load_bundled_catalog(
    data_dir: Path,
    *,
    progress: bool = False,
    created_at: dt.datetime | None = None,
    as_of: dt.date | None = None,
    workers: int = 1,
) -> tuple[Catalog, IngestReport]:
    """Given the repo's ``data`` folder (with ``raw/`` inside), return (the catalog of the
    bundled dumps: rated games and not-rated apps sorted by appid, origin ``"bundled dumps"``;
    the report). ``prices_as_of`` is the newest price observation of the dumps.
    ``created_at`` defaults to now (UTC). With ``as_of`` (a day), the catalog is the one that
    day knew: only observations dated on or before it (:func:`read_observations`), so its
    ``prices_as_of`` is on or before it too. With ``workers`` > 1, that many processes read
    the dumps (:func:`read_observations`: the same catalog). Raises CatalogError if a dump is
    missing or unreadable."""
    started = time.perf_counter()
    report = IngestReport()
    known, report.observations = read_observations(
        data_dir / "raw", progress=progress, as_of=as_of, workers=workers
    )
    priced = prices_as_of(known)
    games, not_rated = assemble(known, report, progress=progress, as_of=priced)
    catalog = Catalog(
        created_at=created_at or dt.datetime.now(dt.UTC),
        origin="bundled dumps" if as_of is None else f"bundled dumps as of {as_of.isoformat()}",
        prices_as_of=priced,
        games=tuple(games),
        not_rated=tuple(not_rated),
    )
    report.seconds = time.perf_counter() - started
    return catalog, report
