"""The one place that turns a catalog into scored games, used by the builder, the calibration
report and the benchmarks.

:func:`score_game` derives from one :class:`GameRecord` its genre, the model's inputs
(:class:`ValueInputs`), the score, tier, price thresholds and drivers; :func:`score_catalog`
scores a whole catalog, ranks refund shares (:mod:`scoring.refunds`) and sorts the games in list
order (docs/API.md#list-games: bang_score descending, then the unrounded score descending,
then appid).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from dataclasses import dataclass

from tqdm import tqdm

from bangscore.errors import UnscorableGame
from bangscore.scoring import tiers, value
from bangscore.scoring.curve import PriceCurve, price_curve
from bangscore.scoring.drivers import drivers
from bangscore.scoring.flags import adult
from bangscore.scoring.genres import genre_for
from bangscore.scoring.play import earns_replay_credit, is_open_ended, is_unattended
from bangscore.scoring.records import GameRecord
from bangscore.scoring.refunds import RefundRanks, refund_percentiles
from bangscore.scoring.review_words import read_share
from bangscore.scoring.series import Series, find_series


@dataclass(frozen=True)
class ScoredGame:
    """A catalog record with everything scoring derived: genre, the model's inputs, score,
    tier, price thresholds (US dollars, or None when no price reaches them), drivers, the
    catalog-level refund ranks (None until sampled) and the series it is a part of (None when
    it is no part of one: :mod:`scoring.series`)."""

    record: GameRecord
    genre: str
    inputs: value.ValueInputs
    score: float
    bang_score: int
    tier: str
    becomes_banger_at_usd: float | None
    worth_it_at_usd: float | None
    drivers: dict[str, list[str]]
    refund_ranks: RefundRanks | None = None
    series: Series | None = None

    @property
    def sort_key(self) -> tuple[int, float, int]:
        """Return the list order key: bang_score desc, unrounded score desc, appid asc."""
        return (-self.bang_score, -self.score, self.record.appid)

    def score_at(self, price_usd: float) -> float:
        """Given a price in US dollars (>= 0), return the unrounded score the game would have
        at that price, every other input unchanged."""
        return self.curve.at(price_usd)

    @functools.cached_property
    def curve(self) -> PriceCurve:
        """Return the game's score against its price (what the game page's chart draws):
        only the price varies along it, so quality and fair price are computed once."""
        return price_curve(self.inputs)


def value_inputs(record: GameRecord, genre: str) -> value.ValueInputs:
    """Given a record with a length and its genre, return the model's inputs.

    Raises UnscorableGame when the record has no main-story length.
    """
    if record.main_story_hours is None:
        raise UnscorableGame(f"appid {record.appid}: needs a main-story length")
    share = reviews_read(record)
    return value.ValueInputs(
        price_usd=record.price_usd,
        review_score=share,
        review_count=record.review_count,
        length_hours=record.main_story_hours,
        finish_rate=record.finish_rate,
        genre=genre,
        replay_hours=record.positive_reviewer_hours,
        # A length that is already how long players play holds their replays.
        replayable=earns_replay_credit(record.tags) and record.length_source != "playtime",
        unattended=is_unattended(record.tags),
        open_ended=is_open_ended(record.tags),
        estimated_length=record.length_source == "playtime_estimate",
        free=is_free(record),
        played_length=record.length_source == "playtime",
        adult=adult(record),
        prior_score=record.review_prior_score,
        lifetime_review_score=record.review_score if share != record.review_score else None,
    )


def reviews_read(record: GameRecord) -> float:
    """Given a record, return the positive share (0..1) the score reads
    (:func:`scoring.review_words.read_share` of its lifetime share and recent sample)."""
    return read_share(record.review_score, record.recent_review_score, record.recent_review_count)


def is_free(record: GameRecord) -> bool:
    """Given a record, return True for a free game: free to play, or a free first episode
    (nothing to buy: price and list price both $0). A paid game given away for a day is not."""
    return record.price_usd == 0 and record.list_price_usd == 0


def score_game(record: GameRecord) -> ScoredGame:
    """Given one catalog record, return it scored: genre, score, tier, thresholds, drivers.

    Raises UnscorableGame when the record has no main-story length.
    """
    genre = genre_for(
        record.storefront_genres,
        record.tags,
        record.main_story_hours,
        fallback_genres=record.play_length_genres,
        categories=record.categories,
    )
    inputs = value_inputs(record, genre)
    points = value.bang_score(inputs)
    worth_it_at = tiers.threshold_usd(inputs, tiers.WORTH_IT_MIN)
    return ScoredGame(
        record=record,
        genre=genre,
        inputs=inputs,
        score=value.score(inputs),
        bang_score=points,
        tier=tiers.tier(points),
        becomes_banger_at_usd=tiers.threshold_usd(inputs, tiers.BANGER_MIN),
        worth_it_at_usd=worth_it_at,
        drivers=drivers(inputs),
    )


def score_catalog(records: Iterable[GameRecord], *, progress: bool = False) -> list[ScoredGame]:
    """Given catalog records, return them scored, with refund ranks and series, in list
    order."""
    games = [
        score_game(rec) for rec in tqdm(records, desc="score", unit="game", disable=not progress)
    ]
    ranks = refund_percentiles(
        [
            (g.record.appid, g.genre, g.record.reviews.depth, g.record.reviews.share)
            for g in games
            if g.record.reviews is not None and g.record.price_usd > 0
        ]
    )
    if ranks:
        games = [
            dataclasses.replace(g, refund_ranks=RefundRanks(*ranks[g.record.appid]))
            if g.record.appid in ranks
            else g
            for g in games
        ]
    games.sort(key=lambda g: g.sort_key)
    series = find_series(
        (g.record.appid, g.record.name, g.record.developer or g.record.publisher) for g in games
    )
    if series:
        games = [
            dataclasses.replace(g, series=series[g.record.appid]) if g.record.appid in series else g
            for g in games
        ]
    return games
