"""The registry of bundled sources (ingest.dumps.registry): every source reads its real dump.

The session's real catalogue is kept on disk between runs (tests/support/real_catalogue.py), so
these tests, not the catalogue's build, are what reads each dump format every run: the first
observations of every source, from the real file, each a well-formed observation.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from pathlib import Path

import pytest

from bangscore.errors import CatalogError
from bangscore.ingest.dumps.insights import INSIGHTS_TABLES
from bangscore.ingest.dumps.registry import (
    BUNDLED,
    PRICE_HISTORY_LAYER,
    Source,
    read_observations,
)
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


SUMMER_SALE_EVE = dt.date(2026, 6, 24)


def _source(name: str) -> Source:
    return next(s for s in BUNDLED if s.layer.name == name)


@pytest.mark.parametrize(
    ("name", "day", "kept", "dated"),
    [
        ("steam_pics_2026", None, True, dt.date(2026, 7, 24)),
        ("steam_pics_2026", dt.date(2026, 7, 24), True, dt.date(2026, 7, 24)),
        ("steam_pics_2026", SUMMER_SALE_EVE, False, None),
        ("steam_review_playtime_2026", SUMMER_SALE_EVE, False, None),
        ("hltb_steam_2026", SUMMER_SALE_EVE, False, None),
        ("steamspy_2025-01-01", SUMMER_SALE_EVE, True, dt.date(2025, 1, 1)),
        (PRICE_HISTORY_LAYER, SUMMER_SALE_EVE, True, SUMMER_SALE_EVE),
        ("steam_delisted_2026-08", dt.date(2026, 7, 1), True, dt.date(2026, 7, 1)),
    ],
    ids=[
        "no-day",
        "pics-on-its-day",
        "pics-newer",
        "review-sample-newer",
        "hltb-2026-newer",
        "older-kept",
        "dated-rows-cut",
        "delisted-rows-cut",
    ],
)
def test_a_build_as_of_a_day_reads_each_source_as_that_day_knew_it(
    name: str, day: dt.date | None, kept: bool, dated: dt.date | None
) -> None:
    source = _source(name).as_of(day)
    assert (source is not None) == kept
    if source is not None:
        assert source.layer.date == dated
        assert source.layer.name == name


@pytest.mark.slow
@pytest.mark.parametrize(
    ("day", "some"),
    [(dt.date(2026, 7, 2), True), (SUMMER_SALE_EVE, False)],
    ids=["mid-summer-sale", "summer-sale-eve: the first scrape is later"],
)
def test_the_price_history_as_of_a_day_holds_no_later_scrape(
    day: dt.date, some: bool, whole_price_history: list[Observation]
) -> None:
    cut = _source(PRICE_HISTORY_LAYER).as_of(day)
    assert cut is not None
    kept = [o for o in cut.read(RAW / cut.path, Observations()) if o.field == "price_points"]
    points = [p for o in kept for p in o.value]
    assert all(p.at.date() <= day for p in points)
    assert (len(points) > 10_000) == some
    # The newest point of every app kept is its newest scrape up to the day, dumps unread.
    every = {o.appid: [p for p in o.value if p.at.date() <= day] for o in whole_price_history}
    assert {o.appid: o.value[-1] for o in kept} == {a: ps[-1] for a, ps in every.items() if ps}


@pytest.fixture(scope="module")
def whole_price_history() -> list[Observation]:
    """The price history's price points as its source reads the whole dump, no day cut: read
    once for the module's as-of cases, not once for each (about 5 s of CPU a read)."""
    source = _source(PRICE_HISTORY_LAYER)
    return [o for o in source.read(RAW / source.path, Observations()) if o.field == "price_points"]


def test_read_observations_as_of_a_day_leaves_newer_sources_out(tmp_path: Path) -> None:
    # A newer source is left out before its file is looked for: no "missing raw dump".
    known, counts = read_observations(tmp_path, [_source("steam_pics_2026")], as_of=SUMMER_SALE_EVE)
    assert (known.layers, dict(counts)) == ((), {})


# The small dumps, with the sources that match against them (itad_2025, hltb_2023 by title):
# read by workers and in order, then compared.
AHEAD = [
    s
    for s in BUNDLED
    if s.layer.name
    in {
        "steam_store_2019",
        "steam_delisted_2026-08",
        "hltb_steam_2026",
        "steam_rarest_achievement_2024-12",
        "steam_players_2018",
        "itad_2025",
        "hltb_2023 by title",
    }
]


def test_read_observations_by_workers_reads_what_one_process_reads() -> None:
    # Issue 56: a first build reads the dumps on every core; the catalogue must not move.
    assert {s.matches_known for s in AHEAD} == {True, False}
    one, one_counts = read_observations(RAW, AHEAD, expected={})
    two, two_counts = read_observations(RAW, AHEAD, expected={}, workers=2)
    assert two_counts == one_counts and min(one_counts.values()) > 0
    assert two.layers == one.layers and two.fields() == one.fields()
    for name in one.fields():
        assert two.tables(name) == one.tables(name), name
        # the same order too: the resolver walks the tables in it
        assert [list(t) for _, t in two.tables(name)] == [list(t) for _, t in one.tables(name)]
    assert two.appids == one.appids


def test_read_observations_by_workers_names_a_missing_dump(tmp_path: Path) -> None:
    # the first in order, as one process names it, though workers read the others meanwhile
    with pytest.raises(CatalogError, match=f"missing raw dump .*{re.escape(AHEAD[0].path)}$"):
        read_observations(tmp_path, AHEAD, expected={}, workers=2)
