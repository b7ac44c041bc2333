"""Tests of the rated-catalog rule, catalog files and the bundled catalog (ingest.catalog).

The last group loads the real bundled dumps once per session and checks facts that can be
read off the raw files by hand (SteamSpy 2025 JSON, HLTB CSV, ITAD CSV).
"""

from __future__ import annotations

import datetime as dt
import gzip
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ingest.catalog import (
    CatalogError,
    IngestReport,
    load_bundled_catalog,
    rated_catalog_reason,
    read_catalog,
    read_dumps,
    select_rated,
    write_catalog,
)
from ingest.join import FREE_BUT_PAID_EARLIER, STOREFRONT_DATE
from scoring.records import Catalog, GameRecord

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


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


def test_select_rated_counts_drops(make_record: MakeRecord) -> None:
    records = [
        make_record(appid=1),
        make_record(appid=2, main_story_hours=None),
        make_record(appid=3, name="Portal 2 Soundtrack"),
        make_record(appid=4, review_positive=5000),
        make_record(appid=5, main_story_hours=None),
    ]
    report = IngestReport()
    kept = select_rated(records, report)

    assert [r.appid for r in kept] == [1, 4]
    assert report.kept == 2
    assert report.dropped == Counter({"no main-story length": 2, "non-game by name": 1})
    summary = report.summary()
    assert "kept in rated catalog: 2" in summary
    assert "no main-story length" in summary

    stricter = IngestReport()
    assert [r.appid for r in select_rated(records, stricter, min_reviews=51)] == [4]
    # 1, 2 and 5: reviews are checked before length; 3 fails by name first.
    assert stricter.dropped == Counter({"fewer than 51 reviews": 3, "non-game by name": 1})


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


@pytest.mark.parametrize(
    "appid",
    [
        # SteamSpy 2025: price "0", initialprice "0"; SteamSpy 2023: "5999" / "5999".
        pytest.param(1904540, id="football-manager-2023"),
        pytest.param(1080110, id="f1-2020"),
        # 0 in SteamSpy 2023 and 2025; the 2019 store dump sold it (GBP 15.49 / 30.99).
        pytest.param(465650, id="out-of-the-park-baseball-18"),
        pytest.param(831980, id="out-of-the-park-baseball-20"),
    ],
)
def test_bundled_catalog_drops_delisted_games_at_zero(
    bundled: tuple[Catalog, Any], appid: int
) -> None:
    assert appid not in {g.appid for g in bundled[0].games}


def test_bundled_catalog_drop_count_and_free_games(bundled: tuple[Catalog, Any]) -> None:
    catalog, report = bundled
    dropped = report.skipped[f"steamspy_2025: {FREE_BUT_PAID_EARLIER}"]
    # Counted over the raw dumps by a separate script: apps at 0/0 in 2025 with a 2023 price
    # or list price above 0 (1,318), or else a 2019 store price above 0 (1,451).
    assert dropped == 2_769
    games = {g.appid: g for g in catalog.games}
    # Free on 2025-01-01 and free in the 2019 store dump (price 0.0): kept as free games.
    assert games[1289310].price_usd == 0.0  # Helltaker, absent from both earlier dumps
    assert games[698780].price_usd == 0.0  # Doki Doki Literature Club!, free in 2019


def test_bundled_catalog_keeps_hltb_genres_apart(bundled: tuple[Catalog, Any]) -> None:
    elden = {g.appid: g for g in bundled[0].games}[1245620]
    # Released after the 2019 store dump and not in ITAD: no storefront genres, no tags;
    # HLTB's row lists "Third-Person, Action, Open World, Role-Playing".
    assert (elden.storefront_genres, elden.tags) == ((), ())
    assert elden.play_length_genres == ("Third-Person", "Action", "Open World", "Role-Playing")
