"""Record resolution: given every observation (:mod:`ingest.dumps.registry` reads the bundled ones,
the live adapters add theirs), resolve each field of each appid by precedence
(:mod:`ingest.resolve.observations`), cross-check (:mod:`ingest.resolve.checks`), date the prices
(:mod:`ingest.resolve.prices`), and split the known apps into rated :class:`GameRecord` s and
:class:`NotRated` apps with their reason. Values are read through named types
(:class:`ingest.prices.Price`, :class:`ReviewerPlaytime`, :class:`OwnerPlaytime`), never by
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
    MIN_REVIEWERS,
    MIN_REVIEWS,
    Length,
    Listing,
    choose_length,
    delisted,
    finish_rate_estimate,
    non_game,
    not_rated_reason,
    played_length,
    regional_copies,
    season_length_on_free_episode,
    zero_is_no_price,
)
from bangscore.ingest.resolve.observations import TRUST_MATCHED, Layer, Observations, Resolved
from bangscore.ingest.resolve.prices import (
    Low,
    Price,
    Seen,
    at_midnight,
    current_price,
    historical_low,
    price_history,
    with_low,
)
from bangscore.ingest.resolve.tags import TagPositions, order_tag_set, typical_positions
from bangscore.scoring.genres import multiplayer_first
from bangscore.scoring.play import is_replayable
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
    "OwnerPlaytime",
    "ReviewerPlaytime",
    "assemble",
    "estimated_fields",
    "prices_as_of",
    "tag_positions",
]


class ReviewerPlaytime(NamedTuple):
    """Median playtime (hours, at collection) of a game's positive and negative reviewers and
    how many of each the sample holds (``reviewer_playtime`` observations)."""

    positive_hours: float | None
    negative_hours: float | None
    positive_reviewers: int
    negative_reviewers: int


class OwnerPlaytime(NamedTuple):
    """Median and mean playtime of a game's owners, in minutes (``owner_playtime``)."""

    median_minutes: float
    mean_minutes: float


# Fields whose observation is a US price triple (a Price): today's (``price``) or one a dump
# saw then (``price_seen``), each observed at its layer's date.
_PRICE_FIELDS = ("price", "price_seen")


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
}


def _observations(known: Observations, appid: int) -> list[Seen]:
    """Return every dated US price observation of an appid: a layer's own dated points
    (``price_points``), else its price triple at midnight UTC of its date."""
    out: list[Seen] = []
    dated: set[str] = set()
    for found in known.candidates(appid, "price_points"):
        dated.add(found.layer.name)
        out.extend(found.value)
    for name in _PRICE_FIELDS:
        for found in known.candidates(appid, name):
            if found.layer.name not in dated:
                dated.add(found.layer.name)
                out.append(
                    Seen(at_midnight(found.layer.date), Price(*found.value), found.layer.name)
                )
    return out


class ReviewCount(NamedTuple):
    """An appid's review count, the layer it came from, and whether it is only a lower bound
    (a recent sample's size, or the least count Steam's review summary implies)."""

    total: int
    layer: Layer | None
    lower_bound: bool


def _layer_named(known: Observations, name: str, day: dt.date) -> Layer:
    """Return the layer called ``name`` dated ``day`` (the day of one of its observations): a
    price point names its source, which a record read back may hold under no layer of its
    own (then a storefront layer of that name)."""
    found = next((layer for layer in known.layers if layer.name == name), None)
    return dataclasses.replace(found or Layer(name, "storefront", day), date=day)


def _zero_before_release(known: Observations, appid: int, price: Resolved) -> bool:
    """Return True when an appid's only price is a $0 seen before its release date: the app
    was not on sale yet (the 2024 catalogue lists unreleased apps at $0), so it is no price."""
    released = known.value(appid, "release_date")
    seen = Price(*price.value)
    return (
        seen.price_usd == 0
        and released is not None
        and _priced_at(known, appid, price).at.date() < released
    )


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


