"""The real bundled catalog (ingest.catalog): the bundled dumps loaded once per session (the
``bundled`` fixture), and facts that can be read off the raw files by hand. Resolution of
hand-built observations: test_catalog.py.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.catalog import (
    IngestReport,
)
from bangscore.scoring.play import is_unattended
from bangscore.scoring.records import Catalog, EarlyWindow, GameRecord


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


@pytest.mark.slow
def test_bundled_ori_will_of_the_wisps_has_the_year_only_howlongtobeat_knows(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    ori = next(g for g in bundled[0].games if g.appid == 1057090)
    assert ori.release_year == 2020
    assert ori.provenance["release_year"].source == "hltb_2023"
