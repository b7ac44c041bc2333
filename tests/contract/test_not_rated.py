"""The not-rated index as the builder writes it and the server reads it, and a sentence for
every reason."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import orjson
import pytest

from bangscore.contract.not_rated import (
    REASON_DETAIL,
    REASON_LABEL,
    NotRatedIndex,
    not_rated_index,
    not_rated_search,
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
    "query", ["day of defeat", "counter strike", "cs2", "defeat source", "counter strkie"]
)
def test_the_stored_name_index_answers_as_the_names_indexed_here(query: str) -> None:
    doc = not_rated_index(APPS, {"cs2": 730})
    stored = not_rated_search(doc)
    assert stored is not None and len(stored["folded"]) == 2  # the named apps only
    loaded = NotRatedIndex(doc, orjson.dumps(stored)).name_index()
    built = NotRatedIndex(doc).name_index(stored=False)
    assert loaded is not None and built is not None
    assert loaded.search(query) == built.search(query) != []


def test_no_name_index_is_stored_when_no_app_has_a_name() -> None:
    assert not_rated_search(not_rated_index(APPS[2:])) is None


def _packed(**changed: Any) -> bytes:
    """The stored name index of APPS with some fields changed."""
    stored = not_rated_search(not_rated_index(APPS))
    assert stored is not None
    return orjson.dumps({**stored, **changed})


def _column(dtype: str, *values: int) -> str:
    return base64.b64encode(np.array(values, dtype=dtype).tobytes()).decode()


@pytest.mark.parametrize(
    "body",
    [
        b"\xff{",
        b"null",
        b"[]",
        _packed(positions="not base64!"),
        _packed(positions=7),
        _packed(positions=_column("<i4", 0, 1, 9, 0, 1, 1)),  # a posting past the 2 names
        _packed(appids=_column("<i8", 730)),  # one appid for two names
        _packed(cum="AAA="),  # 2 bytes: no whole 8-byte integer
        _packed(vocab=["z", "a"]),
        _packed(folded=None),
    ],
    ids=[
        "not-json",
        "null",
        "a-list",
        "bad-base64",
        "column-not-a-string",
        "posting-outside",
        "columns-differ",
        "partial-integer",
        "vocab-unsorted",
        "no-names",
    ],
)
def test_a_malformed_stored_name_index_is_refused_and_the_names_still_index(body: bytes) -> None:
    index = NotRatedIndex(not_rated_index(APPS), body)
    with pytest.raises(ValueError, match="search"):
        index.name_index()
    names = index.name_index(stored=False)
    assert names is not None and names.search("counter") == [730]


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
