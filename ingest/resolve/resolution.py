"""Record resolution: given every observation (:mod:`ingest.dumps.registry` reads the bundled ones,
the live adapters add theirs), resolve each field of each appid by precedence
(:mod:`ingest.resolve.observations`), cross-check (:mod:`ingest.resolve.checks`), date the prices
(:mod:`ingest.resolve.prices`), and split the known apps into rated :class:`GameRecord` s and
:class:`NotRated` apps with their reason. Values are read through named types
(:class:`ingest.resolve.prices.Price`, :class:`ReviewerPlaytime`, :class:`OwnerPlaytime`), never by
position.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from pydantic import ValidationError
from tqdm import tqdm

from bangscore.ingest.resolve.checks import (
    MIN_REVIEWS,
    Length,
    Listing,
    delisted,
    non_game,
    not_rated_reason,
    regional_copies,
)
from bangscore.ingest.resolve.editions import supersede
from bangscore.ingest.resolve.lengths import (
    choose_app_length,
    chosen_finish_rate,
    length_source_layer,
    owners_median,
    trusted_reviewers,
)
from bangscore.ingest.resolve.observations import TRUST_MATCHED, Layer, Observations, Resolved
from bangscore.ingest.resolve.priced import (
    historical_low_of,
    history_points,
    layer_named,
    priced_at,
    prices_as_of,
    usable_price,
)
from bangscore.ingest.resolve.prices import (
    Price,
    Seen,
    current_price,
    price_history,
    with_low,
)
from bangscore.ingest.resolve.reviews import corrected, older_share_offset, recent_reviews
from bangscore.ingest.resolve.tags import TagPositions, order_tag_set, typical_positions
from bangscore.ingest.resolve.unsold import inherit, unsold
from bangscore.scoring.records import (
    EarlyWindow,
    GameRecord,
    NotRated,
    NotRatedReason,
    Provenance,
    Sources,
)

__all__ = [
    "IngestReport",
    "assemble",
    "estimated_fields",
    "prices_as_of",
    "tag_positions",
]


@dataclass
class IngestReport:
    """Counts of one catalog build: ``observations`` per layer, known ``apps``, ``dropped`` apps
    per not-rated reason, ``checks`` fired per name, ``rated`` games, rated games per release
    ``years``, ``length_sources`` of the rated games, how many apps were refused as
    ``regional_copies`` of another listing and how many for a ``zero_not_free`` price (a $0
    the storefront says is not free to play), both within ``no_usd_price``, how many of the
    latter have enough reviews to be rated (``zero_not_free_reviewed``), how many rated games
    no source prices but the storefront's free flag (``free_flag``), and wall ``seconds``."""

    observations: Counter[str] = field(default_factory=Counter)
    apps: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=Counter)
    rated: int = 0
    years: Counter[int | None] = field(default_factory=Counter)
    length_sources: Counter[str] = field(default_factory=Counter)
    early_window: int = 0
    regional_copies: int = 0
    free_flag: int = 0
    zero_not_free: int = 0
    zero_not_free_reviewed: int = 0
    # The offset an older source's lifetime shares were lowered by (ingest.resolve.reviews).
    older_share_offset: float = 0.0
    seconds: float = 0.0

    def summary(self) -> str:
        """Given the report, return it as aligned human-readable lines."""
        lines = ["observations per source:"]
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.observations.items()]
        lines.append(f"known apps: {self.apps:,}")
        lines.append("not rated, per reason:")
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.dropped.most_common()]
        lines.append(f"  of which regional copies of another listing {self.regional_copies:>9,}")
        lines.append(f"  of which $0 that is no price {self.zero_not_free:>24,}")
        lines.append(f"rated games priced only by the free flag: {self.free_flag:,}")
        lines.append("cross-checks fired on rated games:")
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.checks.most_common()]
        lines.append("length source of rated games:")
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.length_sources.most_common()]
        lines.append(f"rated games with early-window reviews: {self.early_window:,}")
        lines.append("rated games per release year:")
        years = sorted(self.years.items(), key=lambda kv: kv[0] or 0)
        lines += [f"  {k if k else 'unknown':<36} {v:>9,}" for k, v in years]
        lines.append(f"rated games: {self.rated:,}")
        lines.append(f"wall time: {self.seconds:.1f} s")
        return "\n".join(lines)


