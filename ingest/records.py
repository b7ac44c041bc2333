"""Typed records of the joined catalog: one :class:`GameRecord` per storefront appid.

The catalog is the contract between ingest (which writes it) and the builder (which reads it).
Every public input carries where it came from: ``sources`` gives the date of the data each
source contributed, and ``estimated`` names any input that is a documented estimate rather
than a direct observation.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SourceName = Literal["storefront", "player_stats", "play_length", "price_history", "wiki"]
SOURCE_NAMES: tuple[SourceName, ...] = (
    "storefront",
    "player_stats",
    "play_length",
    "price_history",
    "wiki",
)


class Sources(BaseModel):
    """Date of the data each public input came from (CONTRACT.md ``sources``); None if unused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    storefront: dt.date | None = None
    player_stats: dt.date | None = None
    play_length: dt.date | None = None
    price_history: dt.date | None = None
    wiki: dt.date | None = None


class DateWindow(BaseModel):
    """Inclusive window of review dates, as ``{"from": date, "to": date}`` on the wire."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    from_: dt.date = Field(alias="from")
    to: dt.date


class FirstDaysSplit(BaseModel):
    """Refund-signal counts for reviews written within 30 days of release."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sample: int = Field(ge=0)
    flagged: int = Field(ge=0)
    share: float | None = Field(default=None, ge=0, le=1)


class ReviewSample(BaseModel):
    """Per-game result of sampling storefront-purchase reviews (SPEC 2.2 and 2.3).

    Filled by the live review sampler (``ingest.reviews``); absent (None on the record) until
    the game is sampled. Percentiles are catalog-level and filled at build time, not here.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    depth: int = Field(ge=1, description="Configured sampling depth the game was sampled to")
    sample: int = Field(ge=0, description="Reviews sampled")
    flagged: int = Field(ge=0, description="Sampled reviews whose writer refunded the game")
    share: float | None = Field(ge=0, le=1, description="Refunded share, weighted to the mix")
    over_2h: float | None = Field(default=None, ge=0, le=1)
    window: DateWindow | None = None
    first_30_days: FirstDaysSplit | None = None
    early_window_reviews: int | None = Field(default=None, ge=0)
    early_window_positive_share: float | None = Field(default=None, ge=0, le=1)
    early_window_review_share: float | None = Field(default=None, ge=0, le=1)
    sampled_on: dt.date


class GameRecord(BaseModel):
    """One game of the joined catalog, before scoring.

    Units: prices in US dollars (float, cents precision), hours as float hours, fractions 0..1.
    A None means the input is unknown; it is never silently replaced by a guess. Where a value
    is a documented estimate, its field name is listed in ``estimated``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    appid: int = Field(gt=0)
    name: str = Field(min_length=1)
    developer: str | None = None
    publisher: str | None = None
    # Storefront price in USD: current price, list price, current discount in percent.
    price_usd: float = Field(ge=0)
    list_price_usd: float = Field(ge=0)
    discount_percent: int = Field(ge=0, le=100)
    # Storefront review counts (all purchase types, as the storefront summary gives them).
    review_positive: int = Field(ge=0)
    review_negative: int = Field(ge=0)
    release_date: dt.date | None = None
    release_year: int | None = Field(default=None, ge=1970, le=2100)
    storefront_genres: tuple[str, ...] = ()
    tags: tuple[str, ...] = Field(default=(), description="User tags, most-voted first")
    # Not storefront genres: the play-length source's own (HowLongToBeat: "Role-Playing",
    # "Point-and-Click"...), in its order. Scoring falls back on them to pick a genre.
    play_length_genres: tuple[str, ...] = Field(
        default=(), description="Genres from the play-length source (HLTB), not the storefront"
    )
    main_story_hours: float | None = Field(default=None, gt=0)
    completionist_hours: float | None = Field(default=None, gt=0)
    finish_rate: float | None = Field(default=None, ge=0, le=1)
    players_estimate: int | None = Field(default=None, ge=0)
    owners_range: str | None = None
    median_playtime_hours: float | None = Field(default=None, ge=0)
    historical_low_usd: float | None = Field(default=None, ge=0)
    metacritic: int | None = Field(default=None, ge=0, le=100)
    reviews: ReviewSample | None = None
    sources: Sources = Sources()
    estimated: tuple[str, ...] = Field(
        default=(), description="Names of fields that are documented estimates"
    )

    @property
    def review_count(self) -> int:
        """Given the record, return positive + negative storefront reviews."""
        return self.review_positive + self.review_negative

    @property
    def review_score(self) -> float | None:
        """Given the record, return the positive share of reviews (0..1), or None if none."""
        total = self.review_count
        return self.review_positive / total if total else None


class Catalog(BaseModel):
    """A whole joined catalog as ingest writes it and the builder reads it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    created_at: dt.datetime
    origin: str = Field(description="What produced it, e.g. 'bundled dumps' or 'live ingest'")
    games: tuple[GameRecord, ...]
