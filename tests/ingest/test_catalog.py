"""Tests of the join, the rated-catalog rule and catalog files (ingest.catalog).

The last group loads the real bundled dumps once per session and checks facts that can be
read off the raw files by hand (SteamSpy 2025 JSON, HLTB CSV, ITAD CSV).
"""

from __future__ import annotations

import datetime as dt
import gzip
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ingest.catalog import (
    HLTB_DATE,
    PLAYTIME_2023_DATE,
    STOREFRONT_DATE,
    CatalogError,
    Dumps,
    IngestReport,
    finish_rate_estimate,
    join_dumps,
    load_bundled_catalog,
    rated_catalog_reason,
    read_catalog,
    read_dumps,
    select_rated,
    write_catalog,
)
from ingest.dumps import DumpRead, HltbGame, ItadGame, PlayerCount, SteamSpyApp, StoreGame
from ingest.records import Catalog, GameRecord, Sources

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


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


MakeRecord = Callable[..., GameRecord]


@pytest.fixture
def make_record() -> MakeRecord:
    """Return a factory of records that pass the rule unless a field is overridden."""

    def make(**fields: Any) -> GameRecord:
        base: dict[str, Any] = {
            "appid": 620,
            "name": "Portal 2",
            "price_usd": 9.99,
            "list_price_usd": 9.99,
            "discount_percent": 0,
            "review_positive": 40,
            "review_negative": 10,
            "release_year": 2011,
            "storefront_genres": ("Action", "Adventure"),
            "main_story_hours": 8.9,
        }
        return GameRecord(**(base | fields))

    return make


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        pytest.param({}, None, id="kept-at-exactly-50-reviews"),
        pytest.param({"price_usd": 0.0, "list_price_usd": 0.0}, None, id="free-game-kept"),
        pytest.param({"storefront_genres": ()}, None, id="no-genres-kept"),
        pytest.param({"review_negative": 9}, "fewer than 50 reviews", id="49-reviews"),
        pytest.param({"main_story_hours": None}, "no main-story length", id="no-length"),
        pytest.param({"release_year": None}, "no release year", id="no-year"),
        pytest.param({"name": "Portal 2 Soundtrack"}, "non-game by name", id="soundtrack"),
        pytest.param({"name": "Hades - OST"}, "non-game by name", id="ost"),
        pytest.param({"name": "HOMEFRONT Demo"}, "non-game by name", id="demo"),
        pytest.param({"name": "Rust Dedicated Server"}, "non-game by name", id="server"),
        pytest.param({"name": "Demolition Inc."}, None, id="demo-inside-a-word-kept"),
        pytest.param({"name": "Host Master"}, None, id="ost-inside-a-word-kept"),
        pytest.param(
            {"storefront_genres": ("Utilities", "Design & Illustration")},
            "non-game by genre",
            id="software",
        ),
        pytest.param(
            {"storefront_genres": ("Casual", "Education")}, None, id="educational-game-kept"
        ),
        pytest.param(
            {"name": "Demo", "review_positive": 0, "main_story_hours": None},
            "non-game by name",
            id="first-reason-wins",
        ),
    ],
)
def test_rated_catalog_reason(
    make_record: MakeRecord, fields: dict[str, Any], reason: str | None
) -> None:
    assert rated_catalog_reason(make_record(**fields)) == reason


def test_rated_catalog_reason_threshold_is_a_parameter(make_record: MakeRecord) -> None:
    record = make_record(review_positive=5, review_negative=5)
    assert rated_catalog_reason(record, min_reviews=10) is None
    assert rated_catalog_reason(record, min_reviews=11) == "fewer than 11 reviews"


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


def _hltb(name: str, appid: int | None, main: float | None, year: int = 2020) -> HltbGame:
    return HltbGame(name, year, dt.date(year, 1, 2), appid, main, main * 3 if main else None)


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
    ]
    spy_2023 = [
        _spy(2, "Portal 2", 199, 999, 80, median_forever_min=600, average_forever_min=600),
        _spy(7, "Was Unlisted", 0, 0, 0),
        _spy(8, "Dearer Now", 1100, 1100, 0),
    ]
    store = [StoreGame(2, "Portal 2", dt.date(2011, 4, 18), ("Action",), ("Puzzle",), 0, 0)]
    hltb = [
        _hltb("Hades", 1, 23.3),
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
        steamspy_2025=DumpRead(spy_2025, read=9, skipped=Counter({"missing name": 1})),
        steamspy_2023=DumpRead(spy_2023, read=3),
        store_2019=DumpRead(store, read=1),
        hltb=DumpRead(hltb, read=6),
        players_2018=DumpRead([PlayerCount(2, "Portal 2", 13_062_700)], read=1),
        itad=DumpRead(itad, read=2),
    )


