"""The catalog (ingest.catalog): resolution of hand-built observations into rated records and
not-rated apps, provenance, and Catalog files. The real bundled catalog: test_catalog_real.py.
"""

from __future__ import annotations

import datetime as dt
import gzip
from pathlib import Path

import pytest

from bangscore.errors import CatalogError
from bangscore.ingest.catalog import (
    BUNDLED,
    IngestReport,
    assemble,
    read_catalog,
    read_observations,
    write_catalog,
)
from bangscore.ingest.resolve.observations import TRUST_MATCHED, Layer, Observation, Observations
from bangscore.scoring.records import GameRecord
from tests.support import factories

PICS = Layer("steam_pics_2026", "storefront", dt.date(2026, 7, 24))
PRICES = Layer("steam_prices_usd_2026", "storefront", dt.date(2026, 7, 13))
SPY = Layer("steamspy_2025-01-01", "player_stats", dt.date(2025, 1, 1))
HLTB = Layer("hltb_steam_2025-12", "play_length", dt.date(2025, 12, 27))
OLD_HLTB = Layer("hltb_2023", "play_length", dt.date(2023, 12, 31))
PLAYTIME = Layer("steam_review_playtime_2026", "player_stats", dt.date(2026, 7, 24), TRUST_MATCHED)
DELISTED = Layer("steam_delisted_2026-08", "storefront", dt.date(2026, 8, 22))


def o(appid: int, field: str, value: object) -> Observation:
    return Observation(appid, field, value)


def world() -> Observations:
    """Six apps, one per outcome: rated (2), delisted by list and by $0, no price, too few
    reviews, not a game, no length."""
    known = Observations()
    known.add(
        PICS,
        [
            o(1, "name", "Great RPG"),
            o(1, "app_type", "game"),
            o(1, "tags", ("RPG", "Story Rich")),
            o(1, "storefront_genres", ("RPG",)),
            o(1, "release_date", dt.date(2023, 8, 3)),
            o(1, "review_score", 0.96),
            o(2, "name", "Estimated"),
            o(3, "name", "Football Manager 2021"),
            o(4, "name", "No Price"),
            o(5, "name", "Tiny"),
            o(6, "name", "Great RPG Soundtrack"),
            o(7, "name", "Withdrawn"),
            o(8, "name", "Lengthless"),
        ],
    )
    known.add(PRICES, [o(1, "price", (47.99, 59.99, 20)), o(6, "price", (4.99, 4.99, 0))])
    known.add(
        SPY,
        [
            o(1, "review_count", 700_000),
            o(1, "review_score", 0.9),  # older than PICS: loses
            o(1, "usd_price_seen", 39.99),
            o(2, "price", (9.99, 19.99, 50)),  # a sale seen long ago: published at list price
            o(2, "review_count", 400),
            o(2, "review_score", 0.8),
            o(3, "price", (0.0, 0.0, 0)),
            o(3, "review_count", 23_895),
            o(4, "review_count", 900),
            o(5, "price", (4.99, 4.99, 0)),
            o(5, "review_count", 49),
            o(6, "review_count", 500),
            o(7, "price", (0.0, 0.0, 0)),
            o(7, "paid_before", True),
            o(7, "review_count", 5000),
            o(8, "price", (9.99, 9.99, 0)),
            o(8, "review_count", 5000),
        ],
    )
    known.add(HLTB, [o(1, "main_story_hours", 72.2), o(1, "completionist_hours", 150.0)])
    known.add(OLD_HLTB, [o(1, "main_story_hours", 23.0)])
    known.add(
        PLAYTIME,
        [
            o(1, "reviewer_playtime", (105.0, 18.9, 955, 45)),
            o(2, "reviewer_playtime", (10.0, 2.0, 300, 30)),
        ],
    )
    known.add(DELISTED, [o(3, "delisted", dt.date(2026, 6, 1))])
    return known


@pytest.fixture(scope="module")
def assembled() -> tuple[dict[int, GameRecord], dict[int, str], IngestReport]:
    report = IngestReport()
    rated, refused = assemble(world(), report)
    return {r.appid: r for r in rated}, {a.appid: a.reason for a in refused}, report