# Public inputs and the wire field each one's provenance is reported under.
_PUBLIC = {
    "name": "name",
    "developer": "developer",
    "publisher": "publisher",
    "price": "price_usd",
    "review_score": "review_score",
    "review_count": "review_count",
    "release_date": "release_year",
    "tags": "tags",
    "storefront_genres": "genre",
    "completionist_hours": "completionist_hours",
    "metacritic": "metacritic",
    "early_window": "early_window_reviews",
    "median_playtime_hours": "median_playtime_hours",
    "steam_deck": "steam_deck",
    "controller_support": "controller_support",
    "languages": "languages",
    "ai_content": "ai_content",
}


class ReviewCount(NamedTuple):
    """An appid's review count, the layer it came from, and whether it is only a lower bound
    (a recent sample's size, or the least count Steam's review summary implies)."""

    total: int
    layer: Layer | None
    lower_bound: bool


def _review_count(known: Observations, appid: int) -> ReviewCount:
    """Return an appid's review count: the resolved total (a keyed full total first, the
    freshest), raised to a newer, higher count: a recent sample's full size, or a lower bound
    (``review_count_floor``: a sample that reached its cap, the least count Steam's review
    summary implies), which marks the count as a lower bound. Reviews accumulate, so such a
    count outdates an older total; a total newer than it stands (reviews can be removed)."""
    winner = known.get(appid, "review_count")
    best = ReviewCount(0, None, False)
    if winner is not None:
        best = ReviewCount(int(winner.value), winner.layer, False)
    newer_counts = [
        (c, False)
        for c in known.candidates(appid, "review_count")
        if c.layer.trust >= TRUST_MATCHED
    ]
    newer_counts += [(c, True) for c in known.candidates(appid, "review_count_floor")]
    for found, lower_bound in newer_counts:
        newer = best.layer is None or found.layer.date >= best.layer.date
        if int(found.value) > best.total and newer:
            best = ReviewCount(int(found.value), found.layer, lower_bound)
    return best


def _tags_marked(known: Observations, appid: int, mark: str) -> bool:
    """Return True when the layer of an appid's winning tags also observed ``mark`` for it:
    ``tags_unranked`` (a set without vote order) or ``tags_reconstructed`` (a previous
    record's tags, already put in typical order)."""
    winner = known.get(appid, "tags")
    return winner is not None and any(
        c.layer == winner.layer for c in known.candidates(appid, mark)
    )


def _tags_unranked(known: Observations, appid: int) -> bool:
    return _tags_marked(known, appid, "tags_unranked")


def _tag_order_estimated(known: Observations, appid: int) -> bool:
    return _tags_unranked(known, appid) or _tags_marked(known, appid, "tags_reconstructed")


def tag_positions(known: Observations) -> TagPositions:
    """Given every observation, return the typical tag positions over the apps whose winning
    tags are ranked (:func:`ingest.resolve.tags.typical_positions`)."""
    return typical_positions(
        (known.value(appid, "tags", ()), known.value(appid, "storefront_genres", ()))
        for appid in known.appids
        if not _tag_order_estimated(known, appid)
    )


def _tags(known: Observations, appid: int, typical: TagPositions) -> tuple[str, ...]:
    """Return an appid's tags, most-voted first: the winning ranked tags, or an unranked set in
    typical order (:mod:`ingest.resolve.tags`)."""
    tags = tuple(known.value(appid, "tags", ()))
    if not _tags_unranked(known, appid):
        return tags
    return order_tag_set(tags, known.value(appid, "storefront_genres", ()), typical)