def _free_price(known: Observations, appid: int) -> Resolved | None:
    """Return $0 (list $0, no discount) as observed by the storefront record that says an app
    is free (Steam's own ``is_free`` flag: the 2024 catalogue's), for an app no source prices
    in US dollars; None when no record says free, the newest says not free, or the flag was
    seen before the release date (an unreleased app's flag, like its $0, is no price).

    Free is $0 in every currency, so this converts nothing. The SteamSpy and US price dumps
    leave out most free apps released after 2020 (SteamSpy's pages list older ones at $0,
    which already price them), so without the flag every one of those would answer
    ``no_usd_price``. Any source that prices the app wins over this: it is only a fallback."""
    free = known.get(appid, "free")
    if free is None or free.value is not True:
        return None
    released = known.value(appid, "release_date")
    if released is not None and free.layer.date < released:
        return None
    return Resolved(Price(0.0, 0.0, 0), free.layer)


FREE_TO_PLAY_GENRE = "Free to Play"


def _free_to_play_price(known: Observations, appid: int) -> Resolved | None:
    """Return $0 (list $0, no discount) as observed by the newest storefront record of an app's
    genres when that record files it under "Free to Play" (docs/API.md#prices-and-dates), for
    an app no source prices in US dollars and the 2024 catalogue's ``is_free`` flag does not
    price; None when the genre is absent, the app was not released by that record's date, or an
    ``is_free`` flag seen after its release says it is not free (Marvel Rivals' 2024 flag,
    seen before its December 2024 release, says nothing).

    The 2025-26 free-to-play releases (Marvel Rivals, Wuthering Waves, Delta Force, Where Winds
    Meet, FragPunk) are in no US price dump: the 2026 dumps' scraper walked priced apps and
    skipped them although it priced their neighbours' appids, and they came after the 2024
    catalogue and SteamSpy's 2025 pages. Their storefront record of 2026-07-24 says Free to
    Play, so they are free at its date (source ``steam_pics_2026``). A paid game that also
    carries the genre is priced by the dumps, which win: this is only a fallback."""
    genres = known.get(appid, "storefront_genres")
    if genres is None or FREE_TO_PLAY_GENRE not in genres.value:
        return None
    released = known.value(appid, "release_date")
    if released is None or released > genres.layer.date:
        return None
    free = known.get(appid, "free")
    if free is not None and free.value is False and free.layer.date >= released:
        return None  # sold for money once it was out (a flag seen before release says nothing)
    return Resolved(Price(0.0, 0.0, 0), genres.layer)


def _priced_at(known: Observations, appid: int, price: Resolved) -> Seen:
    """Given an appid's winning price, return it as observed: the newest dated point of its
    layer, or the triple at midnight UTC of the layer's date."""
    for found in known.candidates(appid, "price_points"):
        if found.layer == price.layer and found.value:
            newest: Seen = found.value[-1]
            return newest
    return Seen(at_midnight(price.layer.date), Price(*price.value), price.layer.name)


def prices_as_of(known: Observations) -> dt.datetime | None:
    """Given every observation, return the newest US price observation's time (UTC): the
    catalog's ``prices_as_of``, or None when nothing is priced."""
    newest: dt.datetime | None = None
    for layer, table in known.tables("price_points"):
        del layer
        for points in table.values():
            if points and (newest is None or points[-1].at > newest):
                newest = points[-1].at
    for name in _PRICE_FIELDS:
        for layer, table in known.tables(name):
            if table and (newest is None or at_midnight(layer.date) > newest):
                newest = at_midnight(layer.date)
    return newest