def test_join_dumps_fields_sources_and_estimates(small_dumps: Dumps) -> None:
    records, report = join_dumps(small_dumps)
    by_id = {r.appid: r for r in records}

    assert [r.appid for r in records] == [1, 2, 5, 6, 7, 8]
    hades = by_id[1]
    assert (hades.price_usd, hades.list_price_usd, hades.discount_percent) == (9.99, 24.99, 60)
    assert (hades.review_positive, hades.review_negative) == (900, 100)
    assert hades.release_year == 2020  # from HLTB: not in the 2019 dump
    assert hades.storefront_genres == ()  # HLTB genres never become storefront genres
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

    assert report.read["steamspy_2025"] == 9
    assert report.skipped["steamspy_2025: missing name"] == 1
    assert report.skipped["steamspy_2025: no USD price"] == 1
    assert report.skipped["steamspy_2025: discount disagrees with prices"] == 1
    assert report.matched["hltb: appid listed twice, resolved by title"] == 1
    assert report.matched["hltb: appid listed twice, unresolved"] == 1
    assert report.matched["itad: by sound title"] == 2
    assert report.joined == 6


def test_select_rated_counts_drops_and_summary_shows_them(small_dumps: Dumps) -> None:
    records, report = join_dumps(small_dumps)
    # Every small-dumps app has 900 + 100 reviews; 6, 7 and 8 have no HLTB length.
    kept = select_rated(records, report, min_reviews=1000)

    assert [r.appid for r in kept] == [1, 2, 5]
    assert (report.kept, report.dropped) == (3, Counter({"no main-story length": 3}))
    summary = report.summary()
    assert "kept in rated catalog: 3" in summary
    assert "no main-story length" in summary
    assert "steamspy_2025: no USD price" in summary

    stricter = IngestReport()
    assert select_rated(records, stricter, min_reviews=1001) == []
    assert stricter.dropped == Counter({"fewer than 1001 reviews": 6})


def test_write_then_read_catalog_round_trips(tmp_path: Path, make_record: MakeRecord) -> None:
    catalog = Catalog(
        created_at=dt.datetime(2025, 1, 2, 3, 4, tzinfo=dt.UTC),
        origin="bundled dumps",
        games=(make_record(), make_record(appid=1145360, name="Hades", metacritic=93)),
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


def test_read_dumps_names_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match=r"missing raw dump .*steamspy_all_2025-01-01"):
        read_dumps(tmp_path)


@pytest.fixture(scope="session")
def bundled() -> tuple[Catalog, Any]:
    """The rated catalog of the real bundled dumps, loaded once per test session."""
    return load_bundled_catalog(DATA_DIR)


def test_bundled_catalog_hades(bundled: tuple[Catalog, Any]) -> None:
    games = {g.appid: g for g in bundled[0].games}
    hades = games[1145360]
    # SteamSpy 2025-01-01: price "999", initialprice "2499", discount "60", 268301 positive.
    assert (hades.price_usd, hades.list_price_usd, hades.discount_percent) == (9.99, 24.99, 60)
    assert hades.review_positive == 268_301
    # HLTB: "23h 18m" main story; ITAD: Metacritic 93.0, deepest discount 75%.
    assert hades.main_story_hours == pytest.approx(23.3)
    assert hades.metacritic == 93
    assert hades.historical_low_usd == 6.24
    assert hades.release_year == 2020


def test_bundled_catalog_portal_2(bundled: tuple[Catalog, Any]) -> None:
    portal = {g.appid: g for g in bundled[0].games}[620]
    assert portal.main_story_hours == pytest.approx(8 + 52 / 60)  # HLTB "8h 52m"
    assert portal.completionist_hours == pytest.approx(22.7)  # HLTB "22h 42m"
    assert portal.release_date == dt.date(2011, 4, 18)  # 2019 store dump
    assert "Puzzle" in portal.tags
    assert portal.finish_rate is not None and "finish_rate" in portal.estimated


def test_bundled_catalog_invariants(bundled: tuple[Catalog, Any]) -> None:
    catalog, report = bundled
    appids = [g.appid for g in catalog.games]
    assert catalog.origin == "bundled dumps"
    assert appids == sorted(set(appids))
    assert 8_000 <= report.kept == len(catalog.games) <= 15_000
    assert report.joined == report.kept + sum(report.dropped.values())
    for game in catalog.games:
        assert rated_catalog_reason(game) is None
        assert game.price_usd <= game.list_price_usd
        assert game.historical_low_usd is not None and game.historical_low_usd <= game.price_usd
        assert game.sources.storefront == STOREFRONT_DATE and game.sources.wiki is None
        assert (game.metacritic is None) or game.sources.price_history is not None
        assert (game.finish_rate is None) == ("finish_rate" not in game.estimated)
