"""Tag order for tag sets that lost their vote ranking.

Steam ranks a game's user tags by votes, and everything downstream relies on that order: the
genre mapping looks at the top 5 (:mod:`scoring.genres`), the play rules at the top 10
(:mod:`scoring.play`), and the API publishes ``tags`` most-voted first. One dump, the October
2024 store catalogue, gives each game's top 20 tags in *alphabetical* order: taken as it is,
"2D", "Action" and "Adventure" look like the most-voted tags of every game that has them, and
Undertale looks like a game whose third tag is "Choices Matter".

Such a set (a layer marks it with a ``tags_unranked`` observation) is put in the order its tags
*typically* hold (:class:`TagPositions`): over every game whose ranked tags are known, each
tag's mean relative position (0 = always the most-voted, near 1 = always last) among the games
that share a storefront genre with the game at hand, averaged over its storefront genres (the
catalog-wide mean where a pair is rare). Genre-defining tags ("Roguelike", "RPG", "Visual
Novel") typically rank high and generic ones ("Singleplayer", "2D") low; the storefront genre
keeps a stray tag in its place ("FPS", voted onto some adventure visual novels, ranks high in
action games only). Checked on the rated games whose PICS tags are ranked (positions measured
on one half, the other half's tags alphabetised and reordered): the reconstructed order gives
76% of them the genre of their real order, the alphabetical order 70%
(``tests/ingest/resolve/test_tags.py`` checks it on the bundled dumps). The record lists ``tags`` in
``estimated``: their order is an estimate.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

# Only full ranked lists measure a position: a top 3 (the 2019 dump) says nothing about where
# a tag stands among twenty.
MIN_RANKED_TAGS: Final = 10
# A (tag, storefront genre) pair seen in fewer ranked games falls back on the tag's own mean.
MIN_PAIR_GAMES: Final = 5
# Where a tag never seen in a ranked list is put: the middle.
UNKNOWN_POSITION: Final = 0.5


@dataclass(frozen=True)
class TagPositions:
    """Mean relative positions in ranked tag lists: ``overall`` per tag, ``by_genre`` per
    (tag, storefront genre) pair seen in at least :data:`MIN_PAIR_GAMES` games."""

    overall: dict[str, float] = field(default_factory=dict)
    by_genre: dict[tuple[str, str], float] = field(default_factory=dict)

    def of(self, tag: str, storefront_genres: Sequence[str]) -> float:
        """Given a tag and a game's storefront genres, return where the tag typically stands
        in such a game's ranked tags (0 = first), :data:`UNKNOWN_POSITION` if never seen."""
        found = [self.by_genre[tag, g] for g in storefront_genres if (tag, g) in self.by_genre]
        if found:
            return sum(found) / len(found)
        return self.overall.get(tag, UNKNOWN_POSITION)


def typical_positions(ranked: Iterable[tuple[Sequence[str], Sequence[str]]]) -> TagPositions:
    """Given (ranked tags, most-voted first; storefront genres) of many games, return the mean
    relative position of each tag and of each (tag, storefront genre) pair over the lists of
    at least :data:`MIN_RANKED_TAGS` tags (a tag at index ``i`` of ``n`` stands at ``i / n``)."""
    sums: dict[str, float] = defaultdict(float)
    counts: Counter[str] = Counter()
    pair_sums: dict[tuple[str, str], float] = defaultdict(float)
    pair_counts: Counter[tuple[str, str]] = Counter()
    for tags, genres in ranked:
        n = len(tags)
        if n < MIN_RANKED_TAGS:
            continue
        distinct = tuple(dict.fromkeys(genres))  # once a game, not once a tag
        # The counts in C (Counter.update), the sums in order (float addition's order is
        # kept, so the means are the same to the last bit).
        counts.update(tags)
        pair_counts.update(itertools.product(tags, distinct))
        for i, tag in enumerate(tags):
            at = i / n
            sums[tag] += at
            for genre in distinct:
                pair_sums[tag, genre] += at
    return TagPositions(
        {tag: sums[tag] / counts[tag] for tag in sums},
        {
            pair: pair_sums[pair] / count
            for pair, count in pair_counts.items()
            if count >= MIN_PAIR_GAMES
        },
    )


def order_tag_set(
    tags: Iterable[str], storefront_genres: Sequence[str], positions: TagPositions
) -> tuple[str, ...]:
    """Given an unordered tag set, the game's storefront genres and :func:`typical_positions`,
    return the tags in typical order (ties by name), without duplicates."""
    unique = dict.fromkeys(tags)
    return tuple(sorted(unique, key=lambda t: (positions.of(t, storefront_genres), t.casefold())))
