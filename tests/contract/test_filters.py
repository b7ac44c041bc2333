"""bangscore/contract/filters.py: the price cap (max_price) in the reference semantics and the
canonical query."""

from __future__ import annotations

import pytest

from bangscore.contract.filters import Filters, price_text


@pytest.mark.parametrize(
    ("cents", "text"),
    [
        pytest.param(0, "0", id="free"),
        pytest.param(1000, "10", id="whole dollars"),
        pytest.param(999, "9.99", id="cents"),
        pytest.param(1050, "10.50", id="ten cents"),
        pytest.param(100_000, "1000", id="the highest cap"),
    ],
)
def test_price_text(cents: int, text: str) -> None:
    assert price_text(cents) == text


def test_max_price_is_inclusive_uncomputed_and_canonical() -> None:
    capped = Filters(genres=frozenset({"rpg"}), max_price_cents=999)
    assert capped.combo_key is None  # composed from the index, never precomputed
    assert capped.to_query() == {"genre": "rpg", "max_price": "9.99"}
    args = ("rpg", 2020, 0, frozenset[str]())
    assert capped.matches(*args, price_cents=999)
    assert not capped.matches(*args, price_cents=1000)
    assert Filters().matches(*args, price_cents=100_000)
