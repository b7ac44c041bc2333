"""Cross-checks before scoring (ingest.resolve.checks): non-games, delisting, the length check,
stale sale prices, the order of not-rated reasons and the finish-rate estimate."""

from __future__ import annotations

import datetime as dt
import math

import pytest

from bangscore.ingest.resolve import checks
from bangscore.ingest.resolve.observations import TRUST_KEYED, TRUST_MATCHED, Layer, Resolved

HLTB_2025 = Layer("hltb_steam_2025-12", "play_length", dt.date(2025, 12, 27), TRUST_KEYED)
HLTB_2023 = Layer("hltb_2023", "play_length", dt.date(2023, 12, 31), TRUST_KEYED)
HLTB_TITLE = Layer("hltb_2023 by title", "play_length", dt.date(2023, 12, 31), TRUST_MATCHED)


@pytest.mark.parametrize(
    ("name", "app_type", "genres", "expected"),
    [
        pytest.param("Portal 2", "game", ("Action", "Adventure"), False, id="game"),
        pytest.param("Portal 2", None, (), False, id="unknown-type-kept"),
        pytest.param("Portal 2 - Soundtrack", "game", (), True, id="soundtrack-by-name"),
        pytest.param("Hades OST", None, (), True, id="ost-by-name"),
        pytest.param("HOMEFRONT Demo", None, (), True, id="demo-by-name"),
        pytest.param("Rust Dedicated Server", None, (), True, id="server-by-name"),
        pytest.param("Demolition Inc.", "game", (), False, id="demo-inside-a-word"),
        pytest.param("Some DLC", "dlc", ("Action",), True, id="dlc-type"),
        pytest.param("Some Tool", "application", (), True, id="application-type"),
        pytest.param("Tune", "music", (), True, id="music-type"),
        pytest.param("Paint", "game", ("Utilities", "Design & Illustration"), True, id="software"),
        pytest.param("Learn", "game", ("Casual", "Education"), False, id="educational-game"),
    ],
)
def test_non_game(name: str, app_type: str | None, genres: tuple[str, ...], expected: bool) -> None:
    assert checks.non_game(name, app_type, genres) is expected


@pytest.mark.parametrize(
    ("listed", "price", "paid_before", "free", "expected"),
    [
        pytest.param(True, 19.99, True, False, True, id="steam-tracker-list"),
        pytest.param(True, None, False, False, True, id="listed-without-price"),
        pytest.param(False, 0.0, True, False, True, id="free-now-paid-before"),
        pytest.param(False, 0.0, True, True, False, id="went-free-to-play"),
        pytest.param(False, 0.0, False, False, False, id="always-free"),
        pytest.param(False, 9.99, True, False, False, id="paid-and-listed"),
        pytest.param(False, None, True, False, False, id="no-price-at-all"),
    ],
)
def test_delisted(
    listed: bool, price: float | None, paid_before: bool, free: bool, expected: bool
) -> None:
    assert checks.delisted(listed, price, paid_before, free) is expected


@pytest.mark.parametrize(
    ("price", "list_price", "free", "expected"),
    [
        pytest.param(0.0, 0.0, False, True, id="zero-and-storefront-says-not-free"),
        pytest.param(0.0, 0.0, True, False, id="free-to-play"),
        pytest.param(0.0, 0.0, None, False, id="zero-no-storefront-record"),
        pytest.param(0.0, 19.99, False, False, id="zero-against-a-paid-list-price"),
        pytest.param(9.99, 9.99, False, False, id="priced"),
        pytest.param(None, None, False, False, id="no-price"),
    ],
)
def test_zero_is_no_price(
    price: float | None, list_price: float | None, free: bool | None, expected: bool
) -> None:
    assert checks.zero_is_no_price(price, list_price, free) is expected


def hltb(hours: float, layer: Layer = HLTB_2025) -> Resolved:
    return Resolved(hours, layer)


