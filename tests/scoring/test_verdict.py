"""The buyer's verdict, its sentence and the genre percentile (docs/API.md#verdict)."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.scoring.verdict import (
    BuyerVerdict,
    PricePoint,
    genre_percentiles,
    lowest_at_or_below,
    verdict,
    verdict_text,
)

JUL2 = dt.date(2026, 7, 2)
JUN1 = dt.date(2026, 6, 1)
HISTORY: tuple[PricePoint, ...] = ((JUN1, 59.99), (JUL2, 29.99), (dt.date(2026, 7, 20), 59.99))


@pytest.mark.parametrize(
    ("tier", "price", "worth_it", "banger", "history", "expected"),
    [
        pytest.param(
            "banger", 59.99, 90.0, 70.0, (), BuyerVerdict("buy_now", None, None), id="banger"
        ),
        pytest.param(
            "worth_it", 59.99, 70.0, 20.0, (), BuyerVerdict("buy_now", None, None), id="worth-it"
        ),
        pytest.param(
            "fair",
            59.99,
            30.0,
            10.0,
            HISTORY,
            BuyerVerdict("wait_for_sale", 30.0, (JUL2, 29.99)),
            id="fair-history-reached-worth-it",
        ),
        pytest.param(
            "fair",
            59.99,
            29.99,
            None,
            HISTORY,
            BuyerVerdict("wait_for_sale", 29.99, (JUL2, 29.99)),
            id="reached-exactly-to-the-cent",
        ),
        pytest.param(
            "fair",
            59.99,
            29.98,
            None,
            HISTORY,
            BuyerVerdict("skip", None, None),
            id="one-cent-short",
        ),
        pytest.param(
            "wait_for_sale",
            59.99,
            40.0,
            35.0,
            HISTORY,
            BuyerVerdict("wait_for_sale", 35.0, (JUL2, 29.99)),
            id="banger-price-seen-wins",
        ),
        pytest.param(
            "fair", 59.99, 30.0, 10.0, (), BuyerVerdict("skip", None, None), id="no-history"
        ),
        pytest.param(
            "skip", 59.99, None, None, HISTORY, BuyerVerdict("skip", None, None), id="no-threshold"
        ),
        pytest.param(
            "skip", 0.0, 5.0, None, ((JUL2, 0.0),), BuyerVerdict("skip", None, None), id="free"
        ),
    ],
)
def test_verdict(
    tier: str,
    price: float,
    worth_it: float | None,
    banger: float | None,
    history: tuple[PricePoint, ...],
    expected: BuyerVerdict,
) -> None:
    assert verdict(tier, price, worth_it, banger, history) == expected


def test_a_wait_names_a_price_the_history_reached() -> None:
    decided = verdict("fair", 59.99, 30.0, None, HISTORY)
    assert decided.price_usd is not None and decided.reached is not None
    assert decided.reached[1] <= decided.price_usd
    assert decided.reached in HISTORY


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_verdict_refuses_bad_prices(bad: float) -> None:
    with pytest.raises(ValueError, match="price_usd"):
        verdict("fair", bad, 10.0, None, ())


def test_lowest_prefers_the_lowest_then_the_latest() -> None:
    later = dt.date(2026, 8, 1)
    points = ((JUN1, 9.99), (JUL2, 4.99), (later, 4.99), (later, 19.99))
    assert lowest_at_or_below(points, 10.0) == (later, 4.99)
    assert lowest_at_or_below(points, 4.98) is None


@pytest.mark.parametrize(
    ("tier", "price", "worth_it", "banger", "history", "expected"),
    [
        pytest.param(
            "banger",
            59.99,
            90.0,
            72.1,
            (),
            "Baldur's Gate 3 is a banger at $59.99 on 24 Jul 2026, and stays a banger up to "
            "$72.10: buy it now.",
            id="banger-stays",
        ),
        pytest.param(
            "worth_it",
            59.99,
            70.0,
            41.2,
            (),
            "Baldur's Gate 3 is worth it at $59.99 on 24 Jul 2026; it becomes a banger at $41.20 "
            "or less: buy it now.",
            id="worth-it-becomes",
        ),
        pytest.param(
            "worth_it",
            59.99,
            70.0,
            30.0,
            HISTORY,
            "Baldur's Gate 3 is worth it at $59.99 on 24 Jul 2026; it becomes a banger at $30.00 "
            "or less, a price it reached on 2 Jul 2026: buy it now.",
            id="worth-it-banger-price-seen",
        ),
        pytest.param(
            "fair",
            59.99,
            30.0,
            None,
            HISTORY,
            "Wait for a sale: Baldur's Gate 3 becomes worth it at $30.00 or less (it is $59.99 on "
            "24 Jul 2026), a price it reached on 2 Jul 2026 at $29.99.",
            id="wait",
        ),
        pytest.param(
            "fair",
            59.99,
            20.0,
            None,
            HISTORY,
            "Skip: Baldur's Gate 3 becomes worth it only at $20.00 or less (it is $59.99 on 24 Jul "
            "2026), a price it has never been seen at.",
            id="skip-never-seen",
        ),
        pytest.param(
            "skip",
            59.99,
            None,
            None,
            HISTORY,
            "Skip: no price makes Baldur's Gate 3 worth it (it is $59.99 on 24 Jul 2026).",
            id="skip-no-price",
        ),
    ],
)
def test_verdict_text(
    tier: str,
    price: float,
    worth_it: float | None,
    banger: float | None,
    history: tuple[PricePoint, ...],
    expected: str,
) -> None:
    decided = verdict(tier, price, worth_it, banger, history)
    text = verdict_text(
        "Baldur's Gate 3", tier, price, dt.date(2026, 7, 24), worth_it, banger, decided
    )
    assert text == expected


@pytest.mark.parametrize(
    ("games", "expected"),
    [
        pytest.param([("rpg", 50)], [0.0], id="alone"),
        pytest.param(
            [("rpg", 90), ("rpg", 50), ("rpg", 50), ("rpg", 10)], [0.75, 0.25, 0.25, 0.0], id="ties"
        ),
        pytest.param([("rpg", 90), ("shooter", 10), ("rpg", 100)], [0.0, 0.0, 0.5], id="per-genre"),
        pytest.param([("rpg", 0), ("rpg", 100), ("rpg", 100)], [0.0, 0.333, 0.333], id="bounds"),
    ],
)
def test_genre_percentiles(games: list[tuple[str, int]], expected: list[float]) -> None:
    assert genre_percentiles(games) == expected
