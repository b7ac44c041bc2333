"""Tier boundaries and the price thresholds (docs/API.md#tiers-and-thresholds)."""

from __future__ import annotations

import dataclasses
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
    assert TIERS == ("banger", "worth_it", "fair", "skip")


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        pytest.param(100, "banger", id="100-banger"),
        pytest.param(80, "banger", id="80-banger"),
        pytest.param(79, "worth_it", id="79-worth-it"),
        pytest.param(65, "worth_it", id="65-worth-it"),
        pytest.param(64, "fair", id="64-fair"),
        pytest.param(45, "fair", id="45-fair"),
        pytest.param(44, "skip", id="44-skip-no-wait-tier"),
        pytest.param(0, "skip", id="0-skip"),
    ],
)
def test_tier_boundaries(score: int, expected: str) -> None:
    assert tier(score) == expected


@pytest.mark.parametrize(
    "score", [pytest.param(-1, id="below-0"), pytest.param(101, id="above-100")]
)
def test_tier_rejects_scores_outside_0_to_100(score: int) -> None:
    with pytest.raises(ValueError, match="must be"):
        tier(score)


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
def test_tier_is_good_exactly_at_or_below_the_worth_it_price(inputs: ValueInputs) -> None:
    worth_it_at = threshold_usd(inputs, tiers.WORTH_IT_MIN)
    good = tier(bang_score(inputs)) in ("banger", "worth_it")
    assert good == (
        worth_it_at is not None and round(worth_it_at * 100) >= round(inputs.price_usd * 100)
    )


@pytest.mark.parametrize(
    "target", [pytest.param(0, id="0"), pytest.param(101, id="101"), pytest.param(-5, id="-5")]
)
def test_threshold_rejects_targets_outside_1_to_100(
    make_inputs: Callable[..., ValueInputs], target: int
) -> None:
    with pytest.raises(ValueError, match=f"target must be within 1..100, got {target}"):
        threshold_usd(make_inputs(), target)


@pytest.mark.parametrize(
    "error_cents",
    [
        pytest.param(-1, id="a-cent-low"),
        pytest.param(-2_000, id="20-dollars-low"),
        pytest.param(1, id="a-cent-high"),
        pytest.param(3_000, id="30-dollars-high"),
        pytest.param(None, id="no-guess"),
    ],
)
@pytest.mark.parametrize(
    "target", [tiers.WORTH_IT_MIN, tiers.BANGER_MIN], ids=["worth-it", "banger"]
)
def test_threshold_search_corrects_a_closed_form_guess_that_is_off(
    make_inputs: Callable[..., ValueInputs],
    monkeypatch: pytest.MonkeyPatch,
    error_cents: int | None,
    target: int,
) -> None:
    # The closed-form inverse can land off by float rounding (or give None at the edge of
    # reachability); the bracket-and-bisect search after it decides the cent.
    inputs = make_inputs(length_hours=60.0)
    exact = threshold_usd(inputs, target)
    assert exact is not None and exact > 30
    off = None if error_cents is None else round(exact + error_cents / 100, 2)
    monkeypatch.setattr(value, "price_for_score", lambda _inputs, _target: off)
    assert threshold_usd(inputs, target) == exact
    cents = round(exact * 100)
    assert at_price(inputs, cents / 100) >= target > at_price(inputs, (cents + 1) / 100)


@pytest.mark.parametrize("target", [1, tiers.WORTH_IT_MIN, 100], ids=["1", "worth-it", "100"])
def test_a_free_game_has_no_price_threshold(
    make_inputs: Callable[..., ValueInputs], target: int
) -> None:
    free = make_inputs(price_usd=0.0, free=True)
    assert bang_score(free) >= 1  # it scores; only no price is weighed
    assert threshold_usd(free, target) is None