def assemble(
    known: Observations,
    report: IngestReport,
    *,
    progress: bool = False,
    as_of: dt.datetime | None = None,
) -> tuple[list[GameRecord], list[NotRated]]:
    """Given every observation, return (rated records, not-rated apps), both sorted by appid,
    counting reasons, checks, years and length sources in ``report``. Prices obey "only a
    current sale counts" against ``as_of`` (UTC; default :func:`prices_as_of` of ``known``).
    Never raises on data: a record a value would break is counted in ``report.dropped``."""
    rated: list[GameRecord] = []
    refused: list[NotRated] = []
    appids = sorted(known.appids)
    report.apps = len(appids)
    as_of = as_of or prices_as_of(known) or dt.datetime.now(dt.UTC)
    typical = tag_positions(known)
    copies = regional_copies(_listing(known, appid) for appid in appids)
    for appid in tqdm(appids, desc="resolving", unit="app", disable=not progress):
        app = _screen(known, appid, typical, appid in copies)
        if isinstance(app, _Refused):
            _count_refusal(report, app.reason, app.review_count, appid in copies, app.zero_not_free)
            refused.append(_not_rated(known, appid, app))
            continue
        record = _rate(known, appid, app, as_of, report)
        if record is not None:
            rated.append(record)
            _count_rated(report, record, app.free_only)
    report.older_share_offset = older_share_offset(known)
    rated = corrected(rated, report.older_share_offset)
    listed = {r.appid: r for r in rated}
    before = Counter(a.reason for a in refused)
    rated, refused = supersede(rated, refused, as_of.year)
    rated, refused = unsold(rated, refused, _unpriced(known))
    report.dropped.update(Counter(a.reason for a in refused) - before)
    rated = inherit(rated, listed, refused)
    report.rated = len(rated)
    return rated, refused


def _unpriced(known: Observations) -> dict[int, dt.date]:
    """Given every observation, return the day of each app's newest price row that had no
    price (``unpriced_at``, the newest layer's where several saw one)."""
    days: dict[int, dt.date] = {}
    for _, table in reversed(known.tables("unpriced_at")):
        days.update(table)
    return days


def _listing(known: Observations, appid: int) -> Listing:
    """Given an appid, return what :func:`ingest.resolve.checks.regional_copies` compares of it."""
    return Listing(
        appid,
        known.value(appid, "name") or "",
        known.value(appid, "developer"),
        known.value(appid, "publisher"),
        int(known.value(appid, "review_count", 0)),
        known.get(appid, "app_type") is not None,
    )


class _Refused(NamedTuple):
    """An app a check refused: the first ``reason``
    (:func:`ingest.resolve.checks.not_rated_reason`), its storefront ``name`` ("" when none),
    its review count, and whether a $0 was refused as no price (the report counts those)."""

    reason: NotRatedReason
    name: str
    review_count: int
    zero_not_free: bool


class _Rateable(NamedTuple):
    """An app every check passed: its storefront ``name``, the price to rate it at, its chosen
    length, its review count, whether only the free flag priced it and its tags, most-voted
    first (:func:`_tags`, which the length check read)."""

    name: str
    price: Resolved
    length: Length
    counted: ReviewCount
    free_only: bool
    tags: tuple[str, ...]