def test_assemble_splits_rated_and_not_rated(
    assembled: tuple[dict[int, GameRecord], dict[int, str], IngestReport],
) -> None:
    rated, refused, report = assembled
    assert sorted(rated) == [1, 2]
    assert refused == {
        3: "delisted",
        4: "no_usd_price",
        5: "too_few_reviews",
        6: "not_a_game",
        7: "delisted",
        8: "no_length",
    }
    assert report.rated == 2 and report.apps == 8
    assert report.dropped["delisted"] == 2
    assert report.length_sources == {"hltb": 1, "playtime_estimate": 1}
    assert "rated games: 2" in report.summary()


def test_assemble_resolves_each_field_by_precedence_with_provenance(
    assembled: tuple[dict[int, GameRecord], dict[int, str], IngestReport],
) -> None:
    rpg = assembled[0][1]
    assert (rpg.price_usd, rpg.list_price_usd, rpg.discount_percent) == (47.99, 59.99, 20)
    assert (rpg.review_score, rpg.review_count) == (0.96, 700_000)
    assert (rpg.main_story_hours, rpg.length_source, rpg.checks) == (72.2, "hltb", ())
    assert rpg.release_year == 2023
    assert rpg.historical_low_usd == 39.99
    assert rpg.positive_reviewer_hours == 105.0 and rpg.positive_reviewers == 955
    assert {k: (p.source, p.kind) for k, p in rpg.provenance.items()} == {
        "completionist_hours": ("hltb_steam_2025-12", "play_length"),
        "finish_rate": ("steam_review_playtime_2026", "player_stats"),
        "genre": ("steam_pics_2026", "storefront"),
        "historical_low_usd": ("steamspy_2025-01-01", "player_stats"),
        "length_hours": ("hltb_steam_2025-12", "play_length"),
        "name": ("steam_pics_2026", "storefront"),
        "price_usd": ("steam_prices_usd_2026", "storefront"),
        "release_year": ("steam_pics_2026", "storefront"),
        "review_count": ("steamspy_2025-01-01", "player_stats"),
        "review_score": ("steam_pics_2026", "storefront"),
        "tags": ("steam_pics_2026", "storefront"),
    }
    # Oldest date of each kind's inputs.
    assert rpg.sources.storefront == dt.date(2026, 7, 13)
    assert rpg.sources.player_stats == dt.date(2025, 1, 1)
    assert rpg.sources.play_length == dt.date(2025, 12, 27)
    assert rpg.estimated == ("finish_rate",)


def test_assemble_estimates_length_and_publishes_stale_sales_at_list_price(
    assembled: tuple[dict[int, GameRecord], dict[int, str], IngestReport],
) -> None:
    estimated = assembled[0][2]
    assert (estimated.price_usd, estimated.list_price_usd, estimated.discount_percent) == (
        19.99,
        19.99,
        0,
    )
    assert estimated.historical_low_usd == 9.99
    assert (estimated.main_story_hours, estimated.length_source) == (7.0, "playtime_estimate")
    # Its share is SteamSpy 2025's alone, corrected by the measured offset (issue 53): estimated.
    assert estimated.estimated == ("length_hours", "review_score")
    assert estimated.finish_rate is None
    assert estimated.provenance["length_hours"].source == "steam_review_playtime_2026"


def test_assemble_refuses_a_regional_copy_as_without_a_us_price() -> None:
    known = Observations()
    maker = [("developer", "Obsidian Entertainment"), ("publisher", "Bethesda Softworks")]
    known.add(
        PICS,
        [o(22380, "name", "Fallout: New Vegas"), o(22380, "app_type", "game")]
        + [o(22380, k, v) for k, v in maker],
    )
    known.add(
        SPY,
        [
            o(22380, "price", (9.99, 9.99, 0)),
            o(22380, "review_count", 220_829),
            o(22380, "review_score", 0.95),
            o(22490, "name", "Fallout: New Vegas"),  # only SteamSpy knows it, at 22380's price
            o(22490, "price", (9.99, 9.99, 0)),
            o(22490, "review_count", 48_906),
            o(22490, "review_score", 0.96),
        ]
        + [o(22490, k, v) for k, v in maker],
    )
    known.add(HLTB, [o(22380, "main_story_hours", 26.8), o(22490, "main_story_hours", 27.6)])
    report = IngestReport()
    rated, refused = assemble(known, report)
    assert [r.appid for r in rated] == [22380]
    assert [(a.appid, a.reason) for a in refused] == [(22490, "no_usd_price")]
    assert report.regional_copies == 1
    assert "of which regional copies of another listing" in report.summary()


