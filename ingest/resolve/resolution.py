"""Record resolution: given every observation (:mod:`ingest.dumps.registry` reads the bundled ones,
the live adapters add theirs), resolve each field of each appid by precedence
(:mod:`ingest.resolve.observations`), cross-check (:mod:`ingest.resolve.checks`), date the prices
(:mod:`ingest.resolve.prices`), and split the known apps into rated :class:`GameRecord` s and
:class:`NotRated` apps with their reason (:mod:`ingest.resolve.record` builds each rated
record). Values are read through named types
(:class:`ingest.resolve.prices.Price`, :class:`ReviewerPlaytime`, :class:`OwnerPlaytime`), never by
position.
"""

from __future__ import annotations

import datetime as dt
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
from bangscore.ingest.resolve.lengths import choose_app_length
from bangscore.ingest.resolve.observations import Observations, Resolved
from bangscore.ingest.resolve.priced import (
    priced_at,
    prices_as_of,
    usable_price,
)
from bangscore.ingest.resolve.prices import (
    Price,
)
from bangscore.ingest.resolve.record import (
    ReviewCount,
    count_reviews,
    ranked_tags,
    rated_record,
    tag_positions,
)
from bangscore.ingest.resolve.reviews import corrected, older_share_offset
from bangscore.ingest.resolve.tags import TagPositions
from bangscore.ingest.resolve.unsold import inherit, unsold
from bangscore.scoring.records import (
    GameRecord,
    NotRated,
    NotRatedReason,
)

__all__ = [
    "IngestReport",
    "assemble",
    "prices_as_of",
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
    first (:func:`ranked_tags`, which the length check read)."""

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
    counted = count_reviews(known, appid)
    found = known.get(appid, "price")
    is_non_game = _is_non_game(known, appid, name)
    is_delisted = _is_delisted(known, appid, found)
    price, zero_not_free, free_only = usable_price(known, appid, found, regional_copy)
    length = None
    tags: tuple[str, ...] = ()
    # The length check needs the tags and the reviewers' playtime: only for apps that
    # pass every other check, which keeps the walk over 180k apps fast.
    if not (is_non_game or is_delisted or price is None or counted.total < MIN_REVIEWS):
        tags = ranked_tags(known, appid, typical)
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
    """Given an app ready to rate, return its record (:func:`rated_record`), or None, counted in
    ``report.dropped`` under the field at fault, when a value breaks the record's constraints."""
    try:
        return rated_record(
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
