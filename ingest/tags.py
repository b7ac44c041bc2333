"""Tag order for tag sets that lost their vote ranking.

Steam ranks a game's user tags by votes, and everything downstream relies on that order: the
genre mapping looks at the top 5 (:mod:`scoring.genres`), the play rules at the top 10
(:mod:`scoring.play`), and the API publishes ``tags`` most-voted first. One dump, the October
2024 store catalogue, gives each game's top 20 tags in *alphabetical* order: taken as it is,
"2D", "Action" and "Adventure" look like the most-voted tags of every game that has them, and
Undertale looks like a game whose third tag is "Choices Matter".

Such a set (a layer marks it with a ``tags_unranked`` observation) is put in the order its tags
*typically* hold: :func:`typical_positions` measures, over every game whose ranked tags are
known, each tag's mean relative position (0 = always the most-voted, near 1 = always last), and
:func:`order_tag_set` sorts the set by it. Genre-defining tags ("Roguelike", "RPG", "Visual
Novel") typically rank high and generic ones ("Singleplayer", "2D") low, so the reconstructed
order puts what defines a game first. Checked on the rated games whose PICS tags are ranked
(positions measured on one half, the other half's tags alphabetised and reordered): the
reconstructed order gives 74% of them the genre of their real order, the alphabetical order 70%
(``tests/ingest/test_tags.py`` checks it on the bundled dumps). The record lists ``tags`` in
``estimated``: their order is an estimate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

# Only full ranked lists measure a position: a top 3 (the 2019 dump) says nothing about where
# a tag stands among twenty.
MIN_RANKED_TAGS: Final = 10
# Where a tag never seen in a ranked list is put: the middle.
UNKNOWN_POSITION: Final = 0.5


def typical_positions(ranked: Iterable[Sequence[str]]) -> dict[str, float]:
    """Given ranked tag lists (most-voted first), return each tag's mean relative position in
    [0, 1) over the lists of at least :data:`MIN_RANKED_TAGS` tags (a tag at index ``i`` of a
    list of ``n`` stands at ``i / n``)."""
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for tags in ranked:
        n = len(tags)
        if n < MIN_RANKED_TAGS:
            continue
        for i, tag in enumerate(tags):
            sums[tag] += i / n
            counts[tag] += 1
    return {tag: sums[tag] / counts[tag] for tag in sums}


def order_tag_set(tags: Iterable[str], typical: Mapping[str, float]) -> tuple[str, ...]:
    """Given an unordered tag set and :func:`typical_positions`, return the tags in typical
    order (ties and unknown tags, at :data:`UNKNOWN_POSITION`, by name), without duplicates."""
    unique = dict.fromkeys(tags)
    return tuple(sorted(unique, key=lambda t: (typical.get(t, UNKNOWN_POSITION), t.casefold())))
