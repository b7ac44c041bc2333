"""The ranking of the real bundled catalog, as a player reads it: the top and the bottom of the
list, and where games everybody knows land (scoring/CALIBRATION.md has the full report).

Each check names what score version 2.0 got wrong on these dumps."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bangscore.build.buyer import buyer_fields
from bangscore.ingest.catalog import IngestReport
from bangscore.ingest.resolve.names import normalise_name
from bangscore.scoring import flags
from bangscore.scoring.calibration.bands import very_positive, worth_it_at_sale
from bangscore.scoring.pipeline import ScoredGame, is_free
from bangscore.scoring.records import Catalog
from tests.support.raw_prices import raw_recent_reviews, raw_unpriced


@pytest.fixture(scope="module")
def ranked(real_cache: Path) -> list[ScoredGame]:
    from tests.support.real_catalogue import cached_games

    return cached_games(real_cache)


def rank_of(ranked: list[ScoredGame], appid: int) -> tuple[int, ScoredGame]:
    for i, game in enumerate(ranked):
        if game.record.appid == appid:
            return i + 1, game
    raise AssertionError(f"appid {appid} is not rated")


def test_top_50_ranks_each_game_once(ranked: list[ScoredGame]) -> None:
    # 2.0: Fallout: New Vegas at #8 (22490, a regional copy) and #29 (22380).
    keys = [(normalise_name(g.record.name), g.record.developer) for g in ranked[:50]]
    assert len(keys) == len(set(keys))


NOT_PLAY = {"Idler", "Clicker", "Incremental", "Software Training", "Utilities"}


def test_no_idle_game_tool_or_ambient_app_near_the_top(ranked: list[ScoredGame]) -> None:
    # 2.0: Virtual Cottage #6, KovaaK's #21 ('Software Training' is its 7th tag).
    assert [g.record.name for g in ranked[:100] if g.inputs.unattended] == []
    assert [g.record.name for g in ranked[:100] if NOT_PLAY.intersection(g.record.tags[:10])] == []


def test_estimated_lengths_do_not_carry_games_into_the_top_50(ranked: list[ScoredGame]) -> None:
    # 2.0: four games with a 30 h playtime estimate in the top 50 (#28, #30, #44, #48).
    estimated = [g for g in ranked[:50] if g.record.length_source == "playtime_estimate"]
    assert len(estimated) <= 1
    # What is left there stands on replay depth a measured game would get too, not on its story.
    assert all(g.inputs.replayable for g in estimated)


@pytest.mark.parametrize(
    ("appid", "lowest_rank"),
    [
        pytest.param(1661690, 51, id="wo-mei-k"),
        pytest.param(1706090, 51, id="bean-and-nothingness"),
        pytest.param(1958340, 51, id="cube-chaos"),
        pytest.param(824270, 1000, id="kovaaks"),
        pytest.param(1369320, 1000, id="virtual-cottage"),
    ],
)
def test_games_2_0_overrated_fall(ranked: list[ScoredGame], appid: int, lowest_rank: int) -> None:
    rank, _ = rank_of(ranked, appid)
    assert rank >= lowest_rank


def test_bottom_10_are_the_worst_buys(ranked: list[ScoredGame]) -> None:
    # 2.0: the 783 games at 0 were listed by appid, so the bottom was the newest of them. Since
    # 5.0 a disliked game's sliver of a score is docked by its price like any other, so the
    # bottom holds the worst reviewed and the dearest of the disliked ($199.99 for 40 minutes).
    assert all(g.bang_score == 0 for g in ranked[-10:])
    assert all(g.record.review_score < 0.5 for g in ranked[-10:])
    assert all(g.record.review_score <= 0.25 or g.record.price_usd >= 50 for g in ranked[-10:])


@pytest.mark.parametrize(
    ("appid", "lowest", "highest", "genre"),
    [
        # Round 4's genres: puzzle platformers, farming sims, survival crafting and idle games
        # are "other" (docs/API.md#genres).
        # Portal's 3 h now weigh against "other"'s 8 h norm (sims, sandboxes and puzzles
        # together), not action's: 79 at $9.99, worth it, a banger only on sale.
        pytest.param(400, 65, 100, "other", id="portal"),
        pytest.param(620, 80, 100, "other", id="portal-2"),
        pytest.param(1145360, 80, 100, "roguelike", id="hades"),
        pytest.param(1145350, 80, 100, "roguelike", id="hades-ii"),
        pytest.param(2379780, 80, 100, "roguelike", id="balatro"),
        pytest.param(413150, 80, 100, "other", id="stardew-valley"),
        pytest.param(367520, 80, 100, "action", id="hollow-knight"),
        pytest.param(105600, 80, 100, "other", id="terraria"),
        pytest.param(1794680, 80, 100, "roguelike", id="vampire-survivors"),
        # Two hours at its $14.99 list price, about 2.6 times what two hours of a narrative game
        # are worth (score version 5.0: price docks above worth): fair, worth it in a sale.
        pytest.param(638230, 45, 79, "narrative", id="journey"),
        # Two hours at its $19.99 list price: fair, worth it only on sale.
        pytest.param(501300, 45, 79, "narrative", id="what-remains-of-edith-finch"),
        # 1.5 h at $7.99: worth it (4.0 judges it against short games of established price).
        pytest.param(1055540, 65, 100, "narrative", id="a-short-hike"),
        pytest.param(504230, 65, 100, "action", id="celeste"),
        # Full price for a long, loved RPG: worth it.
        pytest.param(1086940, 65, 100, "rpg", id="baldurs-gate-3"),
        pytest.param(1245620, 65, 100, "rpg", id="elden-ring"),
        # 2.0 filed Undertale under narrative (its alphabetical tags put 'Choices Matter' third).
        pytest.param(391540, 80, 100, "rpg", id="undertale"),
        # 2025-2026 releases, rated since the 2026 price history (list prices, summer sale over).
        pytest.param(1030300, 65, 100, "action", id="hollow-knight-silksong"),
        pytest.param(1903340, 65, 100, "rpg", id="clair-obscur-expedition-33"),
        pytest.param(1771300, 65, 100, "rpg", id="kingdom-come-deliverance-ii"),
        # Its review count is known only as "1,000+": 94% of 1,000 counts as about 88%.
        pytest.param(3527290, 65, 100, "multiplayer", id="peak"),
        pytest.param(3405340, 80, 100, "roguelike", id="megabonk"),
        pytest.param(2062430, 80, 100, "roguelike", id="ball-x-pit"),
        pytest.param(3164500, 80, 100, "other", id="schedule-i"),
        pytest.param(2592160, 65, 100, "narrative", id="dispatch"),
        # Mixed reviews at $69.99: not worth it at full price.
        pytest.param(2246340, 0, 44, "action", id="monster-hunter-wilds"),
        pytest.param(1295660, 0, 44, "strategy", id="civilization-vii"),
        # Idle hours do not count.
        pytest.param(1454400, 0, 79, "other", id="cookie-clicker"),
        pytest.param(1147690, 0, 79, "other", id="ngu-idle"),
    ],
)
def test_landmarks(
    ranked: list[ScoredGame], appid: int, lowest: int, highest: int, genre: str
) -> None:
    _, game = rank_of(ranked, appid)
    assert lowest <= game.bang_score <= highest
    assert game.genre == genre


# -- Issue 38: a ranking a player trusts -----------------------------------------------------------


def test_no_game_under_an_hour_is_a_banger(ranked: list[ScoredGame]) -> None:
    # 3.0: ten bangers with a verified main story under an hour (Coconut Simulator 88, #221).
    short = [
        g.record.name
        for g in ranked
        if g.record.length_source == "hltb"
        and g.record.main_story_hours is not None
        and g.record.main_story_hours < 1
        and g.tier == "banger"
    ]
    assert short == []


def test_no_series_fills_the_api_top_50(ranked: list[ScoredGame]) -> None:
    # 3.0: six chapters of Higurashi When They Cry Hou in the top 50.
    counts = Counter(g.series.name for g in ranked[:50] if g.series is not None)
    assert all(n <= 3 for n in counts.values()), counts
    higurashi = [g for g in ranked if g.series and g.series.name.startswith("Higurashi")]
    assert len(higurashi) >= 6
    assert all(g.series == higurashi[0].series for g in higurashi)


@pytest.mark.parametrize(
    ("appid", "year"),
    [
        # The year first sold (Early Access included), not a 1.0 or a re-release.
        pytest.param(450540, 2016, id="hot-dogs-horseshoes-and-hand-grenades"),
        pytest.param(427520, 2016, id="factorio-early-access"),
    ],
)
def test_release_year_is_the_year_first_sold(
    ranked: list[ScoredGame], appid: int, year: int
) -> None:
    _, game = rank_of(ranked, appid)
    assert game.record.release_year == year


@pytest.mark.parametrize(
    "appid",
    [
        pytest.param(2767030, id="marvel-rivals"),
        pytest.param(3513350, id="wuthering-waves"),
        pytest.param(2507950, id="delta-force"),
        pytest.param(3564740, id="where-winds-meet"),
        pytest.param(2943650, id="fragpunk"),
    ],
)
def test_2025_26_free_to_play_games_are_rated_free_with_a_dated_source(
    ranked: list[ScoredGame], appid: int
) -> None:
    # 3.0: no_usd_price. No US price dump holds them; the storefront's record of 2026-07-24
    # files them under Free to Play.
    _, game = rank_of(ranked, appid)
    rec = game.record
    assert (rec.price_usd, rec.list_price_usd) == (0.0, 0.0)
    assert rec.provenance["price_usd"].source == "steam_pics_2026"
    assert rec.price_observed_at is not None
    assert rec.price_observed_at.date() == rec.provenance["price_usd"].date == dt.date(2026, 7, 24)


@pytest.mark.parametrize(
    ("appid", "genre"),
    [
        pytest.param(427520, "strategy", id="factorio"),
        pytest.param(526870, "strategy", id="satisfactory"),
        pytest.param(233860, "rpg", id="kenshi"),
    ],
)
def test_cited_genres(ranked: list[ScoredGame], appid: int, genre: str) -> None:
    _, game = rank_of(ranked, appid)
    assert game.genre == genre


# -- Issue 53: the score's middle (score version 6.0) ---------------------------------------------


@pytest.fixture(scope="module")
def verdicts(
    ranked: list[ScoredGame], bundled: tuple[Catalog, IngestReport]
) -> dict[int, dict[str, Any]]:
    """Every real game's buyer fields by appid, as the detail records carry them."""
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    fields = buyer_fields(ranked, catalog.prices_as_of.date())
    return {g.record.appid: f for g, f in zip(ranked, fields, strict=True)}


