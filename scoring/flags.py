"""The flags a buyer needs beside a score (docs/API.md#flags): ``early_access``, ``adult`` and
``provisional`` with its reasons, read from a catalog record's storefront data.

* ``early_access``: the storefront files the game under its "Early Access" genre (Steam adds
  the genre while a game is in Early Access and removes it at release).
* ``adult``: the storefront's content descriptors say the game is about sex or nudity: Steam's
  descriptor 3 ("Adult Only Sexual Content") or 4 ("Frequent Nudity or Sexual Content"), the
  two that Steam's own store preferences hide unless a visitor opts in; or its older genres
  "Sexual Content" / "Nudity". Descriptor 1 ("Some Nudity or Sexual Content": The Witcher 3,
  Baldur's Gate 3, Cyberpunk 2077) does not make a game adult.
* ``provisional``: the score rests on thin evidence, for the reasons
  :data:`PROVISIONAL_REASONS` names, in that order: fewer than :data:`FEW_REVIEWS` reviews, a
  length estimated from reviewers' playtime, or a review count that is only a lower bound (a
  capped recent sample, or the least count the review summary implies).

Pure functions of a :class:`GameRecord`.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from bangscore.scoring.records import GameRecord

ProvisionalReason = Literal["few_reviews", "estimated_length", "review_count_lower_bound"]
PROVISIONAL_REASONS: Final[tuple[ProvisionalReason, ...]] = get_args(ProvisionalReason)
FEW_REVIEWS: Final = 50
EARLY_ACCESS_GENRE: Final = "Early Access"
# Steam's content descriptor ids for sexual content and nudity a store hides by default.
ADULT_DESCRIPTORS: Final = frozenset({3, 4})
ADULT_GENRES: Final = frozenset({"Sexual Content", "Nudity"})


def early_access(record: GameRecord) -> bool:
    """Given a record, return True when the storefront lists the game as in Early Access."""
    return EARLY_ACCESS_GENRE in record.storefront_genres


def adult(record: GameRecord) -> bool:
    """Given a record, return True when the storefront's content descriptors (or its older
    genres) mark the game as adult: sexual content or frequent nudity."""
    return bool(ADULT_DESCRIPTORS.intersection(record.content_descriptors)) or bool(
        ADULT_GENRES.intersection(record.storefront_genres)
    )


def provisional_reasons(record: GameRecord) -> list[ProvisionalReason]:
    """Given a record, return why its score is provisional, in :data:`PROVISIONAL_REASONS`
    order; empty when it is not."""
    found: list[ProvisionalReason] = []
    if record.review_count < FEW_REVIEWS:
        found.append("few_reviews")
    if record.length_source == "playtime_estimate" or "length_hours" in record.estimated:
        found.append("estimated_length")
    if "review_count" in record.estimated:
        found.append("review_count_lower_bound")
    return found
