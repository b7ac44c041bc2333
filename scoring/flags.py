"""The flags a buyer needs beside a score (docs/API.md#flags): ``early_access``, ``adult`` and
``provisional`` with its reasons, read from a catalog record's storefront data and tags.

* ``early_access``: the storefront files the game under its "Early Access" genre (Steam adds
  the genre while a game is in Early Access and removes it at release).
* ``adult``: the storefront's content descriptors say the game is about sex or nudity: Steam's
  descriptor 3 ("Adult Only Sexual Content") or 4 ("Frequent Nudity or Sexual Content"), the
  two that Steam's own store preferences hide unless a visitor opts in (or its older genres
  "Sexual Content" / "Nudity", the same thing before descriptors); or the players say so: the
  user tag "Hentai" among the first ten tags (score version 5.0; anywhere among twenty, it
  fired on jokes, PAYDAY 3's and Hot Dogs, Horseshoes & Hand Grenades'), or "Sexual Content" or
  "Nudity" among the first five (the tags most voted: NEKOPARA Vol. 1 has no descriptor 3 or 4
  in the dumps, yet "Sexual Content" and "Nudity" are among its first tags). Descriptor 1
  ("Some Nudity or Sexual Content": The Witcher 3, Baldur's Gate 3) and a "Nudity" or "Sexual
  Content" tag below the fifth (The Witcher 3's eighth, Baldur's Gate 3's sixth) do not make a
  game adult; Cyberpunk 2077's third tag, "Nudity", does.
* ``provisional``: the score could move, for the reasons :data:`PROVISIONAL_REASONS` names, in
  that order: fewer than :data:`FEW_REVIEWS` reviews, a length estimated from reviewers'
  playtime, or a stale price (seen more than 180 days before the catalogue's
  ``prices_as_of``: :data:`scoring.verdict.STALE_DAYS`; a free game's $0 is never stale: its
  score rests on no price). A review count that is only a lower
  bound is no reason by itself: a count known to be at least 1,000 ("1,000+ reviews") is
  firm enough, and one under 50 is ``few_reviews``.

Pure functions of a :class:`GameRecord` (and the as-of day).
"""

from __future__ import annotations

import datetime as dt
from typing import Final, Literal, get_args

from bangscore.scoring.records import GameRecord
from bangscore.scoring.verdict import is_stale

ProvisionalReason = Literal["few_reviews", "estimated_length", "stale_price"]
PROVISIONAL_REASONS: Final[tuple[ProvisionalReason, ...]] = get_args(ProvisionalReason)
FEW_REVIEWS: Final = 50
EARLY_ACCESS_GENRE: Final = "Early Access"
# Steam's content descriptor ids for sexual content and nudity a store hides by default.
ADULT_DESCRIPTORS: Final = frozenset({3, 4})
ADULT_GENRES: Final = frozenset({"Sexual Content", "Nudity"})
# A player tag that makes a game adult among the first ADULT_HENTAI_RANK tags ...
ADULT_TAG_HENTAI: Final = "Hentai"
ADULT_HENTAI_RANK: Final = 10
# ... and those that do among the first ADULT_TAG_RANK tags (the most voted).
ADULT_TAGS_LEADING: Final = frozenset({"Sexual Content", "Nudity"})
ADULT_TAG_RANK: Final = 5


def early_access(record: GameRecord) -> bool:
    """Given a record, return True when the storefront lists the game as in Early Access."""
    return EARLY_ACCESS_GENRE in record.storefront_genres


def adult(record: GameRecord) -> bool:
    """Given a record, return True when the storefront's content descriptors (or its older
    genres) or the players' tags mark the game as adult (see the module's docstring)."""
    return (
        bool(ADULT_DESCRIPTORS.intersection(record.content_descriptors))
        or bool(ADULT_GENRES.intersection(record.storefront_genres))
        or ADULT_TAG_HENTAI in record.tags[:ADULT_HENTAI_RANK]
        or bool(ADULT_TAGS_LEADING.intersection(record.tags[:ADULT_TAG_RANK]))
    )


def price_day(record: GameRecord) -> dt.date | None:
    """Given a record, return the day its price was observed: ``price_observed_at``'s, else
    its price's provenance date, else None."""
    if record.price_observed_at is not None:
        return record.price_observed_at.date()
    source = record.provenance.get("price_usd")
    return source.date if source is not None else None


def provisional_reasons(
    record: GameRecord, as_of: dt.date | None = None
) -> list[ProvisionalReason]:
    """Given a record and the catalogue's as-of day (``prices_as_of``'s date; None: no price is
    judged stale), return why its score is provisional, in :data:`PROVISIONAL_REASONS` order;
    empty when it is not."""
    found: list[ProvisionalReason] = []
    if record.review_count < FEW_REVIEWS:
        found.append("few_reviews")
    if record.length_source == "playtime_estimate" or "length_hours" in record.estimated:
        found.append("estimated_length")
    # A free game's score does not rest on a price, so an old $0 cannot move it.
    free = record.price_usd == 0 and record.list_price_usd == 0
    if as_of is not None and not free and is_stale(price_day(record), as_of):
        found.append("stale_price")
    return found
