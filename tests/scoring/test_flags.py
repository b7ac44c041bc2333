"""The flags beside a score: early access, adult and provisional, as docs/API.md#flags defines
them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bangscore.scoring.flags import adult, early_access, provisional_reasons
from tests.support.factories import make_record


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({"storefront_genres": ("Action", "Early Access")}, True, id="early-access"),
        pytest.param({"storefront_genres": ("Action", "Indie")}, False, id="released"),
        pytest.param({}, False, id="no-genres"),
    ],
)
def test_early_access(fields: dict[str, Any], expected: bool) -> None:
    assert early_access(make_record(**fields)) is expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # Baldur's Gate 3's descriptors: some nudity, violence, mature content: not adult.
        pytest.param({"content_descriptors": (1, 2, 5)}, False, id="some-nudity-is-not-adult"),
        pytest.param({"content_descriptors": (1, 3, 4, 5)}, True, id="adult-only-sexual"),
        pytest.param({"content_descriptors": (1, 4)}, True, id="frequent-nudity"),
        pytest.param({"storefront_genres": ("Casual", "Nudity")}, True, id="old-nudity-genre"),
        pytest.param(
            {"storefront_genres": ("Sexual Content",)}, True, id="old-sexual-content-genre"
        ),
        pytest.param({}, False, id="none"),
        # NEKOPARA Vol. 1 (333600)'s first tags in the 2026 PICS dump; no descriptor 3 or 4.
        pytest.param(
            {"tags": ("Cute", "Anime", "Sexual Content", "Visual Novel", "Nudity")},
            True,
            id="nekopara-sexual-content-among-the-first-five-tags",
        ),
        pytest.param(
            {"tags": ("Visual Novel", "Anime", "Romance", "Cute", "2D", "Nudity")},
            False,
            id="nudity-sixth-is-not-adult",
        ),
        pytest.param(
            {"tags": (*(f"t{i}" for i in range(9)), "Hentai")},
            True,
            id="hentai-tenth-is-adult",
        ),
        pytest.param(
            {"tags": (*(f"t{i}" for i in range(10)), "Hentai")},
            False,
            id="hentai-eleventh-is-not-adult-payday-3",
        ),
        pytest.param({"tags": ("Mature", "Violent", "Gore")}, False, id="mature-is-not-adult"),
    ],
)
def test_adult(fields: dict[str, Any], expected: bool) -> None:
    assert adult(make_record(**fields)) is expected


AS_OF = dt.date(2026, 7, 24)


def at(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, 12, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({}, [], id="measured-and-well-reviewed"),
        pytest.param({"review_count": 49}, ["few_reviews"], id="49-reviews"),
        pytest.param({"review_count": 50}, [], id="50-reviews"),
        pytest.param(
            {"length_source": "playtime_estimate", "estimated": ("length_hours",)},
            ["estimated_length"],
            id="estimated-length",
        ),
        pytest.param(
            {"review_count": 1000, "estimated": ("review_count",)},
            [],
            id="1000-plus-reviews-is-not-provisional",
        ),
        pytest.param(
            {"price_observed_at": at(dt.date(2025, 1, 1))},
            ["stale_price"],
            id="hades-price-last-seen-1-jan-2025",
        ),
        pytest.param({"price_observed_at": at(dt.date(2026, 1, 25))}, [], id="price-180-days-old"),
        pytest.param(
            {"price_usd": 0.0, "list_price_usd": 0.0, "price_observed_at": at(dt.date(2025, 1, 1))},
            [],
            id="team-fortress-2-free-is-never-stale",
        ),
        pytest.param(
            {
                "review_count": 12,
                "length_source": "playtime_estimate",
                "estimated": ("review_count", "length_hours"),
                "price_observed_at": at(dt.date(2024, 10, 31)),
            },
            ["few_reviews", "estimated_length", "stale_price"],
            id="all-three-in-order",
        ),
    ],
)
def test_provisional_reasons(fields: dict[str, Any], expected: list[str]) -> None:
    fields.setdefault("price_observed_at", at(AS_OF))
    assert provisional_reasons(make_record(**fields), AS_OF) == expected


def test_no_price_is_stale_without_an_as_of_day() -> None:
    record = make_record(price_observed_at=at(dt.date(2024, 10, 31)))
    assert provisional_reasons(record) == []
