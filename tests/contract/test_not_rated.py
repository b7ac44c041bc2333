"""The not-rated index as the builder writes it and the server reads it, and a sentence for
every reason."""

from __future__ import annotations

from typing import Any

import pytest

from bangscore.contract.not_rated import (
    REASON_DETAIL,
    REASON_LABEL,
    NotRatedIndex,
    not_rated_index,
)
from bangscore.scoring.records import NOT_RATED_REASONS, NotRated

APPS = [
    NotRated(appid=730, name="Counter-Strike 2", reason="not_a_game"),
    NotRated(appid=304, name="Day of Defeat: Source Press Review", reason="delisted"),
    NotRated(appid=999001, name="", reason="too_few_reviews"),
]


def test_index_round_trips_sorted_by_appid() -> None:
    doc = not_rated_index(APPS)
    assert doc["appid"] == [304, 730, 999001]
    index = NotRatedIndex(doc)
    assert len(index) == 3
    assert index.lookup(304) == ("Day of Defeat: Source Press Review", "delisted")
    assert index.lookup(999001) == ("", "too_few_reviews")
    assert index.lookup(305) is None


def test_name_index_finds_named_apps_only() -> None:
    names = NotRatedIndex(not_rated_index(APPS)).name_index()
    assert names is not None
    assert names.search("day of defeat") == [304]
    assert NotRatedIndex(not_rated_index(APPS[2:])).name_index() is None


@pytest.mark.parametrize(
    "change",
    [
        {"appid": [730, 304]},
        {"reason": [0, 99]},
        {"name": ["only one"]},
        {"appid": ["x", "y"]},
    ],
    ids=["unsorted", "reason-out-of-range", "lengths-differ", "not-numbers"],
)
def test_malformed_index_is_refused(change: dict[str, Any]) -> None:
    doc = {**not_rated_index(APPS[:2]), **change}
    with pytest.raises(ValueError):
        NotRatedIndex(doc)


@pytest.mark.parametrize("reason", NOT_RATED_REASONS)
def test_every_reason_has_its_sentence_and_label(reason: str) -> None:
    assert REASON_DETAIL[reason] and REASON_LABEL[reason]