def _historical_low(
    known: Observations, appid: int, seen: list[Seen], list_price: float
) -> Low | None:
    """Return the lowest price of an appid's whole history
    (:func:`ingest.prices.historical_low`)."""
    others = [
        (float(found.value), found.layer.date, found.layer.name)
        for found in known.candidates(appid, "usd_price_seen")
    ]
    deepest = known.get(appid, "deepest_discount_percent")
    depth = (int(deepest.value), deepest.layer.date, deepest.layer.name) if deepest else None
    return historical_low(seen, others, list_price, depth)


def _finish_rate(known: Observations, appid: int, hours: float) -> tuple[float, Layer] | None:
    """Estimate the share of players who play the main story's length, from owners' playtime
    (SteamSpy, the 2019 dump) or, failing that, from reviewers' playtime (2026)."""
    owners = known.get(appid, "owner_playtime")
    if owners is not None:
        owned = OwnerPlaytime(*owners.value)
        return finish_rate_estimate(owned.median_minutes, owned.mean_minutes, hours), owners.layer
    reviewers = known.get(appid, "reviewer_playtime")
    if reviewers is None:
        return None
    played = ReviewerPlaytime(*reviewers.value)
    parts = [
        (n, h)
        for n, h in (
            (played.positive_reviewers, played.positive_hours),
            (played.negative_reviewers, played.negative_hours),
        )
        if h and n
    ]
    if sum(n for n, _ in parts) < MIN_REVIEWERS:
        return None
    rate = sum(n * finish_rate_estimate(h * 60, h * 60, hours) for n, h in parts)
    return rate / sum(n for n, _ in parts), reviewers.layer


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
    tags are ranked (:func:`ingest.tags.typical_positions`)."""
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
        record = _rate(known, appid, app, as_of, typical, report)
        if record is not None:
            rated.append(record)
            _count_rated(report, record, app.free_only)
    report.rated = len(rated)
    return rated, refused


def _listing(known: Observations, appid: int) -> Listing:
    """Given an appid, return what :func:`ingest.checks.regional_copies` compares of it."""
    return Listing(
        appid,
        known.value(appid, "name") or "",
        known.value(appid, "developer"),
        known.value(appid, "publisher"),
        int(known.value(appid, "review_count", 0)),
        known.get(appid, "app_type") is not None,
    )


class _Refused(NamedTuple):
    """An app a check refused: the first ``reason`` (:func:`ingest.checks.not_rated_reason`),
    its storefront ``name`` ("" when none), its review count, and whether a $0 was refused as
    no price (the report counts those)."""

    reason: NotRatedReason
    name: str
    review_count: int
    zero_not_free: bool


class _Rateable(NamedTuple):
    """An app every check passed: its storefront ``name``, the price to rate it at, its chosen
    length, its review count and whether only the free flag priced it."""

    name: str
    price: Resolved
    length: Length
    counted: ReviewCount
    free_only: bool


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
    price, zero_not_free, free_only = _usable_price(known, appid, found, regional_copy)
    length = None
    # The length check needs the tags and the reviewers' playtime: only for apps that
    # pass every other check, which keeps the walk over 180k apps fast.
    if not (is_non_game or is_delisted or price is None or counted.total < MIN_REVIEWS):
        length = _length(known, appid, typical, name, price)
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
    return _Rateable(name, price, length, counted, free_only)


def _has_store_data(known: Observations, appid: int, name: str) -> bool:
    """Given an appid and its storefront name ("" when none), return False when no storefront
    source names it nor types it: only a play-length source knows it."""
    return bool(name) or known.get(appid, "app_type") is not None


def _is_non_game(known: Observations, appid: int, name: str) -> bool:
    """Given an appid and its storefront name, return True when it is no game: nameless, or
    :func:`ingest.checks.non_game` by its name, app type and storefront genres."""
    return not name or non_game(
        name, known.value(appid, "app_type"), known.value(appid, "storefront_genres", ())
    )


def _is_delisted(known: Observations, appid: int, price: Resolved | None) -> bool:
    """Given an appid and its resolved price (or None), return
    :func:`ingest.checks.delisted` of it."""
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
    typical: TagPositions,
    report: IngestReport,
) -> GameRecord | None:
    """Given an app ready to rate, return its record (:func:`_record`), or None, counted in
    ``report.dropped`` under the field at fault, when a value breaks the record's constraints."""
    try:
        return _record(
            known,
            appid,
            app.name,
            _priced_at(known, appid, app.price),
            app.length,
            app.counted,
            as_of,
            _tags(known, appid, typical),
        )
    except ValidationError as err:
        report.dropped[f"invalid record ({err.errors()[0]['loc']})"] += 1
        return None


