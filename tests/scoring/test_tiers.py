"""Tier boundaries and the price thresholds (docs/API.md#tiers-and-thresholds)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.scoring import tiers, value
from bangscore.scoring.tiers import TIERS, threshold_usd, tier
from bangscore.scoring.value import ValueInputs, bang_score

targets = st.integers(min_value=1, max_value=100)


@st.composite
def value_inputs(draw: st.DrawFn) -> ValueInputs:
    return ValueInputs(
        price_usd=draw(st.integers(min_value=0, max_value=100_000)) / 100,
        review_score=draw(st.floats(min_value=0, max_value=1, allow_nan=False)),
        review_count=draw(st.integers(min_value=0, max_value=1_000_000)),
        length_hours=draw(st.floats(min_value=0.05, max_value=2000, allow_nan=False)),
        finish_rate=draw(st.none() | st.floats(min_value=0, max_value=1, allow_nan=False)),
    )


def at_price(inputs: ValueInputs, usd: float) -> int:
    return bang_score(dataclasses.replace(inputs, price_usd=usd))


@pytest.fixture
def make_inputs() -> Callable[..., ValueInputs]:
    """Return a factory of ValueInputs: a well-reviewed 20-hour $20 game, fields overridable."""

    def make(**overrides: object) -> ValueInputs:
        fields: dict[str, object] = {
            "price_usd": 20.0,
            "review_score": 0.95,
            "review_count": 5_000,
            "length_hours": 20.0,
            "finish_rate": None,
        }
        fields.update(overrides)
        return ValueInputs(**fields)  # type: ignore[arg-type]

    return make


def test_tier_names_match_the_contract() -> None:
    assert TIERS == ("banger", "worth_it", "fair", "wait_for_sale", "skip")


@pytest.mark.parametrize(
    ("score", "price", "worth_it_at", "expected"),
    [
        pytest.param(100, 59.99, 80.0, "banger", id="100-banger"),
        pytest.param(80, 59.99, 65.0, "banger", id="80-banger"),
        pytest.param(79, 59.99, 65.0, "worth_it", id="79-worth-it"),
        pytest.param(65, 0.0, 1.0, "worth_it", id="65-worth-it-free"),
        pytest.param(64, 19.99, 10.0, "fair", id="64-fair"),
        pytest.param(45, 19.99, None, "fair", id="45-fair-even-without-threshold"),
        pytest.param(44, 20.00, 5.00, "wait_for_sale", id="44-threshold-exactly-25pc"),
        pytest.param(44, 20.00, 4.99, "skip", id="44-threshold-one-cent-under-25pc"),
        pytest.param(44, 19.99, 5.00, "wait_for_sale", id="44-threshold-above-25pc"),
        pytest.param(10, 59.99, 15.00, "wait_for_sale", id="10-deep-but-plausible-sale"),
        pytest.param(10, 59.99, 14.99, "skip", id="10-needs-more-than-75pc-off"),
        pytest.param(44, 20.00, None, "skip", id="44-no-price-makes-it-worth-it"),
        pytest.param(44, 0.0, None, "skip", id="44-free-no-threshold"),
        pytest.param(44, 0.0, 5.0, "skip", id="44-free-cannot-get-cheaper"),
        pytest.param(0, 0.01, 0.01, "wait_for_sale", id="0-one-cent-threshold-equal"),
        pytest.param(0, 9.99, None, "skip", id="0-skip"),
    ],
)
def test_tier_boundaries(
    score: int, price: float, worth_it_at: float | None, expected: str
) -> None:
    assert tier(score, price, worth_it_at) == expected


@pytest.mark.parametrize(
    ("score", "price", "worth_it_at"),
    [
        pytest.param(-1, 10.0, None, id="score-below-0"),
        pytest.param(101, 10.0, None, id="score-above-100"),
        pytest.param(50, -1.0, None, id="negative-price"),
        pytest.param(50, math.nan, None, id="nan-price"),
        pytest.param(30, 10.0, -0.5, id="negative-threshold"),
        pytest.param(30, 10.0, math.inf, id="infinite-threshold"),
    ],
)
def test_tier_rejects_bad_values(score: int, price: float, worth_it_at: float | None) -> None:
    with pytest.raises(ValueError, match="must be"):
        tier(score, price, worth_it_at)


@given(value_inputs(), targets)
def test_threshold_is_exact_to_the_cent(inputs: ValueInputs, target: int) -> None:
    threshold = threshold_usd(inputs, target)
    if threshold is None:
        assert at_price(inputs, 0.0) < target
        return
    cents = round(threshold * 100)
    assert threshold == round(cents / 100, 2)
    assert at_price(inputs, cents / 100) >= target
    assert at_price(inputs, (cents + 1) / 100) < target


@given(value_inputs(), targets, targets)
def test_threshold_never_rises_with_the_target(inputs: ValueInputs, a: int, b: int) -> None:
    low, high = sorted((a, b))
    easier = threshold_usd(inputs, low)
    harder = threshold_usd(inputs, high)
    if harder is not None:
        assert easier is not None
        assert easier >= harder


@given(value_inputs(), targets)
def test_threshold_agrees_with_the_current_score(inputs: ValueInputs, target: int) -> None:
    threshold = threshold_usd(inputs, target)
    price_cents = round(inputs.price_usd * 100)
    if bang_score(inputs) >= target:
        assert threshold is not None
        assert round(threshold * 100) >= price_cents
    else:
        assert threshold is None or round(threshold * 100) < price_cents


@given(value_inputs())
def test_wait_for_sale_only_when_some_sale_makes_it_worth_it(inputs: ValueInputs) -> None:
    worth_it_at = threshold_usd(inputs, tiers.WORTH_IT_MIN)
    label = tier(bang_score(inputs), inputs.price_usd, worth_it_at)
    assert label in TIERS
    if label == "wait_for_sale":
        assert worth_it_at is not None
        assert 0.25 * inputs.price_usd - 0.005 <= worth_it_at < inputs.price_usd
        assert at_price(inputs, worth_it_at) >= tiers.WORTH_IT_MIN


@pytest.mark.parametrize(
    "overrides",
    [
        pytest.param({}, id="typical"),
        pytest.param({"length_hours": 2000.0, "review_score": 1.0}, id="huge-game"),
        pytest.param({"length_hours": 0.2}, id="tiny-game"),
        pytest.param({"review_score": 0.3}, id="poorly-reviewed"),
        pytest.param({"price_usd": 0.0, "length_hours": 300.0}, id="free-and-long"),
    ],
)
@pytest.mark.parametrize("target", [tiers.BANGER_MIN, tiers.WORTH_IT_MIN])
def test_threshold_needs_few_score_evaluations(
    make_inputs: Callable[..., ValueInputs],
    monkeypatch: pytest.MonkeyPatch,
    overrides: dict[str, float],
    target: int,
) -> None:
    # It runs twice per game for the whole catalog; a plain bisection over $0-$1000 would
    # take 17 evaluations, the closed-form guess should need far fewer.
    calls = 0
    real = value.bang_score

    def counting(inputs: ValueInputs) -> int:
        nonlocal calls
        calls += 1
        return real(inputs)

    monkeypatch.setattr(value, "bang_score", counting)
    threshold_usd(make_inputs(**overrides), target)
    assert calls <= 8


@pytest.mark.parametrize(
    ("overrides", "target", "expected_cents_at_least"),
    [
        # 200 hours of a 95%-positive game for $20 is 10 hours per dollar: a banger at its full
        # price by any reading, so both thresholds lie at or above the $20 it costs.
        pytest.param({"length_hours": 200.0}, tiers.BANGER_MIN, 2000, id="long-game-banger"),
        pytest.param({"length_hours": 200.0}, tiers.WORTH_IT_MIN, 2000, id="long-game-worth"),
    ],
)
def test_long_well_reviewed_games_keep_their_tier_at_full_price(
    make_inputs: Callable[..., ValueInputs],
    overrides: dict[str, float],
    target: int,
    expected_cents_at_least: int,
) -> None:
    threshold = threshold_usd(make_inputs(**overrides), target)
    assert threshold is not None
    assert round(threshold * 100) >= expected_cents_at_least


def test_free_short_game_has_no_banger_threshold(make_inputs: Callable[..., ValueInputs]) -> None:
    # The price term saturates: a one-hour game cannot become a banger at any price, not even 0.
    assert threshold_usd(make_inputs(length_hours=1.0, review_score=1.0), 80) is None


@pytest.mark.parametrize("target", [0, 101, -5])
def test_threshold_rejects_bad_targets(
    make_inputs: Callable[..., ValueInputs], target: int
) -> None:
    with pytest.raises(ValueError, match="target"):
        threshold_usd(make_inputs(), target)