def _screen(
    known: Observations, appid: int, typical: TagPositions, regional_copy: bool
) -> _Rateable | _Refused:
    """Given an appid, the catalogue's typical tag positions and whether the app is a regional
    copy of another listing, run the checks in :mod:`ingest.resolve.checks`' order and return the
    app ready to rate, or refused with its first reason."""
    name = known.value(appid, "name") or ""
    counted = _review_count(known, appid)
    found = known.get(appid, "price")
    is_non_game = _is_non_game(known, appid, name)
    is_delisted = _is_delisted(known, appid, found)
    price, zero_not_free, free_only = usable_price(known, appid, found, regional_copy)
    length = None
    tags: tuple[str, ...] = ()
    # The length check needs the tags and the reviewers' playtime: only for apps that
    # pass every other check, which keeps the walk over 180k apps fast.
    if not (is_non_game or is_delisted or price is None or counted.total < MIN_REVIEWS):
        tags = _tags(known, appid, typical)
        length = choose_app_length(known, appid, tags, name, price)
    reason = not_rated_reason(
        has_store_data=_has_store_data(known, appid, name),
        is_non_game=is_non_game,
        is_delisted=is_delisted,
        has_price=price is not None,
        review_count=counted.total,
        has_length=length is not None,
    )
    if reason is not None or price is None or length is None:
        return _Refused(reason or "no_length", name, counted.total, zero_not_free)
    return _Rateable(name, price, length, counted, free_only, tags)


def _has_store_data(known: Observations, appid: int, name: str) -> bool:
    """Given an appid and its storefront name ("" when none), return False when no storefront
    source names it nor types it: only a play-length source knows it."""
    return bool(name) or known.get(appid, "app_type") is not None


def _is_non_game(known: Observations, appid: int, name: str) -> bool:
    """Given an appid and its storefront name, return True when it is no game: nameless, or
    :func:`ingest.resolve.checks.non_game` by its name, app type and storefront genres."""
    return not name or non_game(
        name, known.value(appid, "app_type"), known.value(appid, "storefront_genres", ())
    )


def _is_delisted(known: Observations, appid: int, price: Resolved | None) -> bool:
    """Given an appid and its resolved price (or None), return
    :func:`ingest.resolve.checks.delisted` of it."""
    return delisted(
        known.get(appid, "delisted") is not None,
        Price(*price.value).price_usd if price else None,
        known.get(appid, "paid_before") is not None,
        bool(known.value(appid, "free", False)),
    )


def _not_rated(known: Observations, appid: int, app: _Refused) -> NotRated:
    """Given a refused app, return its not-rated entry, named by the storefront or else by
    the play-length source that alone knows it."""
    title = app.name or known.value(appid, "play_length_name") or ""
    # Values come from the resolver and the reason list: no need to re-validate.
    return NotRated.model_construct(
        appid=appid, name=title, reason=app.reason, review_count=app.review_count or None
    )


def _rate(
    known: Observations,
    appid: int,
    app: _Rateable,
    as_of: dt.datetime,
    report: IngestReport,
) -> GameRecord | None:
    """Given an app ready to rate, return its record (:func:`_record`), or None, counted in
    ``report.dropped`` under the field at fault, when a value breaks the record's constraints."""
    try:
        return _record(
            known,
            appid,
            app.name,
            priced_at(known, appid, app.price),
            app.length,
            app.counted,
            as_of,
            app.tags,
        )
    except ValidationError as err:
        report.dropped[f"invalid record ({err.errors()[0]['loc']})"] += 1
        return None


def _count_refusal(
    report: IngestReport, reason: str, review_count: int, regional_copy: bool, zero: bool
) -> None:
    """Count one not-rated app in the report under its reason."""
    report.dropped[reason] += 1
    report.regional_copies += reason == "no_usd_price" and regional_copy
    if reason == "no_usd_price" and zero:
        report.zero_not_free += 1
        report.zero_not_free_reviewed += review_count >= MIN_REVIEWS


def _count_rated(report: IngestReport, record: GameRecord, free_only: bool) -> None:
    """Count one rated game in the report."""
    report.free_flag += free_only
    report.checks.update(record.checks)
    report.years[record.release_year] += 1
    report.length_sources[record.length_source or "none"] += 1
    report.early_window += record.early_window is not None


@functools.lru_cache(maxsize=256)
def _provenance(layer: Layer) -> Provenance:
    """Return the (frozen, shared) provenance entry of one layer."""
    return Provenance(source=layer.name, kind=layer.kind, date=layer.date)


