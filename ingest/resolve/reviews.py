"""Review shares beyond the lifetime summary (score version 6.0, docs/API.md#the-score):

* the **recent sample** (:func:`recent_reviews`): the storefront's most recent reviews of a
  game (up to 1,000 of any purchase type, ``steam_review_playtime_2026``), their positive share,
  their number and the day the sample was taken: ``recent_review_score``,
  ``recent_review_count`` and ``recent_reviews_at`` of the record;
* the **older-source offset** (:func:`older_share_offset`, :func:`corrected`): a lifetime share
  known only from SteamSpy's January 2025 dump reads higher than the storefront's own share of
  2026 for the same games (players' later reviews are a little harsher); such a share is
  lowered by the median difference measured between the two sources on the games both hold
  with :data:`OFFSET_MIN_REVIEWS` or more reviews, and marked as an estimate.

Pure functions of the observations and the assembled records;
:func:`ingest.resolve.resolution.assemble` applies them.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Sequence
from typing import Final, NamedTuple

from bangscore.ingest.resolve.observations import Observations, Resolved
from bangscore.scoring.records import GameRecord

# The layer whose lifetime shares are the reference (the storefront's own, 2026) and the
# prefix of the older layers corrected against it.
REFERENCE_LAYER: Final = "steam_pics_2026"
OLDER_PREFIX: Final = "steamspy"
# Only games with this many reviews in the older source measure the offset: a share of a
# handful of reviews moves by whole points with one review and would drown the drift.
OFFSET_MIN_REVIEWS: Final = 1000


class Recent(NamedTuple):
    """A game's recent review sample: positive share (0..1), size, and the day it was taken."""

    share: float
    size: int
    at: dt.date


def recent_reviews(found: Resolved | None) -> Recent | None:
    """Given the winning reviewers' playtime of a game (its value ``(up_hours, down_hours,
    n_up, n_down)`` and its layer, or None), return its recent sample (share of ``n_up``, size
    ``n_up + n_down``, the layer's date), or None when there is none or it is empty."""
    if found is None:
        return None
    n_up, n_down = int(found.value[2]), int(found.value[3])
    if n_up + n_down <= 0:
        return None
    return Recent(n_up / (n_up + n_down), n_up + n_down, found.layer.date)


def older_share_offset(known: Observations) -> float:
    """Given every observation, return how many points (as a share, e.g. 0.0072) the older
    source's lifetime share reads above :data:`REFERENCE_LAYER`'s for the same games: the median
    of the differences over the games both hold, with :data:`OFFSET_MIN_REVIEWS` or more
    reviews in the older source; 0.0 when no game is in both."""
    shares = dict(known.tables("review_score"))
    counts = dict(known.tables("review_count"))
    reference = next((t for layer, t in shares.items() if layer.name == REFERENCE_LAYER), {})
    differences: list[float] = []
    for layer, table in shares.items():
        if not layer.name.startswith(OLDER_PREFIX):
            continue
        sizes = counts.get(layer, {})
        differences += [
            share - reference[appid]
            for appid, share in table.items()
            if appid in reference and sizes.get(appid, 0) >= OFFSET_MIN_REVIEWS
        ]
    return statistics.median(differences) if differences else 0.0


def corrected(records: Sequence[GameRecord], offset: float) -> list[GameRecord]:
    """Given the rated records and the measured offset (:func:`older_share_offset`), return
    them with every lifetime share that came from an older source lowered by it (kept within
    0..1) and ``review_score`` listed among the record's estimates; the rest unchanged."""
    out: list[GameRecord] = []
    for record in records:
        source = record.provenance.get("review_score")
        if offset == 0 or source is None or not source.source.startswith(OLDER_PREFIX):
            out.append(record)
            continue
        share = min(1.0, max(0.0, record.review_score - offset))
        out.append(
            record.model_copy(
                update={
                    "review_score": round(share, 4),
                    "estimated": tuple(dict.fromkeys((*record.estimated, "review_score"))),
                }
            )
        )
    return out