@pytest.mark.parametrize(
    ("candidates", "reviewer_hours", "reviewers", "replayable", "expected"),
    [
        pytest.param([hltb(72.2)], 105.0, 955, False, (72.2, "hltb", ()), id="agrees"),
        pytest.param(
            [hltb(23.0, HLTB_2023)],
            105.0,
            955,
            False,
            # 0.7 x 105 h = 73.5 h, capped at 30 h: still nearer than the 23 h row.
            (checks.ESTIMATE_CAP_HOURS, "playtime_estimate", (checks.LENGTH_TOO_SHORT,)),
            id="bg3-early-access-row-replaced-by-capped-estimate",
        ),
        pytest.param(
            [hltb(23.0, HLTB_2023), hltb(72.2)],
            105.0,
            955,
            False,
            (72.2, "hltb", (checks.LENGTH_TOO_SHORT,)),
            id="too-short-falls-back-to-next-candidate",
        ),
        pytest.param([hltb(7.4)], 60.0, 500, True, (7.4, "hltb", ()), id="replayable-exempt"),
        pytest.param([hltb(23.0)], 105.0, 5, False, (23.0, "hltb", ()), id="too-few-reviewers"),
        pytest.param([hltb(23.0)], None, 0, False, (23.0, "hltb", ()), id="no-playtime"),
        pytest.param(
            [hltb(100.0, HLTB_TITLE)],
            5.0,
            300,
            False,
            (3.5, "playtime_estimate", (checks.LENGTH_TOO_LONG,)),
            id="matched-too-long-refused",
        ),
        pytest.param(
            [hltb(100.0)],
            5.0,
            300,
            False,
            (100.0, "hltb", (checks.LENGTH_TOO_LONG,)),
            id="keyed-too-long-kept-and-flagged",
        ),
        pytest.param([], 10.0, 300, False, (7.0, "playtime_estimate", ()), id="estimate"),
        pytest.param(
            [], 574.0, 300, False, (checks.ESTIMATE_CAP_HOURS, "playtime_estimate", ()), id="cap"
        ),
    ],
)
def test_choose_length(
    candidates: list[Resolved],
    reviewer_hours: float | None,
    reviewers: int,
    replayable: bool,
    expected: tuple[float, str, tuple[str, ...]],
) -> None:
    chosen = checks.choose_length(candidates, reviewer_hours, reviewers, replayable=replayable)

    assert chosen is not None
    assert (round(chosen.hours, 2), chosen.source, chosen.checks) == expected


@pytest.mark.parametrize(
    ("candidates", "reviewer_hours", "reviewers"),
    [
        pytest.param([], None, 0, id="nothing-known"),
        pytest.param([], 10.0, checks.MIN_REVIEWERS - 1, id="too-few-reviewers-to-estimate"),
    ],
)
def test_choose_length_none(
    candidates: list[Resolved], reviewer_hours: float | None, reviewers: int
) -> None:
    assert checks.choose_length(candidates, reviewer_hours, reviewers, replayable=False) is None


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        pytest.param({}, None, id="rated"),
        pytest.param(
            {"has_store_data": False, "is_non_game": True, "has_price": False},
            "no_store_data",
            id="no-store-data-first",
        ),
        pytest.param({"is_non_game": True, "is_delisted": True}, "not_a_game", id="non-game-first"),
        pytest.param({"is_delisted": True, "has_price": False}, "delisted", id="delisted-second"),
        pytest.param({"has_price": False, "review_count": 3}, "no_usd_price", id="price-third"),
        pytest.param({"review_count": 49, "has_length": False}, "too_few_reviews", id="reviews"),
        pytest.param({"review_count": 50, "has_length": False}, "no_length", id="length-last"),
    ],
)
def test_not_rated_reason_order(outcome: dict[str, object], reason: str | None) -> None:
    arguments: dict[str, object] = {
        "is_non_game": False,
        "is_delisted": False,
        "has_price": True,
        "review_count": 1000,
        "has_length": True,
    } | outcome
    assert checks.not_rated_reason(**arguments) == reason  # type: ignore[arg-type]


def listing(
    appid: int, name: str, reviews: int, *, store: bool, **more: str | None
) -> checks.Listing:
    makers = {"developer": "Obsidian Entertainment", "publisher": "Bethesda Softworks"} | more
    return checks.Listing(appid, name, makers["developer"], makers["publisher"], reviews, store)


NEW_VEGAS = listing(22380, "Fallout: New Vegas", 220_829, store=True)


@pytest.mark.parametrize(
    ("listings", "copies"),
    [
        # 22490 is in no storefront app list; SteamSpy names it with 22380's price.
        pytest.param(
            [NEW_VEGAS, listing(22490, "Fallout: New Vegas", 48_906, store=False)],
            {22490},
            id="fallout-new-vegas-regional-edition",
        ),
        pytest.param(
            [NEW_VEGAS, listing(22490, "FALLOUT - New Vegas™", 300_000, store=False)],
            {22490},
            id="the-storefront-listing-is-kept-even-with-fewer-reviews",
        ),
        pytest.param(
            [
                listing(2545, "RIP - Trilogy", 340, store=False, developer="Elephant Games"),
                listing(2550, "RIP - Trilogy", 340, store=False, developer="Elephant Games"),
            ],
            {2550},
            id="neither-on-the-storefront-the-lower-appid-is-kept",
        ),
        pytest.param(
            [
                listing(
                    42680,
                    "Call of Duty®: Modern Warfare® 3 (2011)",
                    37_082,
                    store=True,
                    developer="Sledgehammer Games",
                    publisher="Activision",
                ),
                listing(
                    115300,
                    "Call of Duty: Modern Warfare 3 (2011)",
                    37_334,
                    store=False,
                    developer="Infinity Ward, Sledgehammer Games",
                    publisher="Activision",
                ),
            ],
            {115300},
            id="one-developer-in-common-is-enough",
        ),
        pytest.param(
            [
                listing(265300, "Lords Of The Fallen", 19_661, store=True, developer="Deck 13"),
                listing(1501750, "Lords of the Fallen", 33_885, store=False, developer="CI Games"),
            ],
            set(),
            id="same-name-other-developer",
        ),
        pytest.param(
            [NEW_VEGAS, listing(22490, "Fallout: New Vegas", 48_906, store=False, publisher="1C")],
            set(),
            id="contradicting-publisher",
        ),
        pytest.param(
            [
                listing(1351630, "Ys IX: Monstrum Nox", 1651, store=True, developer="Nihon Falcom"),
                listing(1732330, "Ys IX -Monstrum NOX-", 508, store=True, developer="Nihon Falcom"),
            ],
            set(),
            id="both-on-the-storefront",
        ),
        pytest.param(
            [NEW_VEGAS, listing(22490, "Fallout: New Vegas", 48_906, store=False, developer=None)],
            set(),
            id="unknown-developer",
        ),
        pytest.param(
            [listing(22490, "Fallout: New Vegas", 48_906, store=False)], set(), id="alone"
        ),
    ],
)
def test_regional_copies(listings: list[checks.Listing], copies: set[int]) -> None:
    assert checks.regional_copies(listings) == copies


