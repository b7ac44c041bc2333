"""The game page's better-value box (docs/API.md#website): the best-scoring
games of the same genre priced at most 30% above this game's price, best first.

"Better" means a strictly higher ``bang_score`` (a game tied with this one is no better value);
"best first" means the genre's top games that fit the price, not the nearest scores (the box
used to list games one point higher). Prices compare in whole cents, so $19.99 x 1.3 = $25.98
admits $25.98 and not $25.99. A free game's box holds free games only.

Games whose ``hidden`` flag is set (adult games, while the visitor has not turned them on) are
never candidates; a hidden game still gets its own box.

:func:`better_value` answers every game of a list at once (the builder, once per build) in
O(n log n): per genre, a Fenwick tree over the genre's distinct prices whose nodes keep the
first ``count`` positions inserted (positions arrive in list order, best first, so a node's
first ``count`` are its best for good). :func:`better_value_of` is the reference semantics for
one game, which the shim's vectorised twin (:meth:`CompactIndex.better_value`) and the tests
compare against.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bangscore.contract.compact import cents

BETTER_VALUE_COUNT: Final = 5
# A candidate may cost at most this much more than the game: 13/10 of its price, in cents.
HEADROOM_NUMERATOR: Final = 13
HEADROOM_DENOMINATOR: Final = 10


@dataclass(frozen=True, slots=True)
class Candidate:
    """One game as the box reads it: genre, ``bang_score``, price in US cents, hidden."""

    genre: str
    bang_score: int
    price_cents: int
    hidden: bool = False


def fits(candidate_cents: int, price_cents: int) -> bool:
    """Given a candidate's and a game's prices in cents, return True when the candidate costs
    at most 30% more than the game."""
    return candidate_cents * HEADROOM_DENOMINATOR <= price_cents * HEADROOM_NUMERATOR


def cap_usd(price_usd: float) -> float:
    """Given a game's USD price, return the highest price a better-value game may have (USD,
    whole cents: 30% above, rounded down)."""
    return cents(price_usd) * HEADROOM_NUMERATOR // HEADROOM_DENOMINATOR / 100


def better_value_of(
    games: Sequence[Candidate], n: int, count: int = BETTER_VALUE_COUNT
) -> list[int]:
    """Given games in list order (``bang_score`` descending) and a position, return the
    positions of up to ``count`` games of its genre, not hidden, with a strictly higher score
    and a price that fits (:func:`fits`), best first. O(n): the reference semantics."""
    me = games[n]
    return [
        i
        for i, g in enumerate(games[:n])
        if g.genre == me.genre
        and g.bang_score > me.bang_score
        and not g.hidden
        and fits(g.price_cents, me.price_cents)
    ][:count]


class _BestByPrice:
    """A Fenwick tree over one genre's sorted distinct prices (cents): each node keeps the
    first ``count`` positions inserted at a price it covers."""

    def __init__(self, prices: Sequence[int], count: int) -> None:
        self.prices = sorted(set(prices))
        self.count = count
        self.nodes: list[list[int]] = [[] for _ in range(len(self.prices) + 1)]

    def insert(self, price_cents: int, position: int) -> None:
        i = bisect_right(self.prices, price_cents)  # 1-based rank of this exact price
        while i < len(self.nodes):
            node = self.nodes[i]
            if len(node) < self.count:
                node.append(position)
            i += i & -i

    def best_up_to(self, cap_cents: int) -> list[int]:
        """Return the first ``count`` positions inserted at a price <= ``cap_cents``."""
        i = bisect_right(self.prices, cap_cents)
        found = []
        while i > 0:
            if self.nodes[i]:
                found.append(self.nodes[i])
            i -= i & -i
        return list(itertools.islice(heapq.merge(*found), self.count))


def better_value(games: Sequence[Candidate], count: int = BETTER_VALUE_COUNT) -> list[list[int]]:
    """Given games in list order (``bang_score`` descending), return for each the positions of
    its better-value games (:func:`better_value_of`), best first.

    Raises ValueError when the games are not in list order.
    """
    by_genre: dict[str, list[int]] = {}
    for g in games:
        by_genre.setdefault(g.genre, []).append(g.price_cents)
    trees = {genre: _BestByPrice(prices, count) for genre, prices in by_genre.items()}
    out: list[list[int]] = [[] for _ in games]
    start = 0
    # Runs of equal score: every game of a run is answered before any of it is inserted, so
    # a tie is never "better".
    while start < len(games):
        score = games[start].bang_score
        stop = start
        while stop < len(games) and games[stop].bang_score == score:
            stop += 1
        if stop < len(games) and games[stop].bang_score > score:
            raise ValueError("games must be in list order: bang_score descending")
        for n in range(start, stop):
            g = games[n]
            cap = g.price_cents * HEADROOM_NUMERATOR // HEADROOM_DENOMINATOR
            out[n] = trees[g.genre].best_up_to(cap)
        for n in range(start, stop):
            if not games[n].hidden:
                trees[games[n].genre].insert(games[n].price_cents, n)
        start = stop
    return out
