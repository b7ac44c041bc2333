"""The flags beside a score: early access, adult and provisional (docs/API.md#flags)."""

from __future__ import annotations

from typing import Any

import pytest

from bangscore.scoring.flags import adult, early_access, provisional_reasons
from tests.factories import make_record


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
    ],
)
def test_adult(fields: dict[str, Any], expected: bool) -> None:
    assert adult(make_record(**fields)) is expected


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
            {"estimated": ("review_count",)},
            ["review_count_lower_bound"],
            id="capped-sample",
        ),
        pytest.param(
            {
                "review_count": 12,
                "length_source": "playtime_estimate",
                "estimated": ("review_count", "length_hours"),
            },
            ["few_reviews", "estimated_length", "review_count_lower_bound"],
            id="all-three-in-order",
        ),
    ],
)
def test_provisional_reasons(fields: dict[str, Any], expected: list[str]) -> None:
    assert provisional_reasons(make_record(**fields)) == expected