def test_very_positive_paid_games_are_worth_it_at_a_sale_price(ranked: list[ScoredGame]) -> None:
    # 5.0: 36% of them had no worth_it_at_usd at all (No Man's Sky 64, Fallout 4 55).
    vp = [g for g in ranked if very_positive(g)]
    assert len(vp) > 2_000
    missed = [g.record.name for g in vp if not worth_it_at_sale(g)]
    assert len(missed) <= 0.05 * len(vp), missed[:20]
    for appid in (275850, 377160):  # No Man's Sky, Fallout 4
        _, game = rank_of(ranked, appid)
        assert very_positive(game) and worth_it_at_sale(game)


def test_no_game_under_70_percent_is_worth_it(ranked: list[ScoredGame]) -> None:
    low = [g.record.name for g in ranked if g.record.review_score < 0.70]
    assert len(low) > 5_000
    assert [g.record.name for g in ranked if g.inputs.review_score < 0.70 and g.score >= 64.5] == []
    assert [
        g.record.name
        for g in ranked
        if g.record.review_score < 0.70 and g.tier in ("banger", "worth_it")
    ] == []


@pytest.mark.parametrize(
    "appid",
    [
        pytest.param(440, id="team-fortress-2"),
        pytest.param(730, id="counter-strike-2"),
        pytest.param(230410, id="warframe"),
        pytest.param(238960, id="path-of-exile"),
    ],
)
def test_free_games_players_like_say_get_it(
    ranked: list[ScoredGame], verdicts: dict[int, dict[str, Any]], appid: int
) -> None:
    # 5.0: "Skip" for 28 of the 31 free games with 100,000+ reviews.
    _, game = rank_of(ranked, appid)
    assert is_free(game.record)
    assert verdicts[appid]["verdict"] == "buy_now"
    assert f"{game.record.name} costs nothing" in verdicts[appid]["verdict_text"]
    assert ": get it; " in verdicts[appid]["verdict_text"]


