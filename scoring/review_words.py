"""Which positive review share the score reads, and how a sentence quotes it (score version 6.0,
docs/API.md#the-score).

The score reads the lifetime share, or the recent sample's (the storefront's most recent
reviews, up to 1,000) where the two differ by :data:`RECENT_GAP` or more on :data:`RECENT_MIN`
or more recent reviews (:func:`read_share`). Every sentence that quotes a share (the verdict's,
a driver's, a free game's) quotes that one, with its period and its date
(:func:`share_words`): "71% of its last 996 reviews (sampled 24 Jul 2026) are positive, 80%
lifetime", never the lifetime share of a game whose score reads the recent one.

Pure functions of the shares, counts and dates; :mod:`scoring.pipeline` reads the share,
:mod:`build.buyer` and :mod:`bangscore.site.labels` write the words.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Final

from bangscore.scoring.verdict import day

# Where the recent sample and the lifetime share differ by RECENT_GAP or more on RECENT_MIN
# or more recent reviews, the score reads the recent share (score version 6.0).
RECENT_GAP: Final = 0.10
RECENT_MIN: Final = 200
# A game under this lifetime share (the storefront's "Mixed" and below) is never worth it
# (round 7): a recovery in its recent reviews reads no higher than just under it.
MIXED_BELOW: Final = 0.70
MIXED_MOST: Final = 0.6999


def read_share(lifetime: float, recent: float | None, recent_count: int | None) -> float:
    """Given a game's lifetime positive share (0..1), its recent sample's share (0..1, or None)
    and that sample's size (or None), return the share the score reads: the recent one where
    it differs from the lifetime one by :data:`RECENT_GAP` or more on :data:`RECENT_MIN` or more
    recent reviews (a recovery of a game whose lifetime share is under :data:`MIXED_BELOW` read
    at most as :data:`MIXED_MOST`), else the lifetime one."""
    count = recent_count or 0
    # 1e-9: a 10-point gap stored as 0.85 and 0.75 must count, whatever the float rounding.
    departs = recent is not None and abs(recent - lifetime) >= RECENT_GAP - 1e-9
    if recent is None or count < RECENT_MIN or not departs:
        return lifetime
    return _recent_read(lifetime, recent)


def _recent_read(lifetime: float, recent: float) -> float:
    # A mixed game's recovery reads no higher than just under "mostly positive" (round 7).
    return min(recent, MIXED_MOST) if lifetime < MIXED_BELOW else recent


def pct(share: float) -> int:
    """Given a share (0..1), return it in whole percent as the wire's 3 places round it
    (``review_score``, ``recent_review_score``): 0.8698 is 87%, on the page that reads the wire
    record and in the sentence that reads the catalogue's alike."""
    return round(100 * round(share, 3))


@dataclass(frozen=True, slots=True)
class Reviews:
    """A game's review shares as a sentence quotes them: the lifetime share (0..1), its count as
    written ("12,345", or "1,000+" for a lower bound) and the day it was read (or None); the
    recent sample's share, size and the day it was taken (each None when there is none), and
    whether the score read the recent share (None: judged from the shares)."""

    lifetime: float
    lifetime_count: str
    lifetime_at: dt.date | None
    recent: float | None = None
    recent_count: int | None = None
    recent_at: dt.date | None = None

    # Whether the score read the recent share, where the caller knows it (the record's
    # ``drivers`` name ``recent_reviews`` exactly then): a wire record's shares are rounded
    # to 3 places, and a gap of 9.996 points can round to 10. None: from the shares.
    score_read_recent: bool | None = None

    @property
    def reads_recent(self) -> bool:
        """Return True when the score reads the recent sample's share, not the lifetime one."""
        if self.recent is None:
            return False
        if self.score_read_recent is not None:
            return self.score_read_recent
        return read_share(self.lifetime, self.recent, self.recent_count) != self.lifetime

    @property
    def read(self) -> float:
        """Return the share the score reads (:func:`read_share`)."""
        if not self.reads_recent or self.recent is None:
            return self.lifetime
        return _recent_read(self.lifetime, self.recent)


def _dated(at: dt.date | None, what: str) -> str:
    return f" ({what} {day(at)})" if at is not None else ""


def lifetime_words(reviews: Reviews) -> str:
    """Given a game's :class:`Reviews`, return its lifetime share in words with its date:
    "80% of its 2,412,000 reviews (lifetime, as of 24 Jul 2026)"."""
    when = (
        f" (lifetime, as of {day(reviews.lifetime_at)})" if reviews.lifetime_at else " (lifetime)"
    )
    return f"{pct(reviews.lifetime)}% of its {reviews.lifetime_count} reviews{when}"


def recent_words(reviews: Reviews) -> str:
    """Given a game's :class:`Reviews` with a recent sample, return that sample's share in words
    with its date: "71% of its last 996 reviews (sampled 24 Jul 2026)"; "" without one."""
    if reviews.recent is None or not reviews.recent_count:
        return ""
    return (
        f"{pct(reviews.recent)}% of its last {reviews.recent_count:,} reviews"
        f"{_dated(reviews.recent_at, 'sampled')}"
    )


def read_words(reviews: Reviews) -> str:
    """Given a game's :class:`Reviews`, return the share its score reads in words with its
    period and date, alone: :func:`recent_words` where the score reads the recent sample, else
    :func:`lifetime_words`."""
    return recent_words(reviews) if reviews.reads_recent else lifetime_words(reviews)


def share_words(reviews: Reviews) -> str:
    """Given a game's :class:`Reviews`, return the share its score reads, in words with its
    period and date, and, where that is the recent sample's, the lifetime one beside it:
    "71% of its last 996 reviews (sampled 24 Jul 2026) are positive, 80% lifetime", or "80% of
    its 2,412,000 reviews (lifetime, as of 24 Jul 2026) are positive". A recovering game whose
    score reads its recent share capped under 70% says so ("..., 52% lifetime, so it counts as
    under 70%")."""
    if not reviews.reads_recent:
        return f"{lifetime_words(reviews)} are positive"
    capped = reviews.read < (reviews.recent or 0)
    return (
        f"{recent_words(reviews)} are positive, {pct(reviews.lifetime)}% lifetime"
        f"{f', so it counts as under {pct(MIXED_BELOW)}%' if capped else ''}"
    )
