"""``bangscore ingest``: refresh the catalog from the live sources, never losing the last good one.

The pipeline reads the previous catalog, runs each selected adapter over its games (storefront
first, since the review sampler and the wiki build on its fields) and re-resolves every game an
adapter answered for (:mod:`ingest.live.layers`): the previous record becomes layered observations
again, each answer is one more layer (keyed by appid, dated today), and
:func:`ingest.catalog.assemble` resolves them by the same precedence and cross-checks as the
bundled dumps. So fresh values win, provenance and ``sources`` date them, and a game the fresh
values refuse (no longer a game, no USD price...) moves to ``not_rated``. The new catalog is
written only when the run is complete. Per adapter the outcome is one of:

- ``ok``: every game was tried (a game the source does not know keeps its previous values, and a
  game an earlier adapter refused is skipped);
- ``unreachable``: the very first request could not get through (no network, DNS, refused,
  retries exhausted on 429/5xx, or 401/403): the adapter stops, previous values and dates stay;
- ``failed``: the source went away after some games had succeeded, or every game errored (a
  malformed answer, or values that break a record's constraints, count as errors): the
  run is partial, so the catalog is NOT written (the raw responses already fetched stay cached,
  and a rerun the same day resumes from them);
- ``skipped``: not selected, or not configured (IsThereAnyDeal without an API key).

The new catalog is written when no adapter ``failed`` and at least one was ``ok``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

from tqdm import tqdm

from bangscore.errors import SourceError, SourceUnreachableError
from bangscore.ingest.catalog import read_catalog, write_catalog
from bangscore.ingest.live.adapters import (
    ADAPTER_NAMES,
    ADAPTERS,
    DEFAULT_HOST_LIMIT,
    DEFAULT_RATE_LIMITS,
    Adapter,
    AdapterContext,
    AdapterName,
    AdapterRow,
    BatchAdapter,
    Endpoints,
)
from bangscore.ingest.live.app_list import AppListAdapter
from bangscore.ingest.live.http import ClientSettings, PoliteClient, RateLimit, ResponseCache
from bangscore.ingest.live.layers import (
    LayerObservations,
    live_layer,
    patch_observations,
    resolve_game,
)
from bangscore.ingest.live.store_items import BatchAnswer, batches
from bangscore.ingest.resolve.observations import Layer
from bangscore.scoring.records import Catalog, GameRecord, NotRated, SourceName

Status = Literal["ok", "unreachable", "failed", "skipped"]
# A host that answers these is refusing service as a whole, not failing one game.
_FATAL_STATUSES = frozenset({401, 403, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class IngestConfig:
    """Configuration of a live ingest, passed in by the CLI.

    ``catalog_path``: the catalog read and (when complete) replaced. ``cache_dir``: raw response
    cache root. ``itad_api_key``: IsThereAnyDeal key (None skips that source). ``review_depth``:
    reviews sampled per paid game. Rate limits are per host; timeouts and backoff in seconds.
    """

    catalog_path: Path
    cache_dir: Path
    itad_api_key: str | None = field(default=None, repr=False)
    # A Steam Web API key: with it, IStoreService/GetAppList names the games changed on the
    # store since the last refresh, which then also get the per-game appdetails call.
    steam_api_key: str | None = field(default=None, repr=False)
    review_depth: int = 500
    endpoints: Endpoints = field(default_factory=Endpoints)
    rate_limits: Mapping[str, RateLimit] = field(default_factory=lambda: dict(DEFAULT_RATE_LIMITS))
    default_rate_limit: RateLimit = DEFAULT_HOST_LIMIT
    timeout_seconds: float = 30.0
    retry_attempts: int = 5
    backoff_base_seconds: float = 2.0
    backoff_max_seconds: float = 120.0
    progress: bool = True


@dataclass
class SourceOutcome:
    """What one adapter did in a run: status, games updated / unknown to it / erroring / skipped."""

    adapter: str
    source: SourceName | None
    status: Status = "ok"
    updated: int = 0
    no_data: int = 0
    errors: int = 0
    skipped: int = 0
    message: str = ""


@dataclass
class RefreshReport:
    """Result of :func:`run_ingest`: per-adapter outcomes, whether the catalog was written, why."""

    catalog_path: Path
    games: int
    outcomes: dict[str, SourceOutcome] = field(default_factory=dict)
    written: bool = False
    reason: str = ""
    network_requests: int = 0
    cache_hits: int = 0
    requests_by_host: dict[str, int] = field(default_factory=dict)
    not_rated: Counter[str] = field(default_factory=Counter)

    @property
    def unreachable(self) -> list[str]:
        """Given the report, return the names of adapters whose source could not be reached."""
        return [name for name, o in self.outcomes.items() if o.status == "unreachable"]

    def summary(self) -> str:
        """Given the report, return human-readable lines, unreachable sources named first."""
        lines = []
        if self.unreachable:
            lines.append(
                "could not reach: "
                + "; ".join(f"{n} ({self.outcomes[n].message})" for n in self.unreachable)
            )
            lines.append("  previous values of those sources are kept with their dates")
        for name, o in self.outcomes.items():
            lines.append(
                f"{name:<13} {o.status:<12} updated {o.updated:>6}  no data {o.no_data:>6}  "
                f"errors {o.errors:>5}  skipped {o.skipped:>6}"
                + (f"  {o.message}" if o.message and o.status != "unreachable" else "")
            )
        if self.not_rated:
            reasons = ", ".join(f"{k} {v}" for k, v in self.not_rated.most_common())
            lines.append(f"no longer rated: {sum(self.not_rated.values())} ({reasons})")
        lines.append(f"requests: {self.network_requests} sent, {self.cache_hits} from cache")
        verdict = "written" if self.written else "NOT written (last good catalog kept)"
        lines.append(f"catalog {self.catalog_path}: {verdict}: {self.reason}")
        return "\n".join(lines)


def build_adapters(
    config: IngestConfig, today: dt.date
) -> dict[AdapterName, Adapter | BatchAdapter | None]:
    """Given the configuration, return every adapter of the registry (:data:`ADAPTERS`) by
    name; None where it is not configured (IsThereAnyDeal without a key)."""
    context = AdapterContext(config.endpoints, today, config.review_depth, config.itad_api_key)
    return {row.name: row.make(context) for row in ADAPTERS}


@dataclass
class _Games:
    """The games of one run: the ``previous`` records, the ``current`` ones (re-resolved after
    every answer, so later adapters see fresh values), the ``live`` layers gathered per game,
    and the games a cross-check ``refused`` on the way."""

    previous: Mapping[int, GameRecord]
    current: dict[int, GameRecord]
    live: dict[int, list[LayerObservations]] = field(default_factory=dict)
    refused: dict[int, NotRated] = field(default_factory=dict)
    # The catalog's prices_as_of: a live ingest's prices are as of the ingest time.
    as_of: dt.datetime | None = None

    def answer(self, appid: int, layer_observations: LayerObservations) -> None:
        """Given a game and one adapter's layer for it, re-resolve the game with it.

        Raises ValueError (the layer is not kept) when a value breaks the record's constraints.
        """
        live = [*self.live.get(appid, []), layer_observations]
        resolved = resolve_game(self.previous[appid], live, self.as_of)
        self.live[appid] = live
        if isinstance(resolved, NotRated):
            self.refused[appid] = resolved
        else:
            self.current[appid] = resolved


def _last_refreshed(record: GameRecord, adapter: Adapter) -> dt.date | None:
    """Given a record and an adapter, return the date of the adapter's newest value the record
    holds (its live layer in ``provenance``, the review sample's date), else the date
    ``sources`` gives the adapter's kind; None if neither."""
    if adapter.source is None:
        return record.reviews.sampled_on if record.reviews else None
    name = live_layer(adapter.name, adapter.source, dt.date.min).name
    dates = [p.date for p in record.provenance.values() if p.source == name]
    if dates:
        return max(dates)
    date: dt.date | None = getattr(record.sources, adapter.source)
    return date


def _run_adapter(
    adapter: Adapter,
    client: PoliteClient,
    games: _Games,
    appids: Sequence[int],
    *,
    since: dt.date | None,
    today: dt.date,
    progress: bool,
) -> SourceOutcome:
    outcome = SourceOutcome(adapter.name, adapter.source)
    layer = live_layer(adapter.name, adapter.source, today)
    reached = False
    for appid in tqdm(appids, desc=adapter.name, unit="game", disable=not progress):
        record = games.current[appid]
        last = _last_refreshed(record, adapter)
        if appid in games.refused or (since is not None and last is not None and last >= since):
            outcome.skipped += 1
            continue
        try:
            patch = adapter.fetch(client, record)
            if patch is not None:
                games.answer(appid, (layer, patch_observations(appid, patch)))
        except (SourceUnreachableError, SourceError) as err:
            if isinstance(err, SourceError) and err.status not in _FATAL_STATUSES:
                outcome.errors += 1
                reached = True
                continue
            outcome.status = "failed" if reached else "unreachable"
            outcome.message = str(err)
            return outcome
        except (ValueError, KeyError, TypeError) as err:
            # A malformed answer for one game should not sink the other games of the source.
            outcome.errors += 1
            outcome.message = f"last error: appid {appid}: {type(err).__name__}: {err}"[:300]
            reached = True
            continue
        reached = True
        if patch is None:
            outcome.no_data += 1
            continue
        outcome.updated += 1
    if outcome.errors and not outcome.updated and not outcome.no_data:
        outcome.status = "failed"
    return outcome


def _run_batches(
    adapter: BatchAdapter,
    client: PoliteClient,
    games: _Games,
    appids: Sequence[int],
    *,
    today: dt.date,
    seen_at: dt.datetime,
    progress: bool,
) -> tuple[SourceOutcome, set[int]]:
    """Run one batched adapter over the games in ``batch_size`` calls; return its outcome and
    the apps it left to a per-game call. A call the host refuses stops the adapter as
    :func:`_run_adapter` does (``unreachable`` before any answer, else ``failed``)."""
    outcome = SourceOutcome(adapter.name, adapter.source)
    layer = live_layer(adapter.name, adapter.source, today)
    changed: set[int] = set()
    reached = False
    # Batches over every app, refused or not, so a rerun asks the very same batches and its
    # cache answers them; a refused app's answer is dropped in _apply.
    for batch in tqdm(batches(appids, adapter.batch_size), desc=adapter.name, disable=not progress):
        try:
            answer = adapter.answer_batch(client, [games.current[a] for a in batch], seen_at)
        except (SourceUnreachableError, SourceError) as err:
            outcome.status = "failed" if reached else "unreachable"
            outcome.message = str(err)
            return outcome, changed
        except (ValueError, KeyError, TypeError) as err:
            outcome.errors += len(batch)
            outcome.message = f"last error: batch from {batch[0]}: {type(err).__name__}: {err}"
            reached = True
            continue
        reached = True
        changed |= answer.changed
        _apply(answer, games, layer, outcome)
    if outcome.errors and not outcome.updated and not outcome.no_data:
        outcome.status = "failed"
    return outcome, changed


def _apply(answer: BatchAnswer, games: _Games, layer: Layer, outcome: SourceOutcome) -> None:
    """Re-resolve every game a batch answered for, counting the outcome (a game whose answer
    the adapter refused is an error and keeps its values)."""
    for appid, why in answer.refused.items():
        outcome.errors += 1
        outcome.message = f"last error: appid {appid}: {why}"[:300]
    for appid, patch in answer.patches.items():
        if appid in games.refused:
            outcome.skipped += 1
            continue
        if patch is None:
            outcome.no_data += 1
            continue
        try:
            games.answer(appid, (layer, patch_observations(appid, patch)))
        except ValueError as err:
            outcome.errors += 1
            outcome.message = f"last error: appid {appid}: {err}"[:300]
            continue
        outcome.updated += 1


@dataclass
class _Run:
    """One run's adapters in turn over the same client and games, filling ``report``."""

    client: PoliteClient
    games: _Games
    appids: Sequence[int]
    report: RefreshReport
    since: dt.date | None
    today: dt.date
    progress: bool
    # The apps the per-game storefront adapter asks for: all, until the batch settles others.
    per_game: Sequence[int] = ()
    # The apps the store's app list says changed since the last refresh (per game as well).
    listed_changes: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.per_game = self.appids

    def adapter(self, row: AdapterRow, adapter: Adapter | BatchAdapter | None) -> None:
        """Given an adapter's registry row and the adapter (None: not configured), run it:
        in batches when the row has a batch size, else per game."""
        name = row.name
        if adapter is None:
            self.report.outcomes[name] = SourceOutcome(
                name, "price_history", "skipped", message="no API key configured"
            )
        elif row.batch_size is not None:
            outcome, changed = _run_batches(
                cast(BatchAdapter, adapter),
                self.client,
                self.games,
                self.appids,
                today=self.today,
                seen_at=self.games.as_of or dt.datetime.now(dt.UTC),
                progress=self.progress,
            )
            self.report.outcomes[name] = outcome
            if name == "store_items" and outcome.status == "ok":
                # The batch settled every other app: appdetails only for what changed.
                self.per_game = sorted(changed | self.listed_changes)
        else:
            self.report.outcomes[name] = self._per_game(name, cast(Adapter, adapter))

    def _per_game(self, name: str, adapter: Adapter) -> SourceOutcome:
        batch = self.report.outcomes.get("store_items")
        if name == "storefront" and batch is not None and batch.status != "ok":
            # Per game for every app would take a day; the batch's own status says why.
            return SourceOutcome(
                name, adapter.source, "skipped", message="the batched refresh did not finish"
            )
        return _run_adapter(
            adapter,
            self.client,
            self.games,
            self.per_game if name == "storefront" else self.appids,
            since=self.since,
            today=self.today,
            progress=self.progress,
        )


def _app_list(
    adapter: AppListAdapter, client: PoliteClient, previous: Catalog, appids: Sequence[int]
) -> tuple[SourceOutcome, set[int]]:
    """Ask the store's app list which games changed since the previous catalogue was made;
    return the outcome and the changed games among ``appids``. Unreachable or refusing, it
    changes nothing: the batch still flags what it can."""
    outcome = SourceOutcome(adapter.name, "storefront")
    known = {g.appid for g in previous.games} | {a.appid for a in previous.not_rated}
    try:
        listed = adapter.changes(client, previous.created_at, known)
    except (SourceUnreachableError, SourceError) as err:
        outcome.status, outcome.message = "unreachable", str(err)
        return outcome, set()
    except (ValueError, KeyError, TypeError) as err:
        outcome.status, outcome.message = "failed", f"{type(err).__name__}: {err}"[:300]
        return outcome, set()
    changed = listed.known.intersection(appids)
    outcome.updated = len(changed)
    outcome.message = f"{len(listed.new)} new apps not in the catalogue"
    return outcome, changed


def _finish(
    report: RefreshReport, previous: Catalog, games: _Games, path: Path, now: dt.datetime
) -> None:
    """Write the new catalog when no adapter failed and one was ok; say why in ``report``."""
    statuses = {o.status for o in report.outcomes.values()}
    if "failed" in statuses:
        failed = [n for n, o in report.outcomes.items() if o.status == "failed"]
        report.reason = f"partial ingest ({', '.join(failed)} failed); rerun to resume from cache"
        return
    if "ok" not in statuses:
        report.reason = "no source could be refreshed"
        return
    not_rated = {app.appid: app for app in previous.not_rated} | games.refused
    catalog = Catalog(
        created_at=now,
        origin="live ingest",
        prices_as_of=games.as_of,
        games=tuple(
            games.current[appid] for appid in sorted(games.current) if appid not in not_rated
        ),
        not_rated=tuple(not_rated[appid] for appid in sorted(not_rated)),
    )
    write_catalog(catalog, path)
    report.written = True
    report.not_rated.update(app.reason for app in games.refused.values())
    fresh = [n for n, o in report.outcomes.items() if o.status == "ok"]
    report.reason = f"{report.games} games refreshed from {', '.join(fresh)}"


def run_ingest(
    config: IngestConfig,
    *,
    sources: Sequence[str] | None = None,
    limit: int | None = None,
    since: dt.date | None = None,
    today: dt.date | None = None,
    now: dt.datetime | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> RefreshReport:
    """Given the configuration, refresh the catalog at ``config.catalog_path`` from live sources.

    ``sources``: adapter names to run (default all of :data:`ADAPTER_NAMES`); ``limit``: refresh
    at most the first N games by appid; ``since``: skip a game's source when its data is already
    dated on or after that date (a value of its live layer in ``provenance``, the review
    sample's date, else the date ``sources`` gives its kind). ``today`` dates the fresh values
    and keys the response cache (default: UTC today); ``now`` stamps ``created_at``. ``sleep``
    waits between retries and for rate limits. Returns a :class:`RefreshReport`; the catalog is
    replaced only when complete, with the games fresh values refused added to ``not_rated``.
    Raises ValueError for an unknown source name and CatalogError if there is no previous
    catalog to refresh.
    """
    selected = list(sources) if sources else list(ADAPTER_NAMES)
    unknown = sorted(set(selected) - set(ADAPTER_NAMES))
    if unknown:
        raise ValueError(f"unknown sources {unknown}; known: {', '.join(ADAPTER_NAMES)}")
    day = today or dt.datetime.now(dt.UTC).date()
    previous = read_catalog(config.catalog_path)
    records = {game.appid: game for game in previous.games}
    games = _Games(records, dict(records), as_of=now or dt.datetime.now(dt.UTC))
    appids = sorted(records)[:limit] if limit is not None else sorted(records)
    report = RefreshReport(config.catalog_path, games=len(appids))
    settings = ClientSettings(
        timeout_seconds=config.timeout_seconds,
        attempts=config.retry_attempts,
        backoff_base_seconds=config.backoff_base_seconds,
        backoff_max_seconds=config.backoff_max_seconds,
        rate_limits=config.rate_limits,
        default_rate_limit=config.default_rate_limit,
    )
    adapters = build_adapters(config, day)
    with PoliteClient(settings, ResponseCache(config.cache_dir, day), sleep=sleep) as client:
        run = _Run(client, games, appids, report, since=since, today=day, progress=config.progress)
        if config.steam_api_key and "store_items" in selected:
            lister = AppListAdapter(config.endpoints.steam_api, config.steam_api_key)
            outcome, run.listed_changes = _app_list(lister, client, previous, appids)
            report.outcomes[lister.name] = outcome
        for row in ADAPTERS:
            if row.name in selected:
                run.adapter(row, adapters[row.name])
        report.network_requests = client.network_requests
        report.cache_hits = client.cache_hits
        report.requests_by_host = dict(client.requests_by_host)
    _finish(report, previous, games, config.catalog_path, now or dt.datetime.now(dt.UTC))
    return report
