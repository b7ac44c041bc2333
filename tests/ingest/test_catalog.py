"""The catalog (ingest.catalog): resolution into rated records and not-rated apps, provenance,
Catalog files, and the real bundled catalog.

The first group assembles hand-built observations; the last group loads the real bundled dumps
once per session and checks facts that can be read off the raw files by hand.
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
from bangscore.scoring.play import is_unattended
from bangscore.scoring.records import Catalog, EarlyWindow, GameRecord
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


# -- the real bundled catalog -------------------------------------------------------------------


def rated_of(bundled: tuple[Catalog, IngestReport]) -> dict[int, GameRecord]:
    return {g.appid: g for g in bundled[0].games}


def test_bundled_catalog_size_years_and_rules(bundled: tuple[Catalog, IngestReport]) -> None:
    catalog, report = bundled
    assert len(catalog.games) == report.rated >= 25_000
    assert (
        report.apps
        == report.rated + sum(report.dropped.values())
        == (len(catalog.games) + len(catalog.not_rated))
    )
    assert set(report.dropped) == {
        "delisted",
        "too_few_reviews",
        "no_usd_price",
        "no_length",
        "not_a_game",
        "no_store_data",
        "superseded",
        "not_for_sale",
    }
    assert all(report.years[year] > 0 for year in (2024, 2025, 2026))
    assert report.early_window >= 1_300  # 1,393 rated games have a review in the dumps


def test_bundled_catalog_invariants(bundled: tuple[Catalog, IngestReport]) -> None:
    catalog, _ = bundled
    appids = [g.appid for g in catalog.games]
    assert appids == sorted(set(appids))
    assert not set(appids) & {a.appid for a in catalog.not_rated}
    for game in catalog.games:
        assert game.review_count >= 50
        assert game.price_usd <= game.list_price_usd
        assert game.historical_low_usd is not None and game.historical_low_usd <= game.price_usd
        assert game.length_source in ("hltb", "playtime_estimate", "playtime")
        assert (game.length_source == "playtime_estimate") == ("length_hours" in game.estimated)
        assert (game.finish_rate is None) == ("finish_rate" not in game.provenance)
        assert {"price_usd", "review_count", "length_hours"} <= set(game.provenance)
        assert len(game.tags) <= 20
        dates = [point.date for point in game.price_history]
        assert dates == sorted(set(dates)) and len(dates) <= 60
        low = game.provenance.get("historical_low_usd")
        # The newest observation is the price's day; a dated low of the price-history source
        # (a point made for the low, issue 33) may come after a stale price.
        observed = [
            p
            for p in game.price_history
            if not (low is not None and low.kind == "price_history" and p.source == low.source)
        ]
        if game.price_observed_at is not None and observed:
            assert observed[-1].date == game.price_observed_at.date()


def test_bundled_baldurs_gate_3_takes_the_2025_length(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    bg3 = rated_of(bundled)[1086940]
    # hltb_steam_2025-12: comp_main 259,845 s; hltb_2023 says 23 h (early access).
    assert bg3.main_story_hours == pytest.approx(259_845 / 3600)
    assert bg3.provenance["length_hours"].source == "hltb_steam_2025-12"
    assert bg3.tags[:3] == ("RPG", "Character Customization", "Choices Matter")  # PICS order


@pytest.mark.parametrize(
    ("appid", "name"),
    [
        pytest.param(2379780, "Balatro", id="balatro"),
        pytest.param(1145350, "Hades II", id="hades-ii"),
        pytest.param(553850, "HELLDIVERS™ 2", id="helldivers-2"),
        pytest.param(1623730, "Palworld", id="palworld"),
    ],
)
def test_bundled_new_releases_are_rated(
    bundled: tuple[Catalog, IngestReport], appid: int, name: str
) -> None:
    assert rated_of(bundled)[appid].name == name


def test_bundled_hades_fills_pics_gaps_from_the_2024_catalogue(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    hades = rated_of(bundled)[1145360]
    # SteamSpy 2025-01-01: "999" / "2499" at -60% in the winter sale, long over: list price.
    assert (hades.price_usd, hades.list_price_usd, hades.discount_percent) == (24.99, 24.99, 0)
    # ITAD: deepest discount 75% of $24.99, rounded down to the cent.
    assert hades.historical_low_usd == 6.24 and "historical_low_usd" in hades.estimated
    assert hades.provenance["tags"].source == "steam_insights_2024"
    assert "Roguelike" in hades.tags


@pytest.mark.parametrize(
    ("appid", "reason"),
    [
        pytest.param(1263850, "delisted", id="football-manager-2021"),
        pytest.param(1569040, "delisted", id="football-manager-2022"),
        pytest.param(1904540, "delisted", id="football-manager-2023"),
        pytest.param(465650, "delisted", id="out-of-the-park-baseball-18-free-but-paid"),
        # $0 in SteamSpy 2025 while the 2024 storefront says not free: replaced by later editions.
        pytest.param(202170, "no_usd_price", id="sleeping-dogs-original-zero-is-no-price"),
        pytest.param(261570, "no_usd_price", id="ori-blind-forest-original-zero-is-no-price"),
        # Regional copies: only SteamSpy knows them, at their twin's price (22380, 42680, 2545).
        pytest.param(22490, "no_usd_price", id="fallout-new-vegas-regional-edition"),
        pytest.param(115300, "no_usd_price", id="modern-warfare-3-second-listing"),
        pytest.param(2550, "no_usd_price", id="rip-trilogy-second-listing"),
        # A free first episode under its series' name, credited with the season's length by
        # the play-length source: not rated rather than judged on 14 h (docs/API.md#game_not_rated).
        pytest.param(319630, "no_length", id="life-is-strange-free-first-episode"),
    ],
)
def test_bundled_not_rated_reasons(
    bundled: tuple[Catalog, IngestReport], appid: int, reason: str
) -> None:
    refused = {a.appid: a.reason for a in bundled[0].not_rated}
    assert refused[appid] == reason


@pytest.mark.parametrize(
    ("appid", "name"),
    [
        pytest.param(570, "Dota 2", id="dota-2"),
        pytest.param(1129190, "Our Life: Beginnings & Always", id="our-life"),
    ],
)
def test_bundled_free_to_play_games_stay_rated_at_zero(
    bundled: tuple[Catalog, IngestReport], appid: int, name: str
) -> None:
    game = rated_of(bundled)[appid]
    assert (game.name, game.price_usd) == (name, 0.0)


@pytest.mark.parametrize(
    ("appid", "name"),
    [
        pytest.param(2073850, "THE FINALS", id="the-finals"),
        pytest.param(1782210, "Crab Game", id="crab-game"),
        pytest.param(1902490, "Aperture Desk Job", id="aperture-desk-job"),
    ],
)
def test_bundled_free_games_no_price_dump_lists_are_priced_by_the_free_flag(
    bundled: tuple[Catalog, IngestReport], appid: int, name: str
) -> None:
    # No US price dump lists them; the 2024 catalogue's is_free is "1", after their release.
    game = rated_of(bundled)[appid]
    assert (game.name, game.price_usd, game.list_price_usd) == (name, 0.0, 0.0)
    assert game.price_observed_at == dt.datetime(2024, 10, 31, tzinfo=dt.UTC)
    assert game.provenance["price_usd"].source == "steam_insights_2024"
    assert [p.source for p in game.price_history] == ["steam_insights_2024"]
    assert bundled[1].free_flag > 2_000


def test_bundled_regional_copies_leave_their_twin_rated(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    rated = set(rated_of(bundled))
    assert {22380, 42680, 2545} <= rated
    assert not {22490, 115300, 2550} & rated
    assert bundled[1].regional_copies >= 3


def test_bundled_early_window_from_the_review_dumps(bundled: tuple[Catalog, IngestReport]) -> None:
    portal = rated_of(bundled)[400]
    window = portal.early_window
    assert isinstance(window, EarlyWindow)
    assert window.source == "steam_reviews_window_2025-01"
    assert window.window.to == dt.date(2025, 1, 20) == portal.sources.review_sample
    assert 0 < window.reviews < window.sample
    assert window.review_share == pytest.approx(window.reviews / window.sample)


def test_bundled_idle_games_are_marked_unattended(bundled: tuple[Catalog, IngestReport]) -> None:
    games = rated_of(bundled)
    assert is_unattended(games[1147690].tags)  # NGU IDLE
    assert is_unattended(games[1454400].tags)  # Cookie Clicker


@pytest.mark.parametrize(
    ("appid", "genre"),
    [
        pytest.param(1794680, "RPG", id="vampire-survivors-gdr"),
        pytest.param(418240, "Strategy", id="shadow-tactics-strategii"),
        pytest.param(2050650, "Action", id="resident-evil-4-dongzuo"),
    ],
)
def test_bundled_localized_storefront_genres_are_english(
    bundled: tuple[Catalog, IngestReport], appid: int, genre: str
) -> None:
    assert genre in rated_of(bundled)[appid].storefront_genres


def test_bundled_prices_are_as_of_the_newest_observation(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    # scraped_at 1784902420 .. of the 2026-07-24 14:18 version of the price history.
    assert bundled[0].prices_as_of == dt.datetime(2026, 7, 24, 14, 13, 40, tzinfo=dt.UTC)


def test_bundled_no_game_shows_a_sale_that_is_not_current(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    catalog, _ = bundled
    as_of = catalog.prices_as_of
    assert as_of is not None
    on_sale = [g for g in catalog.games if g.discount_percent > 0 or g.price_usd < g.list_price_usd]
    stale = []
    for game in on_sale:
        assert game.price_observed_at is not None
        ends = game.price_history[-1].discount_end if game.price_history else None
        recent = as_of - game.price_observed_at <= dt.timedelta(days=2)
        if not (recent or (ends is not None and ends > as_of)):
            stale.append((game.appid, game.name))
    assert stale == []
    # The July 2026 checkpoints of the high appids were taken in the summer sale: many games
    # were seen discounted, and are now shown at their list price with the sale in history.
    ended = [
        g
        for g in catalog.games
        if g.discount_percent == 0 and any(p.discount_percent > 0 for p in g.price_history)
    ]
    assert len(on_sale) > 500 and len(ended) > 5_000


@pytest.mark.parametrize(
    ("appid", "name", "list_price", "low", "low_at"),
    [
        pytest.param(
            1030300, "Hollow Knight: Silksong", 19.99, 14.99, dt.date(2026, 7, 3), id="silksong"
        ),
        pytest.param(
            1903340,
            "Clair Obscur: Expedition 33",
            49.99,
            39.99,
            dt.date(2026, 7, 2),
            id="clair-obscur",
        ),
    ],
)
def test_bundled_2025_hits_are_rated_at_list_price_with_a_dated_history(
    bundled: tuple[Catalog, IngestReport],
    appid: int,
    name: str,
    list_price: float,
    low: float,
    low_at: dt.date,
) -> None:
    game = rated_of(bundled)[appid]
    assert (game.name, game.price_usd, game.discount_percent) == (name, list_price, 0)
    assert (game.historical_low_usd, game.historical_low_at) == (low, low_at)
    assert game.price_observed_at is not None
    assert game.price_observed_at.date() == low_at  # the summer-sale checkpoint, over since
    # Every run of one price the 2026 dumps saw is a point (issue 33): the list price, then the
    # summer sale's first day.
    assert {p.source for p in game.price_history} == {"steam_prices_usd_2026-07"}
    assert (low_at, low) in [(p.date, p.price_usd) for p in game.price_history]
    assert "review_count" in game.estimated  # a 2026 sample's count: a lower bound


def test_bundled_rates_the_2025_and_2026_releases(bundled: tuple[Catalog, IngestReport]) -> None:
    _, report = bundled
    assert report.years[2025] >= 3_000
    assert report.years[2026] >= 1_200
    assert report.rated >= 38_000


def test_bundled_zero_seen_before_release_is_no_price(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    # The Last Sovereign (2025): the 2024 catalogue listed it, unreleased, at $0.
    refused = {a.appid: a.reason for a in bundled[0].not_rated}
    assert refused[951830] == "no_usd_price"


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


@pytest.mark.slow
def test_bundled_ori_will_of_the_wisps_has_the_year_only_howlongtobeat_knows(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    ori = next(g for g in bundled[0].games if g.appid == 1057090)
    assert ori.release_year == 2020
    assert ori.provenance["release_year"].source == "hltb_2023"
