"""What push remembers from build to build (build/push_state.py): the changed fields, the
log of steps and the feeds' entries, over synthetic list items."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bangscore.build.push_state import (
    FeedEntry,
    PushState,
    advance,
    decode,
    diff,
    encode,
    game_fields,
)
from bangscore.contract.push import CHANGE_HISTORY, FEED_ENTRIES

T0 = dt.datetime(2026, 12, 1, 3, 15, tzinfo=dt.UTC)


def item(appid: int, **fields: Any) -> dict[str, Any]:
    """Given an appid and overrides, return a list item's compared fields and name."""
    base: dict[str, Any] = {
        "appid": appid,
        "name": f"Game {appid}",
        "bang_score": 60,
        "tier": "fair",
        "verdict": "skip",
        "price_usd": 19.99,
        "verdict_price_usd": None,
        "next_sale_starts": dt.date(2026, 12, 18),
        "genre": "rpg",
    }
    return {**base, **fields}


def step(previous: PushState | None, items: list[dict[str, Any]], n: int) -> PushState:
    """Given a state and items, advance it as build number n (ids s1, s2, ...)."""
    return advance(
        previous,
        items,
        snapshot_id=f"s{n}",
        created_at=T0 + dt.timedelta(days=n),
        as_of=(T0 + dt.timedelta(days=n)).date(),
    )


def test_game_fields_are_the_six_compared_fields_dates_as_iso() -> None:
    assert game_fields(item(1)) == (60, "fair", "skip", 19.99, None, "2026-12-18")


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param({1: (1, "a")}, {1: (1, "a")}, [], id="unchanged"),
        pytest.param({1: (1, "a")}, {1: (2, "a")}, [(1, {"bang_score": [1, 2]})], id="one-field"),
        pytest.param(
            {}, {1: (1, "a")}, [(1, {"bang_score": [None, 1], "tier": [None, "a"]})], id="added"
        ),
        pytest.param(
            {1: (1, "a")}, {}, [(1, {"bang_score": [1, None], "tier": ["a", None]})], id="removed"
        ),
    ],
)
def test_diff_lists_each_changed_field_as_old_new(
    before: dict[int, tuple[Any, ...]], after: dict[int, tuple[Any, ...]], expected: list[Any]
) -> None:
    # Two-field tuples stand for the six: zip stops at the shorter.
    pad = (None,) * 4
    changes = diff(
        {a: f + pad for a, f in before.items()}, {a: f + pad for a, f in after.items()}, {}
    )
    assert [(c.appid, c.fields) for c in changes] == expected


def test_the_first_state_has_no_changes_and_every_qualifying_game_in_its_feeds() -> None:
    state = step(None, [item(1, verdict="buy_now"), item(2, tier="banger"), item(3)], 1)
    assert state.snapshot == "s1"
    assert [(s.snapshot, s.previous, s.changes) for s in state.log] == [("s1", None, ())]
    assert [e.appid for e in state.feeds["deals"]] == [1]
    assert [e.appid for e in state.feeds["bangers"]] == [2]
    assert [e.appid for e in state.feeds["genre/rpg"]] == [1]


def test_a_game_joins_a_feed_when_it_newly_qualifies_and_keeps_its_entry() -> None:
    first = step(None, [item(1, verdict="buy_now"), item(2)], 1)
    second = step(first, [item(1, verdict="buy_now"), item(2, verdict="buy_now")], 2)
    assert second.feeds["deals"] == (
        FeedEntry(2, "s2", "2026-12-03T03:15:00Z"),
        FeedEntry(1, "s1", "2026-12-02T03:15:00Z"),
    )
    assert [(c.appid, c.fields) for c in second.log[-1].changes] == [
        (2, {"verdict": ["skip", "buy_now"]})
    ]
    # Nothing changes: the same entries, so the same ids.
    third = step(second, [item(1, verdict="buy_now"), item(2, verdict="buy_now")], 3)
    assert third.feeds["deals"] == second.feeds["deals"]
    assert third.log[-1].changes == ()


def test_a_game_that_stops_qualifying_leaves_and_comes_back_as_a_new_entry() -> None:
    first = step(None, [item(1, verdict="buy_now")], 1)
    second = step(first, [item(1)], 2)
    assert second.feeds["deals"] == ()
    third = step(second, [item(1, verdict="buy_now")], 3)
    assert [(e.appid, e.snapshot) for e in third.feeds["deals"]] == [(1, "s3")]


def test_a_feed_holds_at_most_its_limit_newest_first() -> None:
    items = [item(n, verdict="buy_now") for n in range(1, FEED_ENTRIES + 21)]
    state = step(None, items, 1)
    assert [e.appid for e in state.feeds["deals"]] == list(range(1, FEED_ENTRIES + 1))


def test_the_log_keeps_the_last_steps_each_naming_its_predecessor() -> None:
    state = None
    for n in range(1, CHANGE_HISTORY + 4):
        state = step(state, [item(1, bang_score=50 + n)], n)
    assert state is not None
    assert [s.snapshot for s in state.log] == [f"s{n}" for n in range(4, CHANGE_HISTORY + 4)]
    assert [s.previous for s in state.log] == [f"s{n}" for n in range(3, CHANGE_HISTORY + 3)]
    assert all(
        s.changes[0].fields == {"bang_score": [49 + n, 50 + n]}
        for n, s in enumerate(state.log, start=4)
    )


def test_a_state_reads_back_as_written() -> None:
    first = step(None, [item(1, verdict="buy_now"), item(2)], 1)
    state = step(first, [item(1, verdict="buy_now", price_usd=9.99), item(3)], 2)
    assert decode(encode(state)) == state


@pytest.mark.parametrize("body", [b"", b"[]", b'{"games": {}}', b"\xff"], ids=str)
def test_a_body_that_is_no_state_is_refused(body: bytes) -> None:
    with pytest.raises(ValueError, match="not a push state"):
        decode(body)
