"""Catalog-level ranks of refunded-review shares (the percentiles of
docs/API.md#refund-signals), filled at build time
from the per-game samples of the live review sampler (:mod:`ingest.live.reviews`)."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RefundRanks:
    """Catalog-level ranks of a game's refunded-review share (fractions 0..1, pool size)."""

    percentile: float
    genre_percentile: float
    genre_pool: int


def refund_percentiles(
    rows: Sequence[tuple[int, str, int, float | None]],
) -> dict[int, tuple[float, float, int]]:
    """Given (appid, genre, depth, share) rows of paid games, return their refund percentiles.

    Returns appid -> (refunded_review_percentile, refunded_review_genre_percentile,
    refunded_review_genre_pool). Games are ranked only against games sampled to the same depth;
    rows whose share is None (not sampled) are left out of every pool and of the result.

    Percentile of a share s in a pool of n games: among the *other* n-1 games, the fraction with
    a strictly lower share plus half the fraction with an equal share; 0 for the lowest share,
    1 for the highest. A game alone in its pool gets 0.5 (nothing to rank against). The genre
    pool is the number of games (this one included) sharing the game's depth and genre.
    """
    pools: dict[tuple[int, str | None], list[float]] = defaultdict(list)
    for _, genre, depth, share in rows:
        if share is not None:
            pools[(depth, None)].append(share)
            pools[(depth, genre)].append(share)
    for shares in pools.values():
        shares.sort()
    result: dict[int, tuple[float, float, int]] = {}
    for appid, genre, depth, share in rows:
        if share is None:
            continue
        genre_pool = pools[(depth, genre)]
        result[appid] = (
            _midrank(pools[(depth, None)], share),
            _midrank(genre_pool, share),
            len(genre_pool),
        )
    return result


def _midrank(sorted_shares: Sequence[float], share: float) -> float:
    others = len(sorted_shares) - 1
    if others == 0:
        return 0.5
    lower = bisect.bisect_left(sorted_shares, share)
    ties = bisect.bisect_right(sorted_shares, share) - lower - 1
    return (lower + 0.5 * ties) / others
