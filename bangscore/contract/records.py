"""Every wire record of the API, once: pydantic models of the list item, the detail record, the
envelopes, the batch lookup, the usage answer and the problem document (docs/API.md#wire-records).

One description feeds everything that names a field:

* the builder (:mod:`bangscore.build.wire`) writes each record in the order of its model's
  fields (:mod:`bangscore.contract.wire_form`) and checks it against the model, then
  serialises the plain dict with orjson (the same values pydantic would write, several times
  faster);
* the OpenAPI document's ``components.schemas`` are these models' JSON Schemas
  (:mod:`bangscore.contract.wire_form`), so a generated client reads what the server writes;
* docs/API.md's field tables name exactly these fields (``tests/contract/test_records.py``);
* the Python client (:mod:`bangscore.client`) parses answers into these models.

Records are strict: every field is a member of every record (null where stated, never left
out), and the schemas allow no other member (``additionalProperties: false``); parsing
ignores a member it does not know, so a client survives a field added later. The export
manifest, which the Bulk export writes, lives in :mod:`bangscore.contract.export`.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Final, Literal

from pydantic import Field

from bangscore.contract.facets import (
    AiContentField,
    ControllerField,
    DeckTestedField,
    LanguagesField,
    SteamDeckField,
)
from bangscore.contract.limits import MAX_LOOKUP_APPIDS, PAGE_SIZE
from bangscore.contract.records_base import Record
from bangscore.scoring.drivers import Driver
from bangscore.scoring.flags import ProvisionalReason
from bangscore.scoring.genres import Genre
from bangscore.scoring.records import LengthSource, NotRatedReason
from bangscore.scoring.verdict import Verdict

# Vocabularies as wire words. The scoring modules hold the same words as tuples (TIERS,
# GENRES, PROVISIONAL_REASONS); tests/contract/test_records.py keeps the two equal.
Tier = Literal["banger", "worth_it", "fair", "skip"]
SourceKind = Literal["storefront", "player_stats", "play_length", "price_history", "wiki"]
Plan = Literal["free", "pro", "bulk"]

PRICE_HISTORY_POINTS: Final = 60
"""Points of ``price_history`` and of ``score_history``, at most (the newest kept)."""

Usd = Annotated[float, Field(ge=0, description="US dollars, 2 decimals")]
Fraction = Annotated[float, Field(ge=0, le=1)]
Percent = Annotated[int, Field(ge=0, le=100)]
Score = Annotated[int, Field(ge=0, le=100)]
Count = Annotated[int, Field(ge=0)]
AppId = Annotated[int, Field(ge=1, description="Storefront application id")]


# -- list item ---------------------------------------------------------------------------------


class Series(Record):
    """The work a game is a chapter, episode or volume of."""

    name: str = Field(description="The series' name, as the storefront names its parts.")
    parts: int = Field(ge=2, description="Rated parts of the series in the catalogue.")


class ListItem(Record):
    """One game as every list carries it: ``games`` of the list, search and lookup answers
    (docs/API.md#list-item)."""

    appid: AppId
    name: str = Field(description="Game title.")
    bang_score: Score = Field(
        description="How much real game a buyer gets for the price, 0-100 (docs: the score)."
    )
    tier: Tier = Field(description="banger 80-100, worth_it 65-79, fair 45-64, skip 0-44.")
    verdict: Verdict = Field(
        description="The buyer's advice at price_usd: buy_now, wait_for_sale (verdict_price_usd "
        "is a price seen in the last two years that makes the game worth it) or skip."
    )
    verdict_price_usd: Usd | None = Field(
        description="wait_for_sale: the seen price to wait for; null otherwise."
    )
    verdict_price_seen_at: dt.date | None = Field(
        description="wait_for_sale: the latest day verdict_price_usd was seen in the evidence "
        "window; null otherwise."
    )
    next_sale_price_usd: Usd | None = Field(
        description="The price expected in the next seasonal sale (the detail record's "
        "next_sale); null when there is no forecast (free games, too little evidence)."
    )
    next_sale_starts: dt.date | None = Field(
        description="The day the next seasonal sale starts (UTC), with next_sale_price_usd; "
        "null when there is no forecast."
    )
    next_sale_confidence: Literal["high", "medium", "low"] | None = Field(
        description="The forecast's confidence (next_sale.confidence); null when there is no "
        "forecast (since 1.3.0).",
    )
    genre: Genre = Field(description="The game's one genre.")
    price_usd: Usd = Field(description="Current storefront price in US dollars (0: free).")
    discount_percent: Percent = Field(description="Current discount; 0 when not discounted.")
    price_observed_at: dt.datetime | None = Field(
        description="When price_usd was observed (RFC 3339, UTC); compare it with the "
        "envelope's prices_as_of. More than 180 days before it, the price is stale."
    )
    review_score: Fraction = Field(description="Share of positive storefront reviews.")
    length_hours: float | None = Field(
        ge=0, description="Hours to finish the main story (length_source says how it is known)."
    )
    finish_rate: Fraction | None = Field(description="Share of players who finish, or null.")
    release_year: int | None = Field(description="Year first sold on the storefront, or null.")
    early_access: bool = Field(description="The storefront lists the game as in Early Access.")
    provisional: bool = Field(
        description="The score could move: fewer than 50 reviews, an estimated length, or "
        "a stale price (seen more than 180 days before prices_as_of); the detail record's "
        "provisional_reasons says which."
    )
    adult: bool = Field(
        description="The storefront's content descriptors mark sexual content or frequent "
        "nudity, or the players' tags do (Hentai among the first ten, Sexual Content or Nudity "
        "among the first five). The API lists adult games; the website hides them unless asked."
    )
    steam_deck: SteamDeckField
    controller_support: ControllerField
    series: Series | None = Field(
        description="The series this game is a chapter, episode or volume of, else null."
    )
    url: str = Field(
        json_schema_extra={"format": "uri"},
        description="The game's page: {site}/game/<appid>/<slug>.",
    )
    refunded_review_share: Fraction | None = Field(
        description="Share of the sampled reviews whose writer refunded the game, weighted to "
        "the game's review mix; null until sampled."
    )
    refunded_review_sample: Count | None = Field(description="Reviews sampled, or null.")
    refunded_review_flagged: Count | None = Field(
        description="Refunded reviews within the sample, or null."
    )
    refunded_review_percentile: Fraction | None = Field(
        description="Rank of the refund share among paid games sampled to the same depth."
    )
    refunded_review_genre_percentile: Fraction | None = Field(
        description="The same rank within the game's genre."
    )
    refunded_review_genre_pool: Count | None = Field(
        description="Games of the genre the genre percentile ranks over."
    )


# -- detail record -----------------------------------------------------------------------------


class PricePoint(Record):
    """One dated US price observation."""

    date: dt.date = Field(description="The day the price was seen.")
    price_usd: Usd = Field(description="The price paid that day.")
    list_price_usd: Usd = Field(description="The undiscounted price that day.")
    discount_percent: Percent = Field(description="The discount that day.")
    source: str = Field(description="The dump or live source that saw it.")
    estimated: bool = Field(
        description="The price is an estimate: a non-USD source's discount depth applied to "
        "the US list price."
    )


class ScorePoint(Record):
    """The game's score and price at one snapshot."""

    date: dt.date = Field(description="The snapshot's prices_as_of day.")
    bang_score: Score
    price_usd: Usd


class DateSpan(Record):
    """A span of days, both ends included."""

    from_: dt.date = Field(alias="from", description="First day.")
    to: dt.date = Field(description="Last day.")


class First30Days(Record):
    """Refund counts for reviews written within 30 days of release."""

    sample: Count
    flagged: Count
    share: Fraction | None


class EarlyWindowSample(Record):
    """The single reviews the early-window fields were computed from."""

    sample: Count = Field(description="Storefront-purchase reviews with a known playtime.")
    from_: dt.date = Field(alias="from", description="Oldest review's day.")
    to: dt.date = Field(description="Newest review's day.")
    source: str = Field(description="The dump or sampler they came from.")


class Drivers(Record):
    """The direction each public input pushes the score, never a weight."""

    raises: list[Driver]
    lowers: list[Driver]
    neutral: list[Driver]


class Sources(Record):
    """Per kind of source, the date of the oldest data any input of that kind came from."""

    storefront: dt.date | None
    player_stats: dt.date | None
    play_length: dt.date | None
    price_history: dt.date | None
    wiki: dt.date | None
    review_sample: dt.date | None = Field(
        description="The newest review of the early-window sample."
    )


class Provenance(Record):
    """Where one public input's value came from."""

    source: str = Field(description="The bundled dump or live adapter.")
    kind: SourceKind
    date: dt.date = Field(description="That source's date.")


class NextSale(Record):
    """The sale forecast: the next seasonal sale that ends on or after the snapshot's day
    (``as_of``) and the price expected in it (docs/API.md#next-sale; docs/FORECAST.md measures
    how often it is right)."""

    name: str = Field(description='The sale as the storefront names it: "Autumn Sale".')
    starts: dt.date = Field(description="Its first day (UTC).")
    ends: dt.date = Field(description="Its last day (UTC).")
    expected: bool = Field(
        description="true: the dates are projected from past years' sales; false: published."
    )
    expected_price_usd: Usd = Field(
        description="The price expected in it: the depth of its last discounted seasonal sale "
        "off today's list price (a young game deeper), or the list price when a discount is "
        "unlikely."
    )
    discounted_likelihood: Fraction = Field(
        description="How likely the game is discounted in it at all (0-1), calibrated: of the "
        "games given 0.8, about 80% were discounted in the backtest (docs/FORECAST.md)."
    )
    confidence: Literal["high", "medium", "low"] = Field(
        description="How far to trust expected_price_usd: high where forecasts of its kind put "
        "70% or more of their prices within 10% of the sale's in the backtest, medium from "
        "45%, else low (since 1.3.0)."
    )
    basis: str = Field(
        description='Why, in words: "sold at $8.99 in the last 2 of 2 seasonal sales seen".'
    )


class GameDetail(ListItem):
    """One game's detail record: every list item field, then these (docs/API.md#detail-record)."""

    developer: str | None = Field(description="From the storefront.")
    publisher: str | None = Field(description="From the storefront.")
    metacritic: Percent | None = Field(description="Critic score 0-100, or null.")
    completionist_hours: float | None = Field(ge=0, description="Hours to complete everything.")
    becomes_banger_at_usd: Usd | None = Field(
        description="The highest price at which the score reaches 80, or null."
    )
    worth_it_at_usd: Usd | None = Field(
        description="The highest price at which the score reaches 65, or null."
    )
    verdict_text: str = Field(description="The verdict in one sentence, its price dated.")
    genre_percentile: Fraction = Field(
        description="Share of the rated games of the same genre with a lower bang_score."
    )
    recent_low_usd: Usd | None = Field(
        description="Lowest price seen in the 730 days before prices_as_of (the evidence "
        "window), dated lows of the price-history source included; null when none."
    )
    recent_low_at: dt.date | None = Field(description="The (first) day recent_low_usd was seen.")
    ended_sale_usd: Usd | None = Field(
        description="When the newest observation was a sale that has since ended: its price "
        "(price_usd is then the list price)."
    )
    ended_sale_at: dt.date | None = Field(description="The day that ended sale was seen.")
    next_sale: NextSale | None = Field(
        description="The forecast for the next seasonal sale; null for a free game and where "
        "the evidence is too thin (no seasonal sale seen in the 730 days before prices_as_of)."
    )
    list_price_usd: Usd = Field(description="Undiscounted storefront price.")
    historical_low_usd: Usd | None = Field(
        description="Lowest price in the whole price history, or null."
    )
    historical_low_at: dt.date | None = Field(description="The day it first reached that low.")
    prices_as_of: dt.datetime | None = Field(
        description="The catalogue's newest price observation (RFC 3339, UTC)."
    )
    price_history: list[PricePoint] = Field(
        max_length=PRICE_HISTORY_POINTS,
        description="Dated US price observations, oldest first: the first day of every run "
        "of one price (a gap of more than 14 days starts a new point) and the historical low, "
        "each with its source.",
    )
    score_history: list[ScorePoint] = Field(
        max_length=PRICE_HISTORY_POINTS,
        description="The bang_score and price at each snapshot where either changed, oldest "
        "first, dated by the snapshot's prices_as_of day.",
    )
    review_count: Count = Field(description="Storefront reviews counted in review_score.")
    recent_review_score: Fraction | None = Field(
        description="Positive share of the storefront's most recent reviews (a sample of up to "
        "1,000); the score reads it where it differs from review_score by 10 points or more on "
        "200 or more recent reviews. Null where no sample was taken."
    )
    recent_review_count: Count | None = Field(description="Reviews in that recent sample, or null.")
    recent_reviews_at: dt.date | None = Field(
        description="The day the newest dated review sample was taken, or null."
    )
    tags: list[str] = Field(description="Storefront user tags, most-voted first, at most 20.")
    steam_deck_tested_at: DeckTestedField
    languages: LanguagesField
    ai_content: AiContentField
    refunded_review_over_2h: Fraction | None = Field(
        description="Share of the flagged reviews whose writer had played more than 2 hours."
    )
    refunded_review_window: DateSpan | None = Field(description="Days of the sampled reviews.")
    refunded_review_first_30_days: First30Days | None = Field(
        description="Refund counts for reviews written within 30 days of release."
    )
    early_window_reviews: Count | None = Field(
        description="Reviews written within 2 hours of play."
    )
    early_window_positive_share: Fraction | None = Field(
        description="Positive share of those reviews."
    )
    early_window_review_share: Fraction | None = Field(
        description="Their share of the sample's storefront-purchase reviews."
    )
    early_window_sample: EarlyWindowSample | None = Field(
        description="The reviews the early-window figures come from."
    )
    provisional_reasons: list[ProvisionalReason] = Field(
        description="Why the score is provisional, in this order; empty when it is not."
    )
    length_source: LengthSource = Field(
        description="hltb: a HowLongToBeat main-story time; playtime_estimate: estimated from "
        "how long the game's positive reviewers play; playtime: a game played mainly with "
        "others online, measured by how long its players play."
    )
    drivers: Drivers = Field(description="What raises and lowers the score, never a weight.")
    score_version: str = Field(
        description="Changes whenever the scoring model changes: scores of two versions are "
        "not comparable."
    )
    sources: Sources = Field(description="Date of each kind of source.")
    provenance: dict[str, Provenance] = Field(
        description="Per public input, the source its value came from and that source's date."
    )
    checks: list[str] = Field(description="Cross-checks that fired on this game's inputs.")
    estimated: list[str] = Field(
        description="The inputs that are documented estimates rather than observations."
    )


# -- envelopes ---------------------------------------------------------------------------------


class GameList(Record):
    """A page of the list (``GET /api/v1/games``), 10 games a page (docs/API.md#pagination)."""

    page: int = Field(ge=1, description="This page, 1-based.")
    pages: Count = Field(description="ceil(total / 10); 0 when nothing matches.")
    prices_as_of: dt.datetime | None = Field(
        description="The catalogue's newest price observation (RFC 3339, UTC)."
    )
    total: Count = Field(description="Games matching the filters.")
    games: list[ListItem] = Field(max_length=PAGE_SIZE, description="This page's games.")


class SearchResult(Record):
    """A page of search results (``GET /api/v1/search``): the list envelope with ``query``."""

    query: str = Field(description="The trimmed q.")
    page: int = Field(ge=1, description="This page, 1-based.")
    pages: Count = Field(description="ceil(total / 10); 0 when nothing matches.")
    prices_as_of: dt.datetime | None = Field(
        description="The catalogue's newest price observation (RFC 3339, UTC)."
    )
    total: Count = Field(description="Games matching the query.")
    games: list[ListItem] = Field(max_length=PAGE_SIZE, description="This page's games.")


class NotRatedApp(Record):
    """A known app that is not rated, as the lookup names it."""

    appid: AppId
    reason: NotRatedReason = Field(description="Why it is not rated.")
    superseded_by: AppId | None = Field(
        description="With reason superseded: the rated edition's appid; else null."
    )


class Lookup(Record):
    """The batch lookup's answer (``GET /api/v1/lookup``, docs/API.md#lookup): every appid
    asked, each once, in exactly one of the three lists."""

    prices_as_of: dt.datetime | None = Field(
        description="The catalogue's newest price observation (RFC 3339, UTC)."
    )
    games: list[ListItem] = Field(
        max_length=MAX_LOOKUP_APPIDS, description="The rated games, in the order asked."
    )
    not_rated: list[NotRatedApp] = Field(
        max_length=MAX_LOOKUP_APPIDS,
        description="Known apps that are not rated, with the reason, in the order asked.",
    )
    not_found: list[int] = Field(
        max_length=MAX_LOOKUP_APPIDS,
        description="Appids no source knows, in the order asked.",
    )


class UsageDay(Record):
    """One UTC day's count."""

    date: dt.date
    count: Count


class Usage(Record):
    """The calling key's quota (``GET /api/v1/usage``, docs/API.md#usage)."""

    key_id: str = Field(description="The key's short id (8 characters after bsk_).")
    plan: Plan
    limit: Count = Field(description="Requests a UTC day.")
    used: Count = Field(description="Requests counted today.")
    remaining: Count = Field(description="Requests left today.")
    reset_at: dt.datetime = Field(description="The next 00:00 UTC.")
    days: list[UsageDay] = Field(description="The last 30 UTC days, oldest first, today last.")


class ParamProblem(Record):
    """One bad parameter of a 400."""

    parameter: str = Field(description="The parameter's name, once however often it was sent.")
    message: str = Field(description="What it accepts.")


class Problem(Record):
    """An RFC 9457 problem document, the body of every error (docs/API.md#problem-details)."""

    type: str = Field(description="{site}/docs/errors#<code>.")
    title: str
    status: int = Field(ge=400, le=599)
    detail: str
    code: str = Field(description="The error code (docs: error codes).")
    request_id: str = Field(description="This request's id, as in X-Request-Id.")
    errors: list[ParamProblem] | None = Field(
        default=None, description="invalid_parameter only: every bad parameter, each once."
    )
    appid: int | None = Field(
        default=None, description="game_not_rated only: the known app's appid."
    )
    name: str | None = Field(
        default=None, description="game_not_rated only: the app's name (empty when unknown)."
    )
    reason: NotRatedReason | None = Field(
        default=None, description="game_not_rated only: why the known app is not rated."
    )
    superseded_by: int | None = Field(
        default=None,
        description="game_not_rated with reason superseded only: the appid of the rated "
        "edition that replaces the listing.",
    )
    violated_policies: list[Literal["daily"]] | None = Field(
        default=None,
        alias="violated-policies",
        description="quota_exceeded only: the quota policies the request is over.",
    )
    oldest: str | None = Field(default=None, description="history_expired: oldest since.")
    snapshot: str | None = Field(default=None, description="history_expired: the current one.")


RECORD_MODELS: Final[tuple[type[Record], ...]] = (
    ListItem,
    GameDetail,
    GameList,
    SearchResult,
    Lookup,
    Usage,
    Problem,
)
"""The wire records whose schemas the OpenAPI document carries (the nested ones come with)."""