def test_free_games_at_85_percent_get_it_and_under_70_never(
    ranked: list[ScoredGame], verdicts: dict[int, dict[str, Any]]
) -> None:
    free = [g for g in ranked if is_free(g.record)]
    liked = [g for g in free if g.record.review_score >= 0.85 and g.record.review_count >= 1000]
    got = [g for g in liked if verdicts[g.record.appid]["verdict"] == "buy_now"]
    assert len(liked) > 300 and len(got) >= 0.9 * len(liked)
    disliked = [g for g in free if g.record.review_score < 0.70]
    assert disliked and all(verdicts[g.record.appid]["verdict"] == "skip" for g in disliked)


def test_the_top_100_rests_on_firm_samples(ranked: list[ScoredGame]) -> None:
    # 5.0: 9 games under 1,000 reviews (Trails to Azure 693) and 11 adult games.
    top = ranked[:100]
    assert [g.record.name for g in top if g.record.review_count < 1000] == []
    assert sum(flags.adult(g.record) for g in top) <= 5


def test_ground_branch_reads_its_recent_collapse(ranked: list[ScoredGame]) -> None:
    # 85% lifetime, about 35% of its last 1,000 reviews: 57 "with nothing said" in 5.0.
    n_up, n_down = raw_recent_reviews()[16900]
    assert n_up + n_down >= 200 and n_up / (n_up + n_down) < 0.40
    _, game = rank_of(ranked, 16900)
    rec = game.record
    assert rec.review_score >= 0.80
    assert (rec.recent_review_score, rec.recent_review_count) == (
        round(n_up / (n_up + n_down), 4),
        n_up + n_down,
    )
    assert rec.recent_reviews_at == dt.date(2026, 7, 24)
    assert game.tier in ("fair", "skip")
    assert "recent_reviews" in game.drivers["lowers"]