def _record(
    known: Observations,
    appid: int,
    name: str,
    seen: Seen,
    length: Length,
    counted: ReviewCount,
    as_of: dt.datetime,
    tags: tuple[str, ...],
) -> GameRecord:
    """Build one rated record from the winners of every field (see :func:`assemble`), the
    price observation it is priced at (``seen``, held to ``as_of`` by
    :func:`ingest.resolve.prices.current_price`) and its tags, most-voted first (:func:`_tags`).
    Raises pydantic's ValidationError when a value breaks the record's constraints."""
    price = current_price(seen, as_of)
    median = owners_median(known, appid)
    reviewer_found = known.get(appid, "reviewer_playtime")
    length_layer, length_estimated = length_source_layer(length, reviewer_found)
    finish = chosen_finish_rate(known, appid, length)
    observed = history_points(known, appid, seen, price.list_price_usd)
    # A sale long over still is a price the game was sold at: the whole history counts.
    low = historical_low_of(known, appid, observed, price.list_price_usd)
    released = known.value(appid, "release_date")
    year, year_layer = _release_year(known, appid, released)
    provenance = _record_layers(
        known,
        appid,
        {
            "price_usd": layer_named(known, seen.source, seen.at.date()),
            "median_playtime_hours": median.layer if median is not None else None,
            "length_hours": length_layer,
            # Whatever dump the playtime came from, a finish rate is player statistics.
            "finish_rate": dataclasses.replace(finish[1], kind="player_stats") if finish else None,
            "historical_low_usd": layer_named(known, low.source, low.at) if low else None,
            "release_year": year_layer,
            "review_count": counted.layer,
        },
    )
    window = known.value(appid, "early_window")
    up_hours, up_reviewers = trusted_reviewers(reviewer_found)
    recent = recent_reviews(reviewer_found)
    return GameRecord(
        appid=appid,
        name=name,
        developer=known.value(appid, "developer"),
        publisher=known.value(appid, "publisher"),
        price_usd=round(price.price_usd, 2),
        list_price_usd=round(price.list_price_usd, 2),
        discount_percent=int(price.discount_percent),
        price_observed_at=seen.at,
        price_history=with_low(price_history(observed), low, price.list_price_usd),
        review_score=float(known.value(appid, "review_score", 0.0)),
        review_count=counted.total,
        recent_review_score=round(recent.share, 4) if recent else None,
        recent_review_count=recent.size if recent else None,
        recent_reviews_at=recent.at if recent else None,
        release_date=released,
        release_year=year,
        storefront_genres=tuple(known.value(appid, "storefront_genres", ())),
        content_descriptors=tuple(known.value(appid, "content_descriptors", ())),
        categories=tuple(known.value(appid, "categories", ())),
        tags=tags[:20],
        play_length_genres=tuple(known.value(appid, "play_length_genres", ())),
        main_story_hours=length.hours,
        length_source=length.source,
        completionist_hours=known.value(appid, "completionist_hours"),
        finish_rate=finish[0] if finish else None,
        positive_reviewer_hours=up_hours,
        positive_reviewers=up_reviewers,
        rarest_achievement_percent=known.value(appid, "rarest_achievement_percent"),
        players_estimate=known.value(appid, "players_estimate"),
        owners_range=known.value(appid, "owners_range"),
        historical_low_usd=round(low.price_usd, 2) if low else None,
        historical_low_at=low.at if low else None,
        metacritic=known.value(appid, "metacritic"),
        steam_deck=known.value(appid, "steam_deck"),
        steam_deck_tested_at=known.value(appid, "steam_deck_tested_at"),
        controller_support=known.value(appid, "controller_support"),
        languages=tuple(known.value(appid, "languages", ())),
        ai_content=known.value(appid, "ai_content"),
        median_playtime_hours=float(median.value) if median is not None else None,
        reviews=known.value(appid, "reviews"),
        early_window=window,
        sources=_sources(provenance, window),
        provenance={wire: _provenance(layer) for wire, layer in sorted(provenance.items())},
        estimated=estimated_fields(
            length=length_estimated,
            finish_rate=finish is not None,
            historical_low=low is not None and low.estimated,
            tags=_tag_order_estimated(known, appid),
            review_count=counted.lower_bound,
        ),
        checks=tuple(length.checks),
    )


