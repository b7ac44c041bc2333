"""Storefront review sampling and the refund and early-window signals (docs/API.md#refund-signals,
docs/API.md#early-window-signals).

Source: the storefront's ``appreviews/<appid>`` endpoint with ``json=1``, ``purchase_type=steam``
(storefront purchases only), ``filter=recent`` (stable cursor paging), ``language=all`` and
``num_per_page=100``. Each review carries ``voted_up``, ``timestamp_created``,
``author.playtime_at_review`` (minutes) and, in current responses, ``refunded`` (the storefront's
own "Product refunded" label). Only reviewers are seen: a refund without a review never appears.

Sampling is stratified: positive and negative reviews are paged separately, half the depth each
(a class with fewer reviews than its half gives the rest to the other), and every share is then
re-weighted to the game's positive/negative mix from the storefront's own totals. Stratifying
keeps the minority class (usually the negatives, where refunds concentrate) from being too thin
to measure; re-weighting makes the result an estimate for the game's whole review population.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bangscore.ingest.live.http import PoliteClient
from bangscore.scoring.records import (
    DateWindow,
    FirstDaysSplit,
    GameRecord,
    ReviewSample,
    SourceName,
)

EARLY_WINDOW_MINUTES = 120
FIRST_DAYS = 30
PAGE_SIZE = 100
ReviewType = Literal["positive", "negative"]


@dataclass(frozen=True)
class Review:
    """One storefront review, reduced to what the signals need.

    ``refunded`` is None when the response carries no refund label (older responses);
    ``playtime_at_review`` is in minutes, None when the response lacks it.
    """

    recommendation_id: str
    voted_up: bool
    refunded: bool | None
    playtime_at_review: int | None
    created: dt.date


@dataclass(frozen=True)
class ReviewPage:
    """One decoded ``appreviews`` page: its reviews, the next cursor, and the summary totals."""

    reviews: tuple[Review, ...]
    cursor: str | None
    total_positive: int | None
    total_negative: int | None


def parse_review(obj: Mapping[str, Any]) -> Review:
    """Given one review object of an ``appreviews`` response, return a :class:`Review`.

    Raises KeyError if ``recommendationid``, ``voted_up`` or ``timestamp_created`` is missing.
    """
    author = obj.get("author") or {}
    playtime = author.get("playtime_at_review")
    refunded = obj.get("refunded")
    return Review(
        recommendation_id=str(obj["recommendationid"]),
        voted_up=bool(obj["voted_up"]),
        refunded=bool(refunded) if refunded is not None else None,
        playtime_at_review=int(playtime) if playtime is not None else None,
        created=dt.datetime.fromtimestamp(int(obj["timestamp_created"]), dt.UTC).date(),
    )


def parse_page(payload: Mapping[str, Any]) -> ReviewPage:
    """Given a decoded ``appreviews`` response, return its :class:`ReviewPage`.

    Accepts ``reviews`` as a list (the live shape) or as a mapping id -> review (the shape of
    archived downloads). Raises ValueError when ``success`` is present and not 1.
    """
    if payload.get("success", 1) != 1:
        raise ValueError(f"appreviews answered success={payload.get('success')!r}")
    raw = payload.get("reviews") or []
    items: Iterable[Mapping[str, Any]] = raw.values() if isinstance(raw, Mapping) else raw
    summary = payload.get("query_summary") or {}
    positive = summary.get("total_positive")
    negative = summary.get("total_negative")
    return ReviewPage(
        reviews=tuple(parse_review(item) for item in items),
        cursor=payload.get("cursor"),
        total_positive=int(positive) if positive is not None else None,
        total_negative=int(negative) if negative is not None else None,
    )


def allocate(depth: int, total_positive: int, total_negative: int) -> tuple[int, int]:
    """Given the depth and the game's review totals, return (positives, negatives) to sample.

    Half the depth each (the odd one to positives); a class short of its half gives the rest to
    the other class. Example: depth 500, totals 10000/30 -> (470, 30).
    """
    want_neg = min(depth // 2, total_negative)
    want_pos = min(depth - want_neg, total_positive)
    want_neg = min(depth - want_pos, total_negative)
    return want_pos, want_neg


def _weights(mix_positive: float | None, has_pos: bool, has_neg: bool) -> tuple[float, float]:
    # A class with nothing sampled cannot be measured: its weight goes to the other class.
    if not has_pos:
        return (0.0, 1.0) if has_neg else (0.0, 0.0)
    if not has_neg:
        return 1.0, 0.0
    if mix_positive is None:
        return 0.5, 0.5
    return mix_positive, 1.0 - mix_positive


def _rate(hits: int, total: int) -> float:
    return hits / total if total else 0.0


def summarise_sample(
    reviews: Sequence[Review],
    *,
    mix_positive: float | None,
    depth: int,
    release_date: dt.date | None,
    sampled_on: dt.date,
) -> ReviewSample:
    """Given sampled reviews and the game's positive mix, return its :class:`ReviewSample`.

    - ``share``: refunded share weighted to the mix, ``w*r_pos + (1-w)*r_neg`` where ``r_*`` is the
      refunded fraction within each sampled class; None when the sample is empty or no review
      carries a refund label.
    - ``flagged``: raw refunded count; ``over_2h``: fraction of flagged reviews with more than 120
      minutes played at review time (None without flagged reviews with a known playtime).
    - ``window``: first and last review date; ``first_30_days``: raw counts for reviews written on
      the release day or the 29 days after it (None if the release date is unknown).
    - ``early_window_*``: reviewers with under 120 minutes at review time: raw count; positive
      share and share of all reviews, both weighted to the mix; None when no review carries a
      playtime at review.
    ``mix_positive`` is the positive fraction 0..1 of the game's storefront-purchase reviews, or
    None if unknown (then classes weigh equally).
    """
    positives = [r for r in reviews if r.voted_up]
    negatives = [r for r in reviews if not r.voted_up]
    w_pos, w_neg = _weights(mix_positive, bool(positives), bool(negatives))
    labelled = any(r.refunded is not None for r in reviews)
    flagged = [r for r in reviews if r.refunded]
    share = _refunded_share(positives, negatives, w_pos, w_neg) if labelled else None
    over_2h = _over_2h(flagged)
    window = (
        DateWindow(from_=min(r.created for r in reviews), to=max(r.created for r in reviews))
        if reviews
        else None
    )
    first_days = _first_days(reviews, release_date, labelled=labelled)
    ew_count, ew_pos_share, ew_share = _early_window(positives, negatives, w_pos, w_neg)
    return ReviewSample(
        depth=depth,
        sample=len(reviews),
        flagged=len(flagged),
        share=_clip(share),
        over_2h=over_2h,
        window=window,
        first_30_days=first_days,
        early_window_reviews=ew_count,
        early_window_positive_share=_clip(ew_pos_share),
        early_window_review_share=_clip(ew_share),
        sampled_on=sampled_on,
    )


def _refunded_share(
    positives: Sequence[Review], negatives: Sequence[Review], w_pos: float, w_neg: float
) -> float:
    """Given the sampled positive and negative reviews and their weights, return the refunded
    share weighted to the mix."""
    return w_pos * _rate(sum(1 for r in positives if r.refunded), len(positives)) + (
        w_neg * _rate(sum(1 for r in negatives if r.refunded), len(negatives))
    )


def _over_2h(flagged: Sequence[Review]) -> float | None:
    """Given the refunded reviews, return the share played over 2 hours at review time (None
    when none has a known playtime)."""
    timed = [r for r in flagged if r.playtime_at_review is not None]
    if not timed:
        return None
    return sum(1 for r in timed if (r.playtime_at_review or 0) > EARLY_WINDOW_MINUTES) / len(timed)


def _first_days(
    reviews: Sequence[Review], release_date: dt.date | None, *, labelled: bool
) -> FirstDaysSplit | None:
    """Given the sample and the release date (or None), return the counts of the reviews
    written in the first :data:`FIRST_DAYS` days (None without a release date)."""
    if release_date is None:
        return None
    last_day = release_date + dt.timedelta(days=FIRST_DAYS - 1)
    early_life = [r for r in reviews if release_date <= r.created <= last_day]
    early_flagged = sum(1 for r in early_life if r.refunded)
    return FirstDaysSplit(
        sample=len(early_life),
        flagged=early_flagged,
        share=early_flagged / len(early_life) if early_life and labelled else None,
    )


def _clip(value: float | None) -> float | None:
    # Float sums like 0.8*1 + 0.2*1 can land a hair above 1.
    return None if value is None else min(1.0, max(0.0, value))


def _early_window(
    positives: Sequence[Review], negatives: Sequence[Review], w_pos: float, w_neg: float
) -> tuple[int | None, float | None, float | None]:
    timed_pos = [r for r in positives if r.playtime_at_review is not None]
    timed_neg = [r for r in negatives if r.playtime_at_review is not None]
    if not timed_pos and not timed_neg:
        return None, None, None
    if not (timed_pos and timed_neg):
        w_pos, w_neg = _weights(None, bool(timed_pos), bool(timed_neg))
    early_pos = sum(1 for r in timed_pos if (r.playtime_at_review or 0) < EARLY_WINDOW_MINUTES)
    early_neg = sum(1 for r in timed_neg if (r.playtime_at_review or 0) < EARLY_WINDOW_MINUTES)
    pos_part = w_pos * _rate(early_pos, len(timed_pos))
    neg_part = w_neg * _rate(early_neg, len(timed_neg))
    review_share = pos_part + neg_part
    positive_share = pos_part / review_share if review_share > 0 else None
    return early_pos + early_neg, positive_share, review_share


def _params(review_type: str, cursor: str, per_page: int) -> dict[str, str | int]:
    return {
        "json": 1,
        "purchase_type": "steam",
        "filter": "recent",
        "language": "all",
        "review_type": review_type,
        "num_per_page": per_page,
        "cursor": cursor,
    }


def fetch_totals(client: PoliteClient, store_base: str, appid: int) -> tuple[int, int]:
    """Given an appid, return (total_positive, total_negative) of its storefront-purchase reviews.

    Read from the ``query_summary`` of a first page with ``review_type=all`` and
    ``num_per_page=0`` (the summary is all we need). Raises what ``get_json`` raises.
    """
    url = f"{store_base.rstrip('/')}/appreviews/{appid}"
    page = parse_page(client.get_json(url, _params("all", "*", 0)))
    return page.total_positive or 0, page.total_negative or 0


def fetch_reviews(
    client: PoliteClient,
    store_base: str,
    appid: int,
    review_type: ReviewType,
    limit: int,
) -> list[Review]:
    """Given an appid, a class and a count, page ``appreviews`` and return up to ``limit`` reviews.

    Pages of ``num_per_page=100`` follow the response ``cursor``; paging stops at ``limit``, on an
    empty page, or when the cursor repeats. Duplicate recommendation ids are dropped.
    Raises whatever :meth:`PoliteClient.get_json` raises, or ValueError on a failed page.
    """
    url = f"{store_base.rstrip('/')}/appreviews/{appid}"
    cursor = "*"
    seen_cursors = {cursor}
    seen_ids: set[str] = set()
    reviews: list[Review] = []
    while len(reviews) < limit:
        page = parse_page(client.get_json(url, _params(review_type, cursor, PAGE_SIZE)))
        for review in page.reviews:
            if review.recommendation_id not in seen_ids and len(reviews) < limit:
                seen_ids.add(review.recommendation_id)
                reviews.append(review)
        if not page.reviews or not page.cursor or page.cursor in seen_cursors:
            break
        seen_cursors.add(page.cursor)
        cursor = page.cursor
    return reviews


def sample_game(
    client: PoliteClient,
    store_base: str,
    appid: int,
    *,
    depth: int,
    release_date: dt.date | None,
    sampled_on: dt.date,
) -> ReviewSample:
    """Given an appid and a depth, sample its storefront-purchase reviews; return the sample.

    Reads the totals (:func:`fetch_totals`), splits the depth (:func:`allocate`), pages each
    class (:func:`fetch_reviews`) and summarises (:func:`summarise_sample`).
    """
    total_pos, total_neg = fetch_totals(client, store_base, appid)
    want_pos, want_neg = allocate(depth, total_pos, total_neg)
    positives = fetch_reviews(client, store_base, appid, "positive", want_pos) if want_pos else []
    negatives = fetch_reviews(client, store_base, appid, "negative", want_neg) if want_neg else []
    total = total_pos + total_neg
    return summarise_sample(
        positives + negatives,
        mix_positive=total_pos / total if total else None,
        depth=depth,
        release_date=release_date,
        sampled_on=sampled_on,
    )


@dataclass(frozen=True)
class ReviewsAdapter:
    """Adapter: sample each paid game's storefront-purchase reviews into ``GameRecord.reviews``.

    Free games (list price 0) are skipped: the refund signal is defined over paid games only.
    ``source`` is None: the sample carries its own date (``sampled_on``), so it does not move
    the storefront's date in ``sources``.
    """

    store_base: str
    depth: int
    today: dt.date
    name: str = "reviews"
    source: SourceName | None = None

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return ``{"reviews": ReviewSample}``, or None if free."""
        if record.list_price_usd <= 0 and record.price_usd <= 0:
            return None
        sample = sample_game(
            client,
            self.store_base,
            record.appid,
            depth=self.depth,
            release_date=record.release_date,
            sampled_on=self.today,
        )
        return {"reviews": sample}