@pytest.mark.parametrize(
    ("median", "mean", "hours", "expected"),
    [
        pytest.param(600, 600, 10.0, 0.5, id="median-equals-length"),
        pytest.param(60, 60, 1000.0, 0.0, id="far-too-long"),
        pytest.param(6000, 6000, 0.01, 1.0, id="trivially-short"),
    ],
)
def test_finish_rate_estimate(median: float, mean: float, hours: float, expected: float) -> None:
    assert checks.finish_rate_estimate(median, mean, hours) == pytest.approx(expected, abs=1e-3)


def test_finish_rate_estimate_uses_the_spread_of_mean_over_median() -> None:
    # sigma^2 = 2 ln(mean/median) = 2 ln 2: one sigma above the median of 600 minutes.
    sigma = math.sqrt(2 * math.log(2))
    hours = 600 * math.exp(sigma) / 60
    assert checks.finish_rate_estimate(600, 1200, hours) == pytest.approx(0.1587, abs=1e-4)
    with pytest.raises(ValueError, match="positive"):
        checks.finish_rate_estimate(0, 10, 1.0)


REVIEWERS = Layer("steam_review_playtime_2026", "player_stats", dt.date(2026, 7, 24), TRUST_MATCHED)
OWNERS = Layer("steamspy_2023-02-04", "player_stats", dt.date(2023, 2, 4), TRUST_KEYED)


@pytest.mark.parametrize(
    ("reviewers", "count", "owners", "expected"),
    [
        pytest.param(
            Resolved(56.17, REVIEWERS),
            5000,
            Resolved(20.0, OWNERS),
            checks.Length(56.17, "playtime", Resolved(56.17, REVIEWERS)),
            id="reviewers-first",
        ),
        pytest.param(
            Resolved(56.17, REVIEWERS),
            checks.MIN_REVIEWERS - 1,
            Resolved(20.0, OWNERS),
            checks.Length(20.0, "playtime", Resolved(20.0, OWNERS)),
            id="too-few-reviewers-owners-median",
        ),
        pytest.param(None, 0, None, None, id="no-playtime"),
        pytest.param(Resolved(0.0, REVIEWERS), 5000, None, None, id="zero-hours"),
    ],
)
def test_played_length(
    reviewers: Resolved | None, count: int, owners: Resolved | None, expected: object
) -> None:
    assert checks.played_length(reviewers, count, owners) == expected


HLTB_2023 = Layer("hltb_2023", "play_length", dt.date(2023, 12, 31))


def story(hours: float) -> checks.Length:
    return checks.Length(hours, "hltb", Resolved(hours, HLTB_2023))


@pytest.mark.parametrize(
    ("name", "tags", "free", "length", "expected"),
    [
        # Life is Strange (319630): Episode 1 free, listed under the series' name, HLTB's 14.4 h
        # is the whole season's.
        pytest.param(
            "Life is Strange™", ("Story Rich", "Episodic"), True, story(14.4), True, id="lis"
        ),
        pytest.param(
            "Life is Strange™", ("Story Rich", "Episodic"), False, story(14.4), False, id="paid"
        ),
        pytest.param(
            "Life is Strange™", ("Story Rich",), True, story(14.4), False, id="not-episodic"
        ),
        pytest.param(
            "Higurashi When They Cry Hou - Ch.1 Onikakushi",
            ("Visual Novel", "Episodic"),
            True,
            story(10.4),
            False,
            id="names-its-chapter",
        ),
        pytest.param(
            "Fears to Fathom - Episode 1", ("Episodic",), True, story(0.4), False, id="own-episode"
        ),
        pytest.param("STORM VR", ("Episodic",), True, story(0.6), False, id="short-enough"),
        pytest.param(
            "The Council",
            ("Episodic",),
            True,
            checks.Length(14.2, "playtime_estimate", None),
            False,
            id="its-own-players-estimate",
        ),
        pytest.param("The Council", ("Episodic",), True, None, False, id="no-length"),
    ],
)
def test_season_length_on_free_episode(
    name: str, tags: tuple[str, ...], free: bool, length: checks.Length | None, expected: bool
) -> None:
    assert checks.season_length_on_free_episode(name, tags, free, length) is expected