def _record_layers(
    known: Observations, appid: int, derived: dict[str, Layer | None]
) -> dict[str, Layer]:
    """Given an app and the layers of its derived values (wire field -> layer, None: no value),
    return the layer of every public input (wire field -> layer): each winner's (:data:`_PUBLIC`),
    then the derived ones, which replace a winner's layer of the same field."""
    layers: dict[str, Layer] = {}
    for field_name, wire in _PUBLIC.items():
        found = known.get(appid, field_name)
        if found is not None:
            layers[wire] = found.layer
    layers.update({wire: layer for wire, layer in derived.items() if layer is not None})
    return layers


def _release_year(
    known: Observations, appid: int, released: dt.date | None
) -> tuple[int | None, Layer | None]:
    """Given an app and its release date (or None), return (its release year or None, the layer
    to report it under when not the date's): the year it was first sold, the earliest release
    date any storefront layer holds (Early Access included: a 1.0 or a re-release moves the
    storefront's date, not the year it first sold; Hot Dogs, Horseshoes & Hand Grenades 2016,
    not 2026; a record read back says it as ``first_sold_year``), else a year only the
    play-length source knows (``play_length_release_year``) with its layer."""
    first = min(
        (
            found
            for found in known.candidates(appid, "release_date")
            if found.layer.kind == "storefront" and found.value is not None
        ),
        key=lambda found: found.value,
        default=None,
    )
    if first is not None and (released is None or first.value < released):
        return first.value.year, first.layer
    # A record read back (ingest.live.layers) keeps the year it was first sold as such.
    sold = known.get(appid, "first_sold_year")
    if released is not None and sold is not None and int(sold.value) < released.year:
        return int(sold.value), sold.layer
    if released is not None:
        return released.year, None
    other_year = known.get(appid, "play_length_release_year")
    if other_year is None:
        return None, None
    return int(other_year.value), other_year.layer


def estimated_fields(
    *, length: bool, finish_rate: bool, historical_low: bool, tags: bool, review_count: bool
) -> tuple[str, ...]:
    """Given which of a record's values are estimates, return its ``estimated`` wire names in
    their fixed order: ``length_hours`` (from reviewers' playtime), ``finish_rate`` (from
    playtime), ``historical_low_usd`` (from a deepest discount), ``tags`` (their order
    reconstructed, :mod:`ingest.resolve.tags`), ``review_count`` (a lower bound: a recent sample's
    size or the review summary's band)."""
    marks = (
        ("length_hours", length),
        ("finish_rate", finish_rate),
        ("historical_low_usd", historical_low),
        ("tags", tags),
        ("review_count", review_count),
    )
    return tuple(wire for wire, marked in marks if marked)


def _sources(provenance: dict[str, Layer], window: EarlyWindow | None) -> Sources:
    """Given the layer of every public input and the early-window reviews (or None), return the
    record's ``sources``: the oldest date per kind of source, and the day the review sample
    ends."""
    return Sources(
        **_oldest_date_per_kind(provenance),
        review_sample=window.window.to if window is not None else None,
    )


def _oldest_date_per_kind(provenance: dict[str, Layer]) -> dict[str, dt.date]:
    """Given the layer of every public input, return the oldest date per kind of source."""
    dates: dict[str, dt.date] = {}
    for layer in provenance.values():
        current = dates.get(layer.kind)
        dates[layer.kind] = layer.date if current is None else min(current, layer.date)
    return dates