def _owners_median(known: Observations, appid: int) -> Resolved | None:
    """Return the owners' median playtime in hours with its layer: the bundled dumps'
    ``owner_playtime`` median, else a live SteamSpy answer's ``median_playtime_hours``; None
    when neither is known. The one value a played length and the record's
    ``median_playtime_hours`` both take, so a record resolved again finds the same length."""
    owners = known.get(appid, "owner_playtime")
    if owners is not None:
        return Resolved(OwnerPlaytime(*owners.value).median_minutes / 60, owners.layer)
    return known.get(appid, "median_playtime_hours")


def _played_length(
    known: Observations, appid: int, reviewer: ReviewerPlaytime | None
) -> Length | None:
    """Return a multiplayer-first app's length as how long players play
    (:func:`ingest.checks.played_length`), from its reviewers' or owners' median playtime."""
    found = known.get(appid, "reviewer_playtime")
    positive = (
        Resolved(reviewer.positive_hours, found.layer)
        if found is not None and reviewer is not None and reviewer.positive_hours is not None
        else None
    )
    return played_length(
        positive,
        reviewer.positive_reviewers if reviewer is not None else 0,
        _owners_median(known, appid),
    )


def _usable_price(
    known: Observations, appid: int, price: Resolved | None, regional_copy: bool
) -> tuple[Resolved | None, bool, bool]:
    """Given an app's resolved price (or None), return (the price to rate it at or None,
    whether a $0 was refused as no price, whether only the free flag priced it)."""
    if regional_copy:
        return None, False, False  # a regional copy's only price repeats its twin's
    if price and (
        zero_is_no_price(
            Price(*price.value).price_usd,
            Price(*price.value).list_price_usd,
            known.value(appid, "free"),
        )
        or _zero_before_release(known, appid, price)
    ):
        return None, True, False
    if price is None:
        price = _free_price(known, appid) or _free_to_play_price(known, appid)
        return price, False, price is not None
    return price, False, False


