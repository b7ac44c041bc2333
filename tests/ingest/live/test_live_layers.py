"""Live refresh as layered sources (ingest.live.layers): adapter patches into observations, the
live layer each adapter's values come in (keyed, dated today), its values winning and checked
like any other, and same-day layers combined (records back into observations:
test_layers.py)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bangscore.ingest.live.layers import (
    LayerObservations,
    combine,
    live_layer,
    patch_observations,
    resolve_game,
)
from bangscore.ingest.resolve.checks import LENGTH_TOO_SHORT
from bangscore.ingest.resolve.observations import (
    TRUST_KEYED,
    Layer,
    Observation,
)
from bangscore.scoring.records import (
    GameRecord,
    NotRated,
    Provenance,
)
from tests.ingest.live.test_layers import APPID, CASES, PICS, SAMPLE, TODAY, build

PATCHES: dict[str, tuple[dict[str, object], list[tuple[str, object]]]] = {
    "storefront": (
        {
            "name": "Portal 2",
            "app_type": "game",
            "storefront_genres": ("Action",),
            "metacritic": 95,
            "release_date": dt.date(2011, 4, 18),
            "release_year": 2011,
            "price_usd": 9.99,
            "list_price_usd": 19.99,
            "discount_percent": 50,
            "review_count": 440_100,
            "review_score": 0.988,
            "tags": ("Puzzle",),
        },
        [
            ("price", (9.99, 19.99, 50)),
            ("name", "Portal 2"),
            ("app_type", "game"),
            ("storefront_genres", ("Action",)),
            ("metacritic", 95),
            ("release_date", dt.date(2011, 4, 18)),
            ("review_count", 440_100),
            ("review_score", 0.988),
            ("tags", ("Puzzle",)),
        ],
    ),
    "price-without-discount": (
        {"price_usd": 5.0, "list_price_usd": 5.0},
        [("price", (5.0, 5.0, 0))],
    ),
    "half-a-price": ({"price_usd": 5.0, "name": "X"}, [("name", "X")]),
    "bare-year-dropped": ({"release_year": 2024, "metacritic": None}, []),
    "hltb": (
        {"main_story_hours": 12.1, "completionist_hours": 18.3},
        [("main_story_hours", 12.1), ("completionist_hours", 18.3)],
    ),
    "achievements": (
        {"finish_rate": 0.385, "estimated": ("finish_rate",)},
        [("finish_rate", 0.385)],
    ),
    "steamspy": (
        {"owners_range": "1 .. 2", "median_playtime_hours": 10.9},
        [("owners_range", "1 .. 2"), ("median_playtime_hours", 10.9)],
    ),
    "itad": ({"historical_low_usd": 0.99}, [("usd_price_seen", 0.99)]),
    "pcgw": (
        {"developer": "Valve", "release_date": dt.date(2011, 4, 18)},
        [("developer", "Valve"), ("release_date", dt.date(2011, 4, 18))],
    ),
    "reviews": ({"reviews": SAMPLE}, [("reviews", SAMPLE)]),
}


@pytest.mark.parametrize(("patch", "expected"), PATCHES.values(), ids=PATCHES.keys())
def test_patch_observations(patch: dict[str, object], expected: list[tuple[str, object]]) -> None:
    assert patch_observations(APPID, patch) == [Observation(APPID, f, v) for f, v in expected]


def live(adapter: str, source: Any, patch: dict[str, object]) -> LayerObservations:
    return live_layer(adapter, source, TODAY), patch_observations(APPID, patch)


def test_live_layer_is_keyed_and_dated_today() -> None:
    assert live_layer("reviews", None, TODAY) == Layer(
        "live reviews", "player_stats", TODAY, TRUST_KEYED
    )
    assert live_layer("itad", "price_history", TODAY).kind == "price_history"


def test_live_values_win_and_are_dated() -> None:
    record = build(CASES["keyed-length-finish-estimate"][0])
    fresh = resolve_game(
        record,
        [
            live(
                "storefront",
                "storefront",
                {"price_usd": 29.99, "list_price_usd": 59.99, "discount_percent": 50},
            ),
            live("reviews", None, {"reviews": SAMPLE}),
            live("achievements", "player_stats", {"finish_rate": 0.42}),
            live("itad", "price_history", {"historical_low_usd": 19.99}),
        ],
    )
    assert isinstance(fresh, GameRecord)
    assert (fresh.price_usd, fresh.discount_percent, fresh.historical_low_usd) == (29.99, 50, 19.99)
    assert (fresh.finish_rate, fresh.reviews) == (0.42, SAMPLE)
    assert {k: (p.source, p.date) for k, p in fresh.provenance.items() if p.date == TODAY} == {
        "price_usd": ("live storefront", TODAY),
        "finish_rate": ("live achievements", TODAY),
        "historical_low_usd": ("live itad", TODAY),
    }
    # Untouched values and their provenance stay; kinds are dated by their oldest input.
    assert (fresh.name, fresh.main_story_hours, fresh.owners_range) == (
        record.name,
        20.5,
        "1,000,000 .. 2,000,000",
    )
    assert fresh.sources == record.sources.model_copy(
        update={"storefront": PICS.date, "price_history": TODAY}
    )
    # The refreshed record round trips too.
    assert resolve_game(fresh) == fresh


@pytest.mark.parametrize(
    ("adapter", "source", "patch", "reason"),
    [
        ("storefront", "storefront", {"app_type": "dlc"}, "not_a_game"),
        ("storefront", "storefront", {"name": "Story Game Soundtrack"}, "not_a_game"),
        ("storefront", "storefront", {"review_count": 12}, "too_few_reviews"),
    ],
    ids=["dlc", "soundtrack-name", "reviews-gone"],
)
def test_live_values_run_the_cross_checks(
    adapter: str, source: Any, patch: dict[str, object], reason: str
) -> None:
    record = build(CASES["keyed-length-finish-estimate"][0])
    refused = resolve_game(record, [live(adapter, source, patch)])
    assert isinstance(refused, NotRated)
    assert (refused.appid, refused.reason) == (APPID, reason)


def test_live_length_set_aside_keeps_the_length_and_its_checks() -> None:
    record = build(CASES["too-short-set-aside"][0])
    # 100 h of reviewers' play against 5 h: too short again; the previous 40 h stays.
    fresh = resolve_game(record, [live("hltb", "play_length", {"main_story_hours": 5.0})])
    assert isinstance(fresh, GameRecord)
    assert (fresh.main_story_hours, fresh.checks) == (40.0, (LENGTH_TOO_SHORT,))
    assert fresh.provenance["length_hours"].source == "hltb_2023"


def test_live_length_that_passes_replaces_the_length_and_its_checks() -> None:
    record = build(CASES["too-short-set-aside"][0])
    fresh = resolve_game(record, [live("hltb", "play_length", {"main_story_hours": 45.0})])
    assert isinstance(fresh, GameRecord)
    assert (fresh.main_story_hours, fresh.checks) == (45.0, ())
    assert fresh.provenance["length_hours"] == Provenance(
        source="live hltb", kind="play_length", date=TODAY
    )
    assert fresh.sources.play_length == TODAY


def test_invalid_live_value_raises_value_error() -> None:
    record = build(CASES["playtime-estimate"][0])
    with pytest.raises(ValueError, match="invalid record"):
        resolve_game(record, [live("storefront", "storefront", {"metacritic": 101})])


def test_combine_merges_a_same_day_layer_and_renames_an_earlier_one() -> None:
    earlier = Layer("live storefront", "storefront", dt.date(2026, 7, 1))
    same_day = live_layer("storefront", "storefront", TODAY)
    record_layers: list[LayerObservations] = [
        (earlier, [Observation(APPID, "tags", ("Old",))]),
        (same_day, [Observation(APPID, "name", "Old name"), Observation(APPID, "metacritic", 1)]),
    ]
    known = combine(record_layers, [live("storefront", "storefront", {"name": "New name"})])
    assert [layer.name for layer in known.layers] == [
        "live storefront",
        "live storefront 2026-07-01",
    ]
    assert known.value(APPID, "name") == "New name"
    assert known.value(APPID, "metacritic") == 1
    tags = known.get(APPID, "tags")
    assert tags is not None and (tags.value, tags.layer.date) == (("Old",), dt.date(2026, 7, 1))