UNSOLD = {
    # Also Command & Conquer 4 (round 4's release-year landmark): no longer sold in 2026.
    47700: "Command & Conquer 4: Tiberian Twilight",
    1151640: "Horizon Zero Dawn Complete Edition",
    24790: "Command & Conquer 3: Tiberium Wars",
    24810: "Command & Conquer 3: Kane's Wrath",
    230230: "Divinity: Original Sin (Classic)",
    50620: "Darksiders",
}


@pytest.mark.parametrize("appid", UNSOLD, ids=list(UNSOLD.values()))
def test_listings_no_longer_sold_are_not_rated(
    bundled: tuple[Catalog, IngestReport], appid: int
) -> None:
    # 5.0 rated them on a January 2025 price (Horizon Zero Dawn: "buy at $49.99").
    assert appid in raw_unpriced()  # the newest 2026 row has no price
    catalog, _ = bundled
    assert appid not in {g.appid for g in catalog.games}
    (app,) = [a for a in catalog.not_rated if a.appid == appid]
    assert app.reason in ("not_for_sale", "superseded")
    rated = {g.appid for g in catalog.games}
    assert app.superseded_by is None or app.superseded_by in rated
    if appid == 230230:
        assert (app.reason, app.superseded_by) == ("superseded", 373420)


def test_unsold_listings_are_never_told_to_buy(bundled: tuple[Catalog, IngestReport]) -> None:
    catalog, report = bundled
    unpriced = raw_unpriced()
    rated_unsold = [
        g.name
        for g in catalog.games
        if g.appid in unpriced
        and not is_free(g)
        and (g.price_observed_at is None or g.price_observed_at < unpriced[g.appid])
    ]
    assert rated_unsold == []
    counted = sum(a.reason == "not_for_sale" for a in catalog.not_rated)
    assert counted >= 25 and report.dropped["not_for_sale"] == counted


def test_gta_v_enhanced_inherits_gta_v(ranked: list[ScoredGame]) -> None:
    # 5.0: #8,819 "fair, skip" on an estimated length and its own 2,000-review sample.
    _, game = rank_of(ranked, 3240220)
    assert game.record.length_source == "hltb"
    assert game.record.review_prior_score is not None and game.record.review_prior_score > 0.8
    assert game.tier in ("worth_it", "banger")