INSIGHTS = Layer("steam_insights_2024", "storefront", dt.date(2024, 10, 31))


def free_flag_world() -> Observations:
    """Four apps no US price dump prices except 4, with the 2024 catalogue's ``is_free``: free
    and released before the flag (1), free but released after it (2), not free (3), free in
    2024 and priced in 2026 (4)."""
    known = Observations()
    released = {1: dt.date(2022, 5, 1), 2: dt.date(2025, 3, 1), 3: dt.date(2022, 5, 1)}
    known.add(
        PICS,
        [o(a, "name", f"Game {a}") for a in (1, 2, 3, 4)]
        + [o(a, "app_type", "game") for a in (1, 2, 3, 4)]
        + [o(a, "release_date", day) for a, day in released.items()]
        + [o(4, "release_date", dt.date(2021, 1, 1))],
    )
    known.add(PRICES, [o(4, "price", (9.99, 9.99, 0))])
    known.add(
        INSIGHTS,
        [o(1, "free", True), o(2, "free", True), o(3, "free", False), o(4, "free", True)]
        + [o(a, "review_count", 800) for a in (1, 2, 3, 4)]
        + [o(a, "review_score", 0.9) for a in (1, 2, 3, 4)],
    )
    known.add(HLTB, [o(a, "main_story_hours", 6.0) for a in (1, 2, 3, 4)])
    return known


def test_assemble_prices_a_free_flag_at_zero_only_where_nothing_prices_the_game() -> None:
    report = IngestReport()
    rated, refused = assemble(free_flag_world(), report)
    games = {r.appid: r for r in rated}
    assert sorted(games) == [1, 4]
    assert {a.appid: a.reason for a in refused} == {2: "no_usd_price", 3: "no_usd_price"}
    free = games[1]
    assert (free.price_usd, free.list_price_usd, free.discount_percent) == (0.0, 0.0, 0)
    assert free.price_observed_at == dt.datetime(2024, 10, 31, tzinfo=dt.UTC)
    assert free.provenance["price_usd"].source == "steam_insights_2024"
    assert free.provenance["price_usd"].date == dt.date(2024, 10, 31)
    assert [(p.date, p.price_usd, p.source) for p in free.price_history] == [
        (dt.date(2024, 10, 31), 0.0, "steam_insights_2024")
    ]
    assert (free.historical_low_usd, free.historical_low_at) == (0.0, dt.date(2024, 10, 31))
    assert "price_usd" not in free.estimated
    assert games[4].price_usd == 9.99  # any US price beats the flag
    assert report.free_flag == 1
    assert "rated games priced only by the free flag: 1" in report.summary()


