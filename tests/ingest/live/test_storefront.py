"""Storefront adapter on recorded appdetails, GetItems and hand-built tag/app lists."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bangscore.ingest.live.storefront import (
    StorefrontAdapter,
    parse_appdetails,
    parse_item_tags,
    parse_release_date,
    parse_tag_list,
    review_totals,
)
from bangscore.scoring.records import GameRecord
from tests.ingest.replay import Replay, fixture_json, mock_replay, ok, quiet_client, stop_replay


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("18 Apr, 2011", (dt.date(2011, 4, 18), 2011)),
        ("Apr 18, 2011", (dt.date(2011, 4, 18), 2011)),
        ("Nov 2024", (None, 2024)),
        ("Q1 2026", (None, 2026)),
        ("2021", (None, 2021)),
        ("Coming soon", (None, None)),
        ("", (None, None)),
        (None, (None, None)),
    ],
    ids=[
        "day-month-year",
        "month-day-year",
        "month-year",
        "quarter",
        "year",
        "soon",
        "empty",
        "none",
    ],
)
def test_parse_release_date(text: str | None, expected: tuple[dt.date | None, int | None]) -> None:
    assert parse_release_date(text) == expected


def test_parse_recorded_usd_appdetails() -> None:
    details = parse_appdetails(fixture_json("storefront/appdetails_620_usd.json"), 620)
    assert details is not None
    assert (details.name, details.app_type) == ("Portal 2", "game")
    assert (details.price_usd, details.list_price_usd, details.discount_percent) == (9.99, 9.99, 0)
    assert (details.developer, details.publisher) == ("Valve", "Valve")
    assert details.genres == ("Action", "Adventure")
    assert (details.release_date, details.release_year) == (dt.date(2011, 4, 18), 2011)
    assert details.metacritic == 95


def test_recorded_eur_price_is_refused() -> None:
    # The 2019 recording came from a EUR store (8,19€): prices must not leak in as dollars.
    details = parse_appdetails(fixture_json("storefront/appdetails_620_eur_2019_data.json"), 620)
    assert details is not None
    assert (details.price_usd, details.list_price_usd, details.discount_percent) == (
        None,
        None,
        None,
    )
    assert details.metacritic == 95


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"7": {"success": False}}, None),
        ({"7": {"success": True, "data": {"name": "Free Thing", "is_free": True}}}, (0.0, 0.0, 0)),
        (
            {"7": {"success": True, "data": {"name": "Unpriced", "is_free": False}}},
            (None, None, None),
        ),
    ],
    ids=["delisted", "free", "no-price"],
)
def test_appdetails_edge_cases(
    payload: dict[str, Any], expected: tuple[float | None, float | None, int | None] | None
) -> None:
    details = parse_appdetails(payload, 7)
    if expected is None:
        assert details is None
    else:
        assert details is not None
        assert (details.price_usd, details.list_price_usd, details.discount_percent) == expected


def test_parse_recorded_item_tags_with_handbuilt_names() -> None:
    pairs = parse_item_tags(fixture_json("storefront/get_items_620.json"), 620)
    assert pairs == [(1664, 4810), (1685, 3236), (3839, 2900), (3942, 2735), (1719, 2486)]
    names = parse_tag_list(fixture_json("storefront/handbuilt_tag_list.json"))
    assert [names[t] for t, _ in pairs] == ["Puzzle", "Co-op", "First-Person", "Sci-fi", "Comedy"]
    assert parse_item_tags(fixture_json("storefront/get_items_620.json"), 1) == []


@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        ({"total_positive": 435000, "total_negative": 5100}, (435000, 440100)),
        ({"total_positive": "3", "total_negative": "1"}, (3, 4)),
        ({"total_positive": 0, "total_negative": 0}, (0, 0)),
    ],
    ids=["recorded-totals", "string-counts", "no-reviews"],
)
def test_review_totals(summary: dict[str, object], expected: tuple[int, int]) -> None:
    assert review_totals(summary) == expected


@pytest.fixture
def storefront_replay() -> Iterator[Replay]:
    summary = {"success": 1, "query_summary": {"total_positive": 435000, "total_negative": 5100}}
    server = mock_replay(
        {
            ("GET", "/api/appdetails"): lambda q, b: ok(
                fixture_json("storefront/appdetails_620_usd.json")
            ),
            ("GET", "/appreviews/620"): lambda q, b: ok(summary),
            ("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(
                fixture_json("storefront/get_items_620.json")
            ),
            ("GET", "/IStoreService/GetTagList/v1/"): lambda q, b: ok(
                fixture_json("storefront/handbuilt_tag_list.json")
            ),
        }
    )
    yield server
    stop_replay(server)


def test_adapter_fetch_over_replay(storefront_replay: Replay, tmp_path: Path) -> None:
    record = GameRecord(
        appid=620,
        name="Portal 2",
        price_usd=1.99,
        list_price_usd=9.99,
        discount_percent=80,
        review_score=1.0,
        review_count=100,
    )
    adapter = StorefrontAdapter(storefront_replay.base_url, storefront_replay.base_url)
    with quiet_client(tmp_path, storefront_replay) as client:
        patch = adapter.fetch(client, record)
    assert patch is not None
    assert (patch["price_usd"], patch["list_price_usd"], patch["discount_percent"]) == (
        9.99,
        9.99,
        0,
    )
    # The storefront's totals: 435,000 positive of 440,100 reviews.
    assert (patch["review_count"], patch["review_score"]) == (440_100, 435_000 / 440_100)
    assert (patch["app_type"], patch["metacritic"], patch["developer"]) == ("game", 95, "Valve")
    assert "review_positive" not in patch and "release_year" in patch
    assert patch["tags"] == ("Puzzle", "Co-op", "First-Person", "Sci-fi", "Comedy")
    assert patch["release_date"] == dt.date(2011, 4, 18)
    details_hit = next(h for h in storefront_replay.hits if h.path == "/api/appdetails")
    assert (details_hit.query["cc"], details_hit.query["appids"]) == ("us", "620")
    summary_hit = next(h for h in storefront_replay.hits if h.path == "/appreviews/620")
    assert (summary_hit.query["purchase_type"], summary_hit.query["json"]) == ("all", "1")
