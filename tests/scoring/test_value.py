"""Properties of the bang_score (docs/API.md#the-score) and its input checks."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bangscore.scoring import value
from bangscore.scoring.value import ValueInputs, bang_score, score

prices = st.floats(min_value=0, max_value=1000, allow_nan=False)
review_scores = st.floats(min_value=0, max_value=1, allow_nan=False)
review_counts = st.integers(min_value=0, max_value=10_000_000)
lengths = st.floats(min_value=0.01, max_value=5000, allow_nan=False)
known_finish_rates = st.floats(min_value=0, max_value=1, allow_nan=False)
finish_rates = st.none() | known_finish_rates
genres = st.sampled_from(sorted(value.GENRE_NORM_HOURS))
replay_hours = st.none() | st.floats(min_value=0, max_value=5000, allow_nan=False)


@st.composite
def value_inputs(draw: st.DrawFn) -> ValueInputs:
    return ValueInputs(
        price_usd=draw(prices),
        review_score=draw(review_scores),
        review_count=draw(review_counts),
        length_hours=draw(lengths),
        finish_rate=draw(finish_rates),
        genre=draw(genres),
        replay_hours=draw(replay_hours),
        replayable=draw(st.booleans()),
        unattended=draw(st.booleans()),
        estimated_length=draw(st.booleans()),
        open_ended=draw(st.booleans()),
    )


@pytest.fixture
def make_inputs() -> Callable[..., ValueInputs]:
    """Return a factory of ValueInputs: a well-reviewed 20-hour $20 game, fields overridable."""

    def make(**overrides: object) -> ValueInputs:
        fields: dict[str, object] = {
            "price_usd": 20.0,
            "review_score": 0.9,
            "review_count": 5_000,
            "length_hours": 20.0,
            "finish_rate": None,
        }
        fields.update(overrides)
        return ValueInputs(**fields)  # type: ignore[arg-type]

    return make


@given(value_inputs())
def test_score_is_bounded_and_bang_score_rounds_half_up(inputs: ValueInputs) -> None:
    raw = score(inputs)
    assert 0.0 <= raw <= 100.0
    published = bang_score(inputs)
    assert isinstance(published, int)
    assert 0 <= published <= 100
    assert published == math.floor(raw + 0.5)
    assert abs(published - raw) <= 0.5


@given(value_inputs(), prices, prices)
def test_score_never_rises_with_price(inputs: ValueInputs, a: float, b: float) -> None:
    low, high = sorted((a, b))
    cheap = dataclasses.replace(inputs, price_usd=low)
    dear = dataclasses.replace(inputs, price_usd=high)
    assert score(dear) <= score(cheap)
    assert bang_score(dear) <= bang_score(cheap)


@given(value_inputs(), review_scores, review_scores)
def test_score_never_falls_as_review_score_rises(inputs: ValueInputs, a: float, b: float) -> None:
    low, high = sorted((a, b))
    worse = dataclasses.replace(inputs, review_score=low)
    better = dataclasses.replace(inputs, review_score=high)
    assert score(better) >= score(worse)


@given(value_inputs(), lengths, lengths)
def test_score_never_falls_as_length_rises(inputs: ValueInputs, a: float, b: float) -> None:
    low, high = sorted((a, b))
    short = dataclasses.replace(inputs, length_hours=low)
    long = dataclasses.replace(inputs, length_hours=high)
    assert score(long) >= score(short)


@given(value_inputs(), known_finish_rates, known_finish_rates)
def test_score_never_falls_as_finish_rate_rises(inputs: ValueInputs, a: float, b: float) -> None:
    low, high = sorted((a, b))
    fewer = dataclasses.replace(inputs, finish_rate=low)
    more = dataclasses.replace(inputs, finish_rate=high)
    assert score(more) >= score(fewer)


@given(
    value_inputs(),
    st.floats(min_value=0.01, max_value=500, allow_nan=False),
    st.floats(min_value=0.01, max_value=500, allow_nan=False),
)
def test_length_has_diminishing_returns(inputs: ValueInputs, start: float, step: float) -> None:
    # Concavity: each further `step` hours adds no more than the previous `step` hours did,
    # on either side of SHORT_HOURS: below it replay hours do not count (a toy is not
    # replayed), so reaching it adds them at once, by design (found: 0.5, 0.75, 1.0 hours).
    assume(start >= value.SHORT_HOURS or start + 2 * step < value.SHORT_HOURS)
    at = [dataclasses.replace(inputs, length_hours=start + i * step) for i in range(3)]
    # Likewise the finish bonus starts where the real hours reach SHORT_HOURS, and an estimated
    # length counts for less than its hours (value.estimated_hours), so real hours can cross it
    # above a start that does not (found: estimated 1.0, 1.25, 1.5 hours, finish rate 1).
    assume(len({value.real_hours(p) < value.SHORT_HOURS for p in at}) == 1)
    first_gain = score(at[1]) - score(at[0])
    second_gain = score(at[2]) - score(at[1])
    assert second_gain <= first_gain + 1e-9


@given(value_inputs(), st.floats(min_value=0, max_value=1, allow_nan=False))
def test_price_at_or_below_worth_scores_the_ceiling(inputs: ValueInputs, share: float) -> None:
    # Price only docks (score version 5.0): being cheaper than the game's worth earns nothing.
    worth = value.worth_usd(inputs)
    cheap = dataclasses.replace(inputs, price_usd=share * worth)
    at_worth = dataclasses.replace(inputs, price_usd=worth)
    assert score(cheap) == score(at_worth) == min(value.ceiling(inputs), value.cap(inputs))


@given(value_inputs(), st.floats(min_value=1.01, max_value=100, allow_nan=False))
def test_price_above_worth_docks_the_score(inputs: ValueInputs, times: float) -> None:
    worth = value.worth_usd(inputs)
    dear = dataclasses.replace(inputs, price_usd=times * worth)
    assume(value.ceiling(inputs) <= value.cap(inputs))
    assert score(dear) == pytest.approx(value.ceiling(inputs) * times**-value.DOCK_EXPONENT)


@given(
    st.floats(min_value=0, max_value=0.69, allow_nan=False),
    review_counts,
    lengths,
    finish_rates,
    genres,
)
def test_free_game_with_mixed_or_worse_reviews_is_not_a_banger(
    review_score: float, review_count: int, length: float, finish_rate: float | None, genre: str
) -> None:
    # Steam calls 40-69% positive "Mixed": no length makes such a free game a banger.
    inputs = ValueInputs(0.0, review_score, review_count, length, finish_rate, genre)
    assert bang_score(inputs) < 80


@given(
    st.floats(min_value=0.01, max_value=1.0, allow_nan=False),
    review_scores,
    review_counts,
    finish_rates,
    genres,
)
def test_free_game_of_an_hour_or_less_is_not_a_banger(
    length: float, review_score: float, review_count: int, finish_rate: float | None, genre: str
) -> None:
    inputs = ValueInputs(0.0, review_score, review_count, length, finish_rate, genre, free=True)
    assert bang_score(inputs) < 80


@given(value_inputs())
def test_free_games_are_scored_like_any_other(inputs: ValueInputs) -> None:
    free = dataclasses.replace(inputs, price_usd=0.0)
    assert 0.0 <= score(free) <= 100.0


@given(value_inputs())
def test_reviews_set_the_ceiling(inputs: ValueInputs) -> None:
    # Price against length only moves a game down within what its reviews allow.
    assert score(inputs) <= 100.0 * value.quality(inputs) + 1e-9


@given(value_inputs())
def test_reviews_below_the_floor_publish_zero_but_still_order(inputs: ValueInputs) -> None:
    share = value.calibrated_share(inputs.review_score, inputs.genre)
    shrunk = value.shrunk_review_score(share, inputs.review_count)
    assume(shrunk <= value.QUALITY_KNOTS[0][0])
    assert 0.0 < score(inputs) < 0.5
    assert bang_score(inputs) == 0


@given(value_inputs())
def test_finish_rate_is_a_bonus_never_a_requirement(inputs: ValueInputs) -> None:
    unknown = dataclasses.replace(inputs, finish_rate=None)
    nobody = dataclasses.replace(inputs, finish_rate=0.0)
    everybody = dataclasses.replace(inputs, finish_rate=1.0)
    assert score(unknown) == score(nobody) <= score(everybody)


@given(value_inputs(), replay_hours, replay_hours)
def test_replay_depth_never_lowers_the_score(
    inputs: ValueInputs, a: float | None, b: float | None
) -> None:
    low, high = sorted((a or 0.0, b or 0.0))
    assert score(dataclasses.replace(inputs, replay_hours=high)) >= score(
        dataclasses.replace(inputs, replay_hours=low)
    )
    assert score(dataclasses.replace(inputs, replayable=True)) >= score(
        dataclasses.replace(inputs, replayable=False)
    )


@given(value_inputs())
def test_unattended_time_and_estimated_lengths_never_raise_the_score(inputs: ValueInputs) -> None:
    assert score(dataclasses.replace(inputs, unattended=True)) <= score(
        dataclasses.replace(inputs, unattended=False)
    )
    assert score(dataclasses.replace(inputs, estimated_length=True)) <= score(
        dataclasses.replace(inputs, estimated_length=False)
    )


@given(lengths, lengths, genres)
def test_an_estimate_counts_for_less_and_grows_with_the_estimate(
    a: float, b: float, genre: str
) -> None:
    low, high = sorted((a, b))
    assert 0 < value.estimated_hours(low, genre) <= value.estimated_hours(high, genre)
    assert value.estimated_hours(high, genre) <= value.ESTIMATE_SHARE * high


@pytest.mark.parametrize(
    ("hours", "genre", "counted"),
    [
        # Up to the knee (1.8 x the genre's normal length) the estimate counts at 70%.
        pytest.param(4.0, "rpg", 0.7 * 4.0, id="short-rpg-estimate"),
        pytest.param(
            1.8 * value.norm_hours("rpg"),
            "rpg",
            0.7 * 1.8 * value.norm_hours("rpg"),
            id="at-the-knee",
        ),
        # Past it, the geometric mean of the estimate and the knee: a capped 30 h estimate of a
        # narrative game (knee 1.8 x its normal length, about 10 h) counts as about 12 h, not
        # 24 h as in score version 2.0.
        pytest.param(
            30.0,
            "narrative",
            0.7 * (30.0 * 1.8 * value.norm_hours("narrative")) ** 0.5,
            id="capped-narrative",
        ),
        pytest.param(
            30.0, "other", 0.7 * (30.0 * 1.8 * value.norm_hours("other")) ** 0.5, id="capped-other"
        ),
    ],
)
def test_estimated_hours(hours: float, genre: str, counted: float) -> None:
    assert value.estimated_hours(hours, genre) == pytest.approx(counted)


@given(value_inputs())
def test_length_is_judged_against_the_genre(inputs: ValueInputs) -> None:
    # The same hours are worth more in a genre whose games are short (at a review score the
    # genres' review calibration leaves alone).
    # An open-ended game's hours past a multiple of its genre's length count for less, so a
    # short genre's norm caps them sooner.
    assume(inputs.review_score <= value.CALIBRATED_FROM and not inputs.open_ended)
    short_genre = dataclasses.replace(inputs, genre="narrative")
    long_genre = dataclasses.replace(inputs, genre="rpg")
    assert score(short_genre) >= score(long_genre)


@given(value_inputs(), review_counts, review_counts)
def test_review_count_only_moves_the_score_toward_the_stated_review_score(
    inputs: ValueInputs, a: int, b: int
) -> None:
    # More reviews mean more confidence: the score moves in the direction of the game's own
    # review score (up when it beats the prior, down when it trails it), never past it.
    few, many = sorted((a, b))
    with_few = score(dataclasses.replace(inputs, review_count=few))
    with_many = score(dataclasses.replace(inputs, review_count=many))
    if inputs.review_score >= value.PRIOR_REVIEW_SCORE:
        assert with_many >= with_few - 1e-9
    else:
        assert with_many <= with_few + 1e-9


@given(
    value_inputs(),
    st.floats(min_value=0.70, max_value=1, allow_nan=False),
    st.integers(min_value=int(value.PRIOR_REVIEWS), max_value=10_000_000),
)
def test_price_for_score_inverts_score(
    inputs: ValueInputs, review_score: float, review_count: int
) -> None:
    # Reviews that give a quality part well above 0: drawn from the whole range, most inputs
    # scored under 1 and were filtered out, and Hypothesis's filter_too_much check failed.
    inputs = dataclasses.replace(inputs, review_score=review_score, review_count=review_count)
    current = score(inputs)
    # Off the cap's plateau (an estimated length's 79), where many prices share one score and
    # price_for_score answers the highest of them.
    assume(1.0 <= current <= 99.0 and inputs.price_usd > value.worth_usd(inputs))
    assume(current < value.cap(inputs))
    price = value.price_for_score(inputs, current)
    assert price is not None
    assert price == pytest.approx(inputs.price_usd, rel=1e-6)


def test_price_for_score_is_none_when_unreachable(
    make_inputs: Callable[..., ValueInputs],
) -> None:
    hopeless = make_inputs(review_score=0.2)  # quality part is 0
    assert value.price_for_score(hopeless, 10) is None
    tiny = make_inputs(length_hours=0.1)  # a toy: its ceiling is below a banger's
    assert value.price_for_score(tiny, 80) is None


@pytest.mark.parametrize("target", [0, -1, 100.5, math.nan])
def test_price_for_score_rejects_bad_targets(
    make_inputs: Callable[..., ValueInputs], target: float
) -> None:
    with pytest.raises(ValueError, match="target"):
        value.price_for_score(make_inputs(), target)


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        pytest.param("price_usd", -0.01, id="negative-price"),
        pytest.param("price_usd", math.inf, id="infinite-price"),
        pytest.param("price_usd", math.nan, id="nan-price"),
        pytest.param("review_score", 1.01, id="review-score-above-1"),
        pytest.param("review_score", -0.1, id="review-score-below-0"),
        pytest.param("review_count", -1, id="negative-review-count"),
        pytest.param("length_hours", 0.0, id="zero-length"),
        pytest.param("length_hours", -2.0, id="negative-length"),
        pytest.param("finish_rate", 1.5, id="finish-rate-above-1"),
        pytest.param("finish_rate", math.nan, id="nan-finish-rate"),
        pytest.param("replay_hours", -1.0, id="negative-replay-hours"),
    ],
)
def test_inputs_reject_out_of_range_values(
    make_inputs: Callable[..., ValueInputs], field: str, bad: float
) -> None:
    with pytest.raises(ValueError, match=field):
        make_inputs(**{field: bad})


def test_inputs_are_frozen(make_inputs: Callable[..., ValueInputs]) -> None:
    inputs = make_inputs()
    with pytest.raises(dataclasses.FrozenInstanceError):
        inputs.price_usd = 1.0  # type: ignore[misc]


def game(
    price: float, reviews: float, n: int, hours: float, genre: str, **more: object
) -> ValueInputs:
    return ValueInputs(price, reviews, n, hours, genre=genre, **more)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("inputs", "lowest", "highest"),
    [
        # Short, brilliant games are good value at a low price (score version 1 called them
        # "fair": Portal 63, A Short Hike 55).
        pytest.param(
            game(9.99, 0.98, 170_744, 3.1, "action", finish_rate=0.4), 65, 100, id="portal"
        ),
        pytest.param(game(7.99, 0.99, 17_877, 1.5, "indie_short"), 65, 100, id="a-short-hike"),
        pytest.param(game(19.99, 0.97, 112_717, 8.3, "action"), 65, 100, id="celeste"),
        # A 72-hour RPG loved by its players is a banger at full price (round 6: price only
        # docks; score version 4.0 put it at 76).
        pytest.param(game(59.99, 0.96, 712_677, 72.2, "rpg"), 80, 100, id="baldurs-gate-3"),
        # An acclaimed 2025 hit whose count is the capped sample's "1,000+" is shrunk as little
        # as the bound allows (4.0: 68).
        pytest.param(game(49.99, 0.95, 1_000, 34.0, "rpg"), 75, 100, id="clair-obscur-1000"),
        # A roguelike's replay depth makes a short main story a banger.
        pytest.param(
            game(14.99, 0.97, 107_575, 7.4, "roguelike", replayable=True, replay_hours=26.0),
            80,
            100,
            id="balatro",
        ),
        # Idle hours do not count: a free, loved idle game is no banger.
        pytest.param(
            game(0.0, 0.95, 11_658, 1591.6, "other", unattended=True), 0, 79, id="ngu-idle"
        ),
        # Full price for a 15-hour game with middling reviews is not "worth it".
        pytest.param(game(59.99, 0.75, 20_000, 15.0, "action"), 0, 64, id="aaa-full-price"),
        # Lengths estimated at the 30 h cap from reviewers who idle or replay: out of the top 50
        # (a score of 90.3 or more), where score version 2.0 put them (91.4, 90.5, 90.4).
        pytest.param(
            game(10.99, 0.96, 312, 30.0, "narrative", replay_hours=1044.1, estimated_length=True),
            0,
            89,
            id="wo-mei-k-estimated",
        ),
        pytest.param(
            game(
                11.99,
                0.98,
                154,
                30.0,
                "other",
                replayable=True,
                replay_hours=53.05,
                estimated_length=True,
            ),
            0,
            89,
            id="bean-and-nothingness-estimated",
        ),
        pytest.param(
            game(
                7.99,
                0.95,
                432,
                28.06,
                "roguelike",
                replayable=True,
                replay_hours=40.08,
                estimated_length=True,
            ),
            0,
            89,
            id="cube-chaos-estimated",
        ),
        # Short, poorly reviewed and expensive: skip territory.
        pytest.param(game(29.99, 0.5, 300, 2.0, "narrative"), 0, 44, id="short-bad-expensive"),
        # Mostly negative reviews leave nothing to sell, free or not.
        pytest.param(game(0.0, 0.3, 5_000, 40.0, "rpg"), 0, 0, id="free-but-disliked"),
    ],
)
def test_landmark_games_land_in_sensible_bands(
    inputs: ValueInputs, lowest: int, highest: int
) -> None:
    assert lowest <= bang_score(inputs) <= highest


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        # Score version 2.0 scored both 0.0 and listed them by appid: 2430990 then 2562240.
        pytest.param(
            game(4.99, 0.42, 1_870, 2.7, "indie_short"),
            game(4.99, 0.11, 210, 0.5, "multiplayer", estimated_length=True),
            id="their-land-above-only-up",
        ),
        pytest.param(
            game(4.99, 0.31, 433, 1.1, "indie_short", estimated_length=True),
            game(69.99, 0.312, 12_223, 5.3, "shooter"),
            id="the-dearer-of-two-disliked-games-last",
        ),
    ],
)
def test_games_at_zero_are_ordered_by_how_bad_a_buy_they_are(
    better: ValueInputs, worse: ValueInputs
) -> None:
    assert bang_score(better) == bang_score(worse) == 0
    assert score(better) > score(worse)


@given(value_inputs())
def test_a_free_game_is_never_a_banger_and_weighs_no_price(inputs: ValueInputs) -> None:
    free = dataclasses.replace(inputs, price_usd=0.0, free=True)
    assert bang_score(free) <= 79
    paid_like = dataclasses.replace(free, free=False)
    assert score(free) == pytest.approx(
        min(value.cap(free), 100 * value.quality(free) * min(value.depth(free), 0.79))
    )
    assert score(free) <= score(paid_like) + 1e-9
    assert value.price_for_score(free, 50.0) is None


@pytest.mark.parametrize(
    ("hours", "counted"),
    [
        pytest.param(56.2, 56.2, id="battlefield-6-by-play"),
        pytest.param(100.0, 100.0, id="at-the-cap"),
        pytest.param(307.7, 100.0, id="dota-2-capped"),
    ],
)
def test_a_length_from_play_counts_up_to_the_cap_with_no_replay_on_top(
    hours: float, counted: float
) -> None:
    played = ValueInputs(
        price_usd=69.99,
        review_score=0.6,
        review_count=50_000,
        length_hours=hours,
        genre="shooter",
        replay_hours=400.0,
        played_length=True,
    )
    assert value.real_hours(played) == counted