def _length(
    known: Observations, appid: int, typical: TagPositions, name: str, price: Resolved
) -> Length | None:
    """Given an app, the catalogue's typical tag positions, its name and its price, return its
    chosen length (:func:`choose_length`) or None: for a multiplayer-first game how long
    players play (:func:`_played_length`) when anyone's playtime is known; None for a free
    first episode whose only length is its season's (:func:`season_length_on_free_episode`)."""
    found = known.value(appid, "reviewer_playtime")
    reviewer = ReviewerPlaytime(*found) if found else None
    tags = _tags(known, appid, typical)
    length = choose_length(
        list(known.candidates(appid, "main_story_hours")),
        reviewer.positive_hours if reviewer else None,
        reviewer.positive_reviewers if reviewer else 0,
        replayable=is_replayable(tags),
    )
    if multiplayer_first(
        known.value(appid, "categories", ()), tags, known.value(appid, "storefront_genres", ())
    ):
        length = _played_length(known, appid, reviewer) or length
    paid = Price(*price.value)
    free = paid.price_usd == 0 and paid.list_price_usd == 0
    if season_length_on_free_episode(name, tags, free, length):
        return None
    return length


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
    :func:`ingest.prices.current_price`) and its tags, most-voted first (:func:`_tags`).
    Raises pydantic's ValidationError when a value breaks the record's constraints."""
    price = current_price(seen, as_of)
    median = _owners_median(known, appid)
    reviewer_found = known.get(appid, "reviewer_playtime")
    length_layer, length_estimated = _length_layer(length, reviewer_found)
    finish = _chosen_finish_rate(known, appid, length)
    observed = _history_points(known, appid, seen, price.list_price_usd)
    # A sale long over still is a price the game was sold at: the whole history counts.
    low = _historical_low(known, appid, observed, price.list_price_usd)
    released = known.value(appid, "release_date")
    year, year_layer = _release_year(known, appid, released)
    provenance = _record_layers(
        known,
        appid,
        {
            "price_usd": _layer_named(known, seen.source, seen.at.date()),
            "median_playtime_hours": median.layer if median is not None else None,
            "length_hours": length_layer,
            # Whatever dump the playtime came from, a finish rate is player statistics.
            "finish_rate": dataclasses.replace(finish[1], kind="player_stats") if finish else None,
            "historical_low_usd": _layer_named(known, low.source, low.at) if low else None,
            "release_year": year_layer,
            "review_count": counted.layer,
        },
    )
    window = known.value(appid, "early_window")
    up_hours, up_reviewers = _trusted_reviewers(reviewer_found)
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


def _length_layer(length: Length, reviewer_found: Resolved | None) -> tuple[Layer, bool]:
    """Given the chosen length and the winning reviewers' playtime, return (the layer the length
    came from, whether it is estimated): a source's length is its own; a length with no source
    (a playtime estimate) comes from the reviewers' playtime layer."""
    if length.resolved is not None:
        return length.resolved.layer, False
    assert reviewer_found is not None  # choose_length estimates only from reviewers' playtime
    return reviewer_found.layer, True


def _release_year(
    known: Observations, appid: int, released: dt.date | None
) -> tuple[int | None, Layer | None]:
    """Given an app and its release date (or None), return (its release year or None, the layer
    to report it under when not the date's): the year it was first sold, the earliest release
    date any storefront layer holds (Early Access included: a 1.0 or a re-release moves the
    storefront's date, not the year it first sold; Hot Dogs, Horseshoes & Hand Grenades 2016,
    not 2026), else a year only the play-length source knows (``play_length_release_year``)
    with its layer."""
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


def _chosen_finish_rate(
    known: Observations, appid: int, length: Length
) -> tuple[float, Layer] | None:
    """Given an app and its chosen length, return its finish rate and layer, or None. A finish
    rate a source observed directly (the live achievements adapter) wins over one estimated
    here from playtime; an estimated length gets no estimated finish rate."""
    observed = known.get(appid, "finish_rate")
    if observed is not None:
        return observed.value, observed.layer
    if length.source == "hltb":
        return _finish_rate(known, appid, length.hours)
    return None


def _history_points(known: Observations, appid: int, seen: Seen, list_price: float) -> list[Seen]:
    """Given an app, the observation it is priced at and its list price, return its price
    history's points. A $0 next to a paid list price today was "not sold then" (unreleased, or
    no US price found), not "free": no point of the history."""
    observed = [
        point
        for point in _observations(known, appid)
        if point.price.price_usd > 0 or list_price == 0
    ]
    if not any(point.source == seen.source for point in observed):
        observed.append(seen)  # a price from the free flag alone (_free_price) is its only point
    return observed


def _trusted_reviewers(found: Resolved | None) -> tuple[float | None, int | None]:
    """Given the winning reviewers' playtime (a :class:`ReviewerPlaytime` and its layer, or
    None), return (the positive reviewers' hours, their count) when enough reviewers back them,
    else (None, None)."""
    reviewer = ReviewerPlaytime(*found.value) if found else None
    if reviewer is None or reviewer.positive_reviewers < MIN_REVIEWERS:
        return None, None
    return reviewer.positive_hours, reviewer.positive_reviewers


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
