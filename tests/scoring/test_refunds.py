"""Catalog-level refund percentiles (scoring.refunds): ties, pools per depth and genre, nulls."""

from __future__ import annotations

import pytest

from bangscore.scoring.refunds import refund_percentiles


def test_refund_percentiles_ties_pools_depths_and_nulls() -> None:
    rows = [
        (1, "rpg", 500, 0.1),
        (2, "rpg", 500, 0.2),
        (3, "rpg", 500, 0.2),
        (4, "shooter", 500, 0.4),
        (5, "rpg", 500, None),
        (6, "rpg", 100, 0.9),
    ]
    result = refund_percentiles(rows)
    # Depth 500 pool [0.1, 0.2, 0.2, 0.4]; each game is ranked against the 3 others.
    # App 2: one lower, one tie -> (1 + 0.5) / 3. Within rpg@500 [0.1, 0.2, 0.2]: 1.5 / 2.
    assert result == {
        1: (0.0, 0.0, 3),
        2: (pytest.approx(0.5), pytest.approx(0.75), 3),
        3: (pytest.approx(0.5), pytest.approx(0.75), 3),
        4: (1.0, 0.5, 1),
        6: (0.5, 0.5, 1),
    }


def test_refund_percentiles_all_tied() -> None:
    result = refund_percentiles([(i, "other", 500, 0.3) for i in range(1, 5)])
    assert set(result.values()) == {(0.5, 0.5, 4)}
