"""Typed records of the catalog: one :class:`GameRecord` per rated storefront appid, and one
:class:`NotRated` per known app that is not rated, with the reason.

The catalog is the interface between ingest (which writes it) and scoring and the builder (which
read it). It lives in ``scoring`` so that both sides import it without importing the ingest
adapters. Every public input carries where it came from: ``sources`` gives the date of the data
each kind of source contributed, ``provenance`` the source and date of every resolved field, and
``estimated`` names any input that is a documented estimate rather than a direct observation.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

SourceName = Literal["storefront", "player_stats", "play_length", "price_history", "wiki"]
LengthSource = Literal["hltb", "playtime_estimate", "playtime"]
# The storefront's Steam Deck rating and controller support (docs/API.md#platform-facets).
DeckStatus = Literal["verified", "playable", "unsupported"]
ControllerSupport = Literal["full", "partial"]
NotRatedReason = Literal[
    "delisted",
    "too_few_reviews",
    "no_usd_price",
    "no_length",
    "not_a_game",
    "no_store_data",
    "superseded",
    "not_for_sale",
]
NOT_RATED_REASONS: tuple[NotRatedReason, ...] = get_args(NotRatedReason)


class Sources(BaseModel):
    """Date of the data each public input came from (docs/API.md#sources-and-provenance); None
    if unused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    storefront: dt.date | None = None
    player_stats: dt.date | None = None
    play_length: dt.date | None = None
    price_history: dt.date | None = None
    wiki: dt.date | None = None
    review_sample: dt.date | None = None


class Provenance(BaseModel):
    """Where one resolved field came from: the source's name, the kind of source it is (the
    ``sources`` key it dates) and the date of its data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str
    kind: SourceName
    date: dt.date


class Language(BaseModel):
    """One language of the storefront record: its tag (ISO 639-1, or BCP 47 for Steam's Chinese
    scripts, Brazilian Portuguese and a few more: ingest.dumps.pics_facets) and whether the
    interface, full audio and subtitles are in it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(min_length=2)
    interface: bool
    audio: bool
    subtitles: bool


class DateWindow(BaseModel):
    """Inclusive window of review dates, as ``{"from": date, "to": date}`` on the wire."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    from_: dt.date = Field(alias="from")
    to: dt.date


class EarlyWindow(BaseModel):
    """Early-window review counts of one game (docs/API.md#early-window-signals), from single
    reviews with the playtime at review time: ``reviews`` written with under 2 hours played,
    their positive share, and their share of all storefront-purchase reviews of the sample;
    ``window`` is the span of the sample's review dates and ``source`` the dump or sampler it
    came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reviews: int = Field(ge=0)
    positive_share: float | None = Field(ge=0, le=1)
    review_share: float | None = Field(ge=0, le=1)
    sample: int = Field(ge=0, description="Storefront-purchase reviews in the sample")
    window: DateWindow
    source: str


class FirstDaysSplit(BaseModel):
    """Refund-signal counts for reviews written within 30 days of release."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sample: int = Field(ge=0)
    flagged: int = Field(ge=0)
    share: float | None = Field(default=None, ge=0, le=1)


class ReviewSample(BaseModel):
    """Per-game result of sampling storefront-purchase reviews (docs/API.md#refund-signals
    and docs/API.md#early-window-signals).

    Filled by the live review sampler (``ingest.live.reviews``); absent (None on the record) until
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


class PriceObservation(BaseModel):
    """One dated US price observation of a game (docs/API.md#prices-and-dates): the ``date`` it
    was seen, the price paid that day (``price_usd``), the ``list_price_usd``, the
    ``discount_percent`` (0-100), the ``source`` (a layer name, as in provenance) and, when the
    storefront said, when that discount ends (``discount_end``, UTC). US dollars only: a
    source in another currency never becomes a price point, except as ``estimated`` (its
    deepest discount applied to the US list price: the historical low it gives is a point
    marked so)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    date: dt.date
    price_usd: float = Field(ge=0)
    list_price_usd: float = Field(ge=0)
    discount_percent: int = Field(ge=0, le=100)
    source: str
    discount_end: dt.datetime | None = None
    estimated: bool = False


MAX_PRICE_HISTORY = 60


class GameRecord(BaseModel):
    """One rated game of the catalog, before scoring.

    Units: prices in US dollars (float, cents precision), hours as float hours, fractions 0..1.
    A None means the input is unknown; it is never silently replaced by a guess. Where a value
    is a documented estimate, its field name is listed in ``estimated``; ``checks`` names the
    cross-checks that fired (``ingest.resolve.checks``), ``provenance`` the source of every input.
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
    # Storefront review summary: positive share (all languages, all purchase types) and count.
    review_score: float = Field(ge=0, le=1)
    review_count: int = Field(ge=0)
    # The storefront's most recent reviews (a sample of up to 1,000): positive share, size and
    # the day it was taken; None where no sample was taken (score version 6.0).
    recent_review_score: float | None = Field(default=None, ge=0, le=1)
    recent_review_count: int | None = Field(default=None, ge=1)
    recent_reviews_at: dt.date | None = None
    # The positive share of the listing this edition superseded: the prior its own review
    # sample is read against (ingest.resolve.unsold.inherit); None for any other game.
    review_prior_score: float | None = Field(default=None, ge=0, le=1)
    release_date: dt.date | None = None
    release_year: int | None = Field(default=None, ge=1970, le=2100)
    storefront_genres: tuple[str, ...] = ()
    # The storefront's content descriptor ids (Steam: 1 some nudity or sexual content, 2
    # frequent violence or gore, 3 adult only sexual content, 4 frequent nudity or sexual
    # content, 5 general mature content), sorted; scoring.flags reads them.
    content_descriptors: tuple[int, ...] = ()
    # Steam's store categories ("Single-player", "Online Co-op", "MMO"...), in the source's order:
    # how the game can be played (scoring.multiplayer.multiplayer_first).
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = Field(
        default=(), max_length=20, description="Storefront user tags, most-voted first"
    )
    # Not storefront genres: the play-length source's own (HowLongToBeat: "Role-Playing",
    # "Point-and-Click"...), in its order. Scoring falls back on them to pick a genre.
    play_length_genres: tuple[str, ...] = Field(
        default=(), description="Genres from the play-length source (HLTB), not the storefront"
    )
    main_story_hours: float | None = Field(default=None, gt=0)
    length_source: LengthSource | None = None
    completionist_hours: float | None = Field(default=None, gt=0)
    finish_rate: float | None = Field(default=None, ge=0, le=1)
    # Median playtime (hours, at collection time) of the game's positive reviewers: how long
    # people who liked it keep playing; scoring credits it as replay depth for replayable games.
    positive_reviewer_hours: float | None = Field(default=None, ge=0)
    positive_reviewers: int | None = Field(default=None, ge=0)
    rarest_achievement_percent: float | None = Field(default=None, ge=0, le=100)
    players_estimate: int | None = Field(default=None, ge=0)
    owners_range: str | None = None
    median_playtime_hours: float | None = Field(default=None, ge=0)
    historical_low_usd: float | None = Field(default=None, ge=0)
    historical_low_at: dt.date | None = None
    # Dated US price observations, oldest first (ingest.resolve.prices); price_usd/discount_percent
    # above already obey "only a current sale counts" against the catalog's prices_as_of.
    price_history: tuple[PriceObservation, ...] = Field(default=(), max_length=MAX_PRICE_HISTORY)
    price_observed_at: dt.datetime | None = None
    metacritic: int | None = Field(default=None, ge=0, le=100)
    # The platform facets of the 2026 storefront record; None or () where it is silent.
    steam_deck: DeckStatus | None = None
    steam_deck_tested_at: dt.date | None = None
    controller_support: ControllerSupport | None = None
    languages: tuple[Language, ...] = ()
    ai_content: str | None = None
    reviews: ReviewSample | None = None
    early_window: EarlyWindow | None = None
    sources: Sources = Sources()
    provenance: dict[str, Provenance] = Field(default_factory=dict)
    estimated: tuple[str, ...] = Field(
        default=(), description="Names of fields that are documented estimates"
    )
    checks: tuple[str, ...] = Field(
        default=(), description="Cross-checks that fired on this record (ingest.resolve.checks)"
    )


class NotRated(BaseModel):
    """A known app that is not rated, and why (docs/API.md#game_not_rated)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    appid: int = Field(gt=0)
    name: str
    reason: NotRatedReason
    review_count: int | None = Field(default=None, ge=0)
    # The rated edition that replaces a superseded listing (reason "superseded"), else None.
    superseded_by: int | None = Field(default=None, gt=0)


class Catalog(BaseModel):
    """A whole catalog as ingest writes it and the builder reads it: the rated games and the
    known apps that are not rated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[2] = 2
    created_at: dt.datetime
    origin: str = Field(description="What produced it, e.g. 'bundled dumps' or 'live ingest'")
    prices_as_of: dt.datetime | None = Field(
        default=None,
        description="UTC time of the newest price observation (a live ingest: the ingest time)",
    )
    games: tuple[GameRecord, ...]
    not_rated: tuple[NotRated, ...] = ()
