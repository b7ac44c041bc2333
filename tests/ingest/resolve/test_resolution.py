"""Record resolution's pure helpers (ingest.resolve.record); resolving whole records is tested
in test_catalog.py and test_live.py."""

from __future__ import annotations

import pytest

from bangscore.ingest.resolve.record import estimated_fields

FLAGS = ("length", "finish_rate", "historical_low", "tags", "review_count")
# Which values are estimates -> the record's ``estimated`` names.
ESTIMATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "none": ((), ()),
    "length": (("length",), ("length_hours",)),
    "finish-rate": (("finish_rate",), ("finish_rate",)),
    "historical-low": (("historical_low",), ("historical_low_usd",)),
    "tags": (("tags",), ("tags",)),
    "review-count": (("review_count",), ("review_count",)),
    "low-and-count": (("review_count", "historical_low"), ("historical_low_usd", "review_count")),
    # Whichever values are estimates, their names keep one fixed order.
    "all-in-order": (
        tuple(reversed(FLAGS)),
        ("length_hours", "finish_rate", "historical_low_usd", "tags", "review_count"),
    ),
}


@pytest.mark.parametrize(("marked", "expected"), ESTIMATES.values(), ids=ESTIMATES.keys())
def test_estimated_fields(marked: tuple[str, ...], expected: tuple[str, ...]) -> None:
    assert estimated_fields(**{flag: flag in marked for flag in FLAGS}) == expected
