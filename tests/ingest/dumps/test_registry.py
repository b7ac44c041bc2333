"""The registry of bundled sources (ingest.dumps.registry): every source reads its real dump.

The session's real catalogue is kept on disk between runs (tests/support/real_catalogue.py), so
these tests, not the catalogue's build, are what reads each dump format every run: the first
observations of every source, from the real file, each a well-formed observation.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bangscore.errors import CatalogError
from bangscore.ingest.dumps.readers import INSIGHTS_TABLES
from bangscore.ingest.dumps.registry import BUNDLED, Source, read_observations
from bangscore.ingest.resolve.observations import Observation, Observations

RAW = Path(__file__).resolve().parents[3] / "data" / "raw"
SAMPLE = 2_000  # observations read per source
# Sources that match another source's apps by title (``known``): they may yield nothing from a
# sample that holds none of those apps, so only their observations' shape is asserted.
MATCHED = {"hltb_2023", "hltb_2023 by title", "itad_2025"}
# A dump of several tables read one after another: each table is sampled on its own.
TABLES = {"steam_insights_2024": INSIGHTS_TABLES}


@pytest.fixture(scope="module")
def known() -> Observations:
    """The storefront's first observations (names, types, dates): what matched sources match."""
    storefront = BUNDLED[0]
    observations = Observations()
    observations.add(
        storefront.layer,
        itertools.islice(storefront.read(RAW / storefront.path, Observations()), 50_000),
    )
    return observations


@pytest.mark.slow
@pytest.mark.parametrize("source", BUNDLED, ids=[s.layer.name for s in BUNDLED])
def test_every_source_reads_well_formed_observations_from_its_dump(
    source: Source, known: Observations
) -> None:
    tables = TABLES.get(source.layer.name)
    if tables is None:
        sample = list(itertools.islice(source.read(RAW / source.path, known), SAMPLE))
    else:
        path, names = RAW / source.path, dict[str, str]()
        sample = [o for read in tables for o in itertools.islice(read(path, names), SAMPLE)]
        assert {o.field for o in sample} >= {
            "name",
            "storefront_genres",
            "tags",
            "review_count",
            "price",
        }
    assert all(isinstance(o, Observation) for o in sample)
    assert all(isinstance(o.appid, int) and o.appid > 0 for o in sample)
    assert all(o.field and o.value is not None for o in sample)
    if source.layer.name not in MATCHED:
        assert len({o.appid for o in sample}) > 10


def test_a_missing_dump_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="missing raw dump"):
        read_observations(tmp_path, BUNDLED[:1])


def test_an_unreadable_dump_is_a_catalog_error(tmp_path: Path) -> None:
    source = next(s for s in BUNDLED if s.path.endswith(".csv.gz"))
    path = tmp_path / source.path
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not gzip at all")
    with pytest.raises(CatalogError, match="cannot read raw dump"):
        read_observations(tmp_path, [source])