def test_assemble_prices_a_free_to_play_release_no_dump_prices_at_zero() -> None:
    # docs/API.md#prices-and-dates: an app no US price dump holds that the storefront files
    # under Free to Play is free at that record's date. 11: released 2025, its 2024 flag (seen
    # before release) says nothing; 12: sold for money once out (flag False after release);
    # 13: unreleased on the record's date; 14: the genre beside a real price, which wins.
    known = Observations()
    released = {
        11: dt.date(2025, 3, 1),
        12: dt.date(2022, 5, 1),
        13: dt.date(2026, 9, 1),
        14: dt.date(2023, 1, 1),
    }
    apps = tuple(released)
    known.add(
        PICS,
        [o(a, "name", f"Game {a}") for a in apps]
        + [o(a, "app_type", "game") for a in apps]
        + [o(a, "release_date", day) for a, day in released.items()]
        + [o(a, "storefront_genres", ("Action", "Free to Play")) for a in apps],
    )
    known.add(PRICES, [o(14, "price", (4.99, 4.99, 0))])
    known.add(
        INSIGHTS,
        [o(11, "free", False), o(12, "free", False)]
        + [o(a, "review_count", 800) for a in apps]
        + [o(a, "review_score", 0.9) for a in apps],
    )
    known.add(HLTB, [o(a, "main_story_hours", 6.0) for a in apps])
    rated, refused = assemble(known, IngestReport())
    games = {r.appid: r for r in rated}
    assert sorted(games) == [11, 14]
    assert {a.appid: a.reason for a in refused} == {12: "no_usd_price", 13: "no_usd_price"}
    free = games[11]
    assert (free.price_usd, free.list_price_usd) == (0.0, 0.0)
    assert free.provenance["price_usd"].source == "steam_pics_2026"
    assert free.price_observed_at == dt.datetime(2026, 7, 24, tzinfo=dt.UTC)
    assert games[14].price_usd == 4.99


def test_release_year_is_the_earliest_storefront_date() -> None:
    # Hot Dogs, Horseshoes & Hand Grenades: in Early Access since 2016 (the 2024 catalogue),
    # PICS's date is its 2026 1.0. A play-length source's date is no storefront date.
    known = Observations()
    known.add(
        PICS,
        [
            o(31, "name", "Game 31"),
            o(31, "app_type", "game"),
            o(31, "release_date", dt.date(2026, 7, 4)),
            o(31, "price", (19.99, 19.99, 0)),
        ],
    )
    known.add(
        INSIGHTS,
        [
            o(31, "release_date", dt.date(2016, 4, 5)),
            o(31, "review_count", 800),
            o(31, "review_score", 0.9),
        ],
    )
    known.add(HLTB, [o(31, "main_story_hours", 6.0), o(31, "release_date", dt.date(2010, 1, 1))])
    [game], _ = assemble(known, IngestReport())
    assert game.release_year == 2016
    assert game.provenance["release_year"].source == "steam_insights_2024"


def test_write_then_read_catalog_round_trips(tmp_path: Path) -> None:
    catalog = factories.make_catalog(
        [factories.make_record(appid=10), factories.make_record(appid=1145360, name="Hades")]
    )
    path = tmp_path / "out" / "catalog.json.gz"
    write_catalog(catalog, path)

    assert read_catalog(path) == catalog
    assert [p.name for p in path.parent.iterdir()] == ["catalog.json.gz"]  # no temp file left


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(None, "does not exist", id="missing"),
        pytest.param(b"plain text", "not readable gzip", id="not-gzip"),
        pytest.param(gzip.compress(b"{"), "not valid JSON", id="not-json"),
        pytest.param(gzip.compress(b'{"games": 3}'), "not a valid catalog", id="wrong-shape"),
        pytest.param(gzip.compress(b"x")[:-4], "not readable gzip", id="truncated"),
    ],
)
def test_read_catalog_errors(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "catalog.json.gz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(CatalogError, match=message):
        read_catalog(path)


def test_read_observations_names_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match=r"missing raw dump .*steam_pics_2026"):
        read_observations(tmp_path)


def test_every_bundled_source_has_a_distinct_layer() -> None:
    names = [source.layer.name for source in BUNDLED]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(
    ("appid", "year", "source"),
    [
        pytest.param(1, 2023, "steam_pics_2026", id="a-storefront-date-wins"),
        pytest.param(2, 2016, "hltb_2023_years", id="else-the-play-length-year"),
    ],
)
def test_assemble_takes_the_year_any_source_knows(appid: int, year: int, source: str) -> None:
    known = world()
    years = Layer("hltb_2023_years", "play_length", dt.date(2023, 12, 31))
    known.add(
        years, [o(1, "play_length_release_year", 2020), o(2, "play_length_release_year", 2016)]
    )
    rated, _ = assemble(known, IngestReport())
    record = next(r for r in rated if r.appid == appid)
    assert record.release_year == year
    assert record.provenance["release_year"].source == source
