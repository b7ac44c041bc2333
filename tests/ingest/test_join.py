"""Tests of the join of the bundled dumps (ingest.join) on small hand-made dumps."""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from typing import Any

import pytest

from ingest.dumps import DumpRead, HltbGame, ItadGame, PlayerCount, SteamSpyApp, StoreGame
from ingest.join import (
    FREE_BUT_PAID_EARLIER,
    HLTB_DATE,
    PLAYTIME_2023_DATE,
    STOREFRONT_DATE,
    Dumps,
    finish_rate_estimate,
    join_dumps,
    price_error,
)
from scoring.records import Sources


def _phi(x: float) -> float:
    """Standard normal CDF, written independently of the code under test."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@pytest.mark.parametrize(
    ("median", "mean", "hours", "expected"),
    [
        # Half of a log-normal lies above its median, whatever sigma.
        pytest.param(600, 600, 10, 0.5, id="median-equals-length-default-sigma"),
        pytest.param(600, 1500, 10, 0.5, id="median-equals-length-fitted-sigma"),
        # mean/median = e^0.5 gives sigma^2 = 1; length = 2 x median gives z = ln 2.
        pytest.param(60, 60 * math.exp(0.5), 2, 1 - _phi(math.log(2)), id="fitted-sigma-1"),
        # mean <= median falls back to the default sigma 1.0: the same answer.
        pytest.param(60, 50, 2, 1 - _phi(math.log(2)), id="default-sigma-1"),
        pytest.param(60, 60, 0.5, _phi(math.log(2)), id="length-half-median"),
        pytest.param(1, 1, 10_000, 0.0, id="far-too-long"),
    ],
)
def test_finish_rate_estimate(median: float, mean: float, hours: float, expected: float) -> None:
    assert finish_rate_estimate(median, mean, hours) == pytest.approx(expected, abs=1e-9)


def test_finish_rate_estimate_rises_with_playtime_and_falls_with_length() -> None:
    assert finish_rate_estimate(300, 400, 10) < finish_rate_estimate(600, 800, 10)
    assert finish_rate_estimate(600, 800, 20) < finish_rate_estimate(600, 800, 10)


@pytest.mark.parametrize(("median", "mean", "hours"), [(0, 10, 1), (10, 0, 1), (10, 10, 0)])
def test_finish_rate_estimate_refuses_non_positive(median: int, mean: int, hours: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        finish_rate_estimate(median, mean, hours)


def _spy(
    appid: int, name: str, price: int | None, lst: int | None, disc: int | None, **more: Any
) -> SteamSpyApp:
    fields: dict[str, Any] = {
        "appid": appid, "name": name, "developer": "Dev", "publisher": "Pub",
        "price_cents": price, "list_price_cents": lst, "discount_percent": disc,
        "positive": 900, "negative": 100, "owners": "1 .. 2", "average_forever_min": 0,
        "median_forever_min": 0, "ccu": 1,
    }  # fmt: skip
    return SteamSpyApp(**(fields | more))


def _hltb(
    name: str, appid: int | None, main: float | None, year: int = 2020, genres: tuple[str, ...] = ()
) -> HltbGame:
    return HltbGame(
        name, year, dt.date(year, 1, 2), appid, main, main * 3 if main else None, genres
    )


def _store(appid: int, name: str, *, paid: bool | None = True) -> StoreGame:
    return StoreGame(appid, name, dt.date(2015, 3, 4), ("Action",), (), 0, 0, paid)


@pytest.fixture
def small_dumps() -> Dumps:
    """A hand-made set of dumps covering each join path."""
    spy_2025 = [
        _spy(1, "Hades", 999, 2499, 60),
        _spy(2, "Portal 2", 499, 999, 50),
        _spy(3, "No Price", None, None, None),
        _spy(4, "Wrong Discount", 999, 999, 100),
        _spy(5, "Control", 1999, 3999, 50),
        _spy(6, "Life Is Strange", 0, 0, 0),
        _spy(7, "Was Unlisted", 1500, 1500, 0),
        _spy(8, "Dearer Now", 1200, 1500, 20),
        _spy(9, "Paid In 2023", 0, 0, 0),
        _spy(10, "Paid In 2019", 0, 0, 0),
        _spy(11, "Always Free", 0, 0, 0),
    ]
    spy_2023 = [
        _spy(2, "Portal 2", 199, 999, 80, median_forever_min=600, average_forever_min=600),
        _spy(7, "Was Unlisted", 0, 0, 0),
        _spy(8, "Dearer Now", 1100, 1100, 0),
        _spy(9, "Paid In 2023", 5999, 5999, 0),
        _spy(10, "Paid In 2019", 0, 0, 0),
        _spy(11, "Always Free", 0, 0, 0),
    ]
    store = [
        StoreGame(2, "Portal 2", dt.date(2011, 4, 18), ("Action",), ("Puzzle",), 0, 0, True),
        _store(10, "Paid In 2019"),
        _store(11, "Always Free", paid=False),
    ]
    hltb = [
        _hltb("Hades", 1, 23.3, genres=("Action", "Roguelike", "Role-Playing")),
        _hltb("Portal 2", 2, 10.0, 2011),
        _hltb("Control: Ultimate Edition", 5, 12.7),
        _hltb("Control", 5, 11.7, 2019),
        _hltb("Life Is Strange - Episode 1", 6, 2.3),
        _hltb("Life Is Strange 2", 6, 16.4),
    ]
    itad = [
        ItadGame("Hades", "i1", 2019, ("Roguelite",), 93, 75, dt.date(2025, 10, 16)),
        ItadGame("Portal 2", "i2", 2011, ("Puzzle",), None, 50, dt.date(2025, 9, 1)),
    ]
    return Dumps(
        steamspy_2025=DumpRead(spy_2025, read=12, skipped=Counter({"missing name": 1})),
        steamspy_2023=DumpRead(spy_2023, read=6),
        store_2019=DumpRead(store, read=3),
        hltb=DumpRead(hltb, read=6),
        players_2018=DumpRead([PlayerCount(2, "Portal 2", 13_062_700)], read=1),
        itad=DumpRead(itad, read=2),
    )


def test_join_dumps_fields_sources_and_estimates(small_dumps: Dumps) -> None:
    records, report = join_dumps(small_dumps)
    by_id = {r.appid: r for r in records}

    # 3 has no price, 4 a wrong discount; 9 and 10 are at 0 but were sold earlier.
    assert [r.appid for r in records] == [1, 2, 5, 6, 7, 8, 11]
    hades = by_id[1]
    assert (hades.price_usd, hades.list_price_usd, hades.discount_percent) == (9.99, 24.99, 60)
    assert (hades.review_positive, hades.review_negative) == (900, 100)
    assert hades.release_year == 2020  # from HLTB: not in the 2019 dump
    assert hades.storefront_genres == ()  # HLTB genres never become storefront genres
    assert hades.play_length_genres == ("Action", "Roguelike", "Role-Playing")
    assert hades.tags == ("Roguelite",)  # from ITAD, since the 2019 dump lacks the game
    assert hades.main_story_hours == 23.3
    assert hades.metacritic == 93
    assert hades.historical_low_usd == 6.24  # 24.99 at the deepest ITAD discount (-75%)
    assert hades.finish_rate is None  # no playtime data
    assert hades.estimated == ("historical_low_usd",)
    assert hades.sources == Sources(
        storefront=STOREFRONT_DATE, play_length=HLTB_DATE, price_history=dt.date(2025, 10, 16)
    )

    portal = by_id[2]
    assert portal.storefront_genres == ("Action",)
    assert portal.play_length_genres == ()  # the test's HLTB row has none
    assert portal.tags == ("Puzzle",)
    assert portal.release_date == dt.date(2011, 4, 18)
    assert portal.finish_rate == pytest.approx(0.5)  # median playtime == 10 h main story
    assert portal.median_playtime_hours == 10.0
    assert portal.players_estimate == 13_062_700
    assert portal.historical_low_usd == 1.99  # 2023 price beats ITAD's 9.99 x 0.5
    assert portal.estimated == ("finish_rate",)
    assert portal.sources.player_stats == PLAYTIME_2023_DATE

    assert by_id[5].main_story_hours == 11.7  # duplicate appid resolved by equal title
    assert by_id[6].main_story_hours is None  # duplicate appid, neither title equal
    assert by_id[6].sources.play_length is None
    assert by_id[7].historical_low_usd == 15.0  # a 2023 price of 0 there meant "not sold"
    assert by_id[8].historical_low_usd == 11.0  # cheaper in 2023 than on 2025 sale
    assert (by_id[6].price_usd, by_id[11].price_usd) == (0.0, 0.0)  # no sign of a paid past

    assert report.read["steamspy_2025"] == 12
    assert report.skipped["steamspy_2025: missing name"] == 1
    assert report.skipped["steamspy_2025: no USD price"] == 1
    assert report.skipped["steamspy_2025: discount disagrees with prices"] == 1
    assert report.skipped[f"steamspy_2025: {FREE_BUT_PAID_EARLIER}"] == 2
    assert report.matched["hltb: appid listed twice, resolved by title"] == 1
    assert report.matched["hltb: appid listed twice, unresolved"] == 1
    assert report.matched["itad: by sound title"] == 2
    assert report.joined == 7


PAID_2019 = _store(1, "Game", paid=True)
FREE_2019 = _store(1, "Game", paid=False)
UNREADABLE_2019 = _store(1, "Game", paid=None)


@pytest.mark.parametrize(
    ("now", "in_2023", "in_2019", "reason"),
    [
        pytest.param((999, 2499, 60), None, None, None, id="on-sale"),
        pytest.param((None, None, None), None, None, "no USD price", id="no-price"),
        pytest.param((999, 499, 0), None, None, "price above list price", id="above-list"),
        pytest.param(
            (999, 999, 100), None, None, "discount disagrees with prices", id="wrong-discount"
        ),
        pytest.param((0, 0, 10), None, None, "discount disagrees with prices", id="free-discount"),
        # Football Manager 2023 (appid 1904540): 5999/5999 in 2023, 0/0 in 2025.
        pytest.param((0, 0, 0), (5999, 5999), None, FREE_BUT_PAID_EARLIER, id="fm-2023"),
        pytest.param((0, 0, 0), (0, 5999), None, FREE_BUT_PAID_EARLIER, id="list-price-2023"),
        # Out of the Park Baseball 18 (465650): 0/0 in 2023 and 2025, GBP 15.49 in 2019.
        pytest.param((0, 0, 0), (0, 0), PAID_2019, FREE_BUT_PAID_EARLIER, id="ootp-18-paid-2019"),
        pytest.param((0, 0, 0), None, PAID_2019, FREE_BUT_PAID_EARLIER, id="only-in-2019"),
        # Dota 2 (570) and Team Fortress 2 (440): free in 2019 and 2025, absent from 2023.
        pytest.param((0, 0, 0), None, FREE_2019, None, id="dota-2-free-2019-and-2025"),
        pytest.param((0, 0, 0), (0, 0), FREE_2019, None, id="free-in-every-dump"),
        pytest.param((0, 0, 0), None, None, None, id="no-earlier-evidence"),
        pytest.param((0, 0, 0), (None, None), None, None, id="2023-price-unknown"),
        pytest.param((0, 0, 0), (0, 0), UNREADABLE_2019, None, id="2019-price-unreadable"),
        # A paid game that was cheaper before is simply a paid game.
        pytest.param((1999, 1999, 0), (999, 1999), PAID_2019, None, id="paid-now"),
    ],
)
def test_price_error(
    now: tuple[int | None, int | None, int | None],
    in_2023: tuple[int | None, int | None] | None,
    in_2019: StoreGame | None,
    reason: str | None,
) -> None:
    app = _spy(1, "Game", *now)
    earlier = _spy(1, "Game", in_2023[0], in_2023[1], 0) if in_2023 else None
    assert price_error(app, earlier, in_2019) == reason
