"""One build, top to bottom (docs/API.md#snapshots): load the catalogue, check it, score it,
guard against a shrinking catalogue, render every object, publish them under a new snapshot id
(the ``current`` pointer moved last), collect the garbage of killed builds, and write the Bulk
export. :func:`run_build` is the whole of it; ``bangscore build`` only turns its arguments and
settings into :class:`BuildOptions` and prints the :class:`BuildResult`.

Any failure raises before the pointer moves, so the current snapshot stays as it was:
CatalogRefused (a catalogue that must not be published), ObjectStorageError, the catalogue
loader's own errors and the scoring's UnscorableGame pass through to the caller.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bangscore.build.export import write_export
from bangscore.build.game_pages import LaterPages
from bangscore.build.guard import check_catalog, check_shrink
from bangscore.build.heap import long_lived
from bangscore.build.publish import (
    GC_GRACE_SECONDS,
    PublishReport,
    collect_garbage,
    complete_pages,
    new_snapshot_id,
    publish,
)
from bangscore.build.push_state import read_push_state
from bangscore.build.score_history import read_score_history
from bangscore.build.snapshot import snapshot_objects
from bangscore.build.stage_cache import StageCache
from bangscore.build.stages import StageClock, children_cpu
from bangscore.contract.export import SourceLicence
from bangscore.contract.objects import detail_key
from bangscore.errors import SnapshotError
from bangscore.manifest import PAGES_PENDING, read_manifest
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.records import Catalog
from bangscore.storage import ObjectStorage, StoredObject, open_object_storage


@dataclass(frozen=True)
class BuildOptions:
    """What one build needs.

    ``load_catalog`` returns the catalogue to publish (the command line reads a catalogue file
    or joins the bundled dumps); ``out`` and ``export`` are store locations (a folder or
    ``s3://bucket/prefix``; no export when None); ``site_url`` and ``base_url`` are baked into
    every object; ``keep`` snapshots (and exports) stay for rollback; ``workers`` render in
    parallel; ``allow_shrink`` publishes a catalogue rating over 20% fewer games than the
    current snapshot; ``repair`` re-hashes every reused object; ``progress`` shows bars;
    ``sources`` are the bundled sources' licences the export's manifest names
    (:func:`bangscore.build.licences.read_licences`); ``as_of`` is the snapshot's day (None:
    today, UTC), which the manifest and ``GET /api/v1`` record and the forecast starts from
    (``load_catalog`` must then hold only what was observed on or before it). With a
    ``cache`` and a ``score_key`` (a digest of the catalogue and the scoring code), the scored
    games are kept and read back by the next build with the same key
    (:mod:`bangscore.build.stage_cache`). With ``export_later``, the build does not write the
    export: :attr:`BuildResult.pending_export` does, when its caller runs it (``bangscore
    build --finish-in-background`` runs it in a forked process once the snapshot is current).
    With ``pages_later``, the snapshot is published without its games' pages and badges (its
    manifest's meta ``pages`` says ``"pending"``) and :attr:`BuildResult.pending_pages` writes
    them into it (:func:`bangscore.build.publish.complete_pages`).
    """

    load_catalog: Callable[[], Catalog]
    out: str
    site_url: str
    base_url: str
    export: str | None = None
    keep: int = 7
    workers: int = 1
    allow_shrink: bool = False
    repair: bool = False
    progress: bool = False
    sources: tuple[SourceLicence, ...] = ()
    as_of: dt.date | None = None
    cache: StageCache | None = None
    score_key: str | None = None
    export_later: bool = False
    pages_later: bool = False


@dataclass(frozen=True)
class BuildResult:
    """What a build did: the snapshot published (``publish``) to ``location`` with ``games``
    rated games, the garbage ``collected`` (objects) and ``freed`` (bytes), the export's change
    counts (``added``, ``changed``, ``removed``; None without an export, or with the export
    left to ``pending_export``: the call that writes it and returns its counts, given with
    :attr:`BuildOptions.export_later`), wall ``seconds`` and the time of each stage
    (:mod:`bangscore.build.stages`). With :attr:`BuildOptions.pages_later`, ``pending_pages``
    writes the games' pages and badges into the published snapshot and returns how many."""

    location: str
    games: int
    publish: PublishReport
    collected: int
    freed: int
    export_counts: dict[str, int] | None
    seconds: float
    stages: StageClock
    pending_export: Callable[[], dict[str, int]] | None = None
    pending_pages: Callable[[], int] | None = None

    @property
    def snapshot_id(self) -> str:
        """Return the id of the snapshot the build published."""
        return self.publish.snapshot_id


def run_build(options: BuildOptions) -> BuildResult:
    """Given build options, build and publish one snapshot (and the Bulk export when asked);
    return what was done. Raises as the module says, leaving the current snapshot as it was."""
    started = time.perf_counter()
    clock = StageClock()
    # The catalog and its scored games live until the build ends and hold no cycles: the
    # collector is paused while they are built and skips them after (bangscore.build.heap).
    with long_lived() as loaded:
        with clock.stage("ingest", children=True):  # the dumps' readers, reaped
            catalog = options.load_catalog()
            check_catalog(catalog.games)
        with clock.stage("score"):
            games = score(options, catalog)
        loaded()  # what the rest of the build renders from: frozen out of collections
        now = dt.datetime.now(dt.UTC)
        day = options.as_of or now.date()
        storage = open_object_storage(options.out)
        before, before_objects = current_counts(storage)
        check_shrink(len(games), before, allow_shrink=options.allow_shrink)
        # The export reuses the snapshot's detail records (each game's computed once a build).
        details = DetailRecords(games) if options.export is not None else None
        snapshot_id = new_snapshot_id(now)
        later = LaterPages() if options.pages_later else None
        objects = snapshot_objects(
            games,
            # each game's dated score and price at every earlier snapshot where either changed
            score_history=read_score_history(storage),
            # what changed since the current snapshot: the feeds and the change feed
            snapshot_id=snapshot_id,
            push_state=read_push_state(storage),
            site_url=options.site_url,
            base_url=options.base_url,
            not_rated=catalog.not_rated,
            created_at=now,
            prices_as_of=catalog.prices_as_of,
            workers=options.workers,
            as_of=day,
            later=later,
        )
        meta: dict[str, Any] = {
            "games": len(games),
            "as_of": day.isoformat(),
            "catalog": {"origin": catalog.origin, "created_at": catalog.created_at.isoformat()},
            "site_url": options.site_url,
            "base_url": options.base_url,
        }
        total = expected_objects(len(games), before_objects)
        if later is not None:
            meta[PAGES_PENDING] = "pending"
            total -= 2 * len(games)  # a page and a badge a game, written after
        # Rendering runs inside the publish (a generator it consumes), its workers' CPU
        # counted as they are reaped; the publish's own time is what is left (stages.py).
        rendered = clock.timed("render", objects)
        workers_cpu = children_cpu()
        with clock.stage("publish"):
            report = publish(
                storage,
                snapshot_id,
                details.keep(rendered) if details is not None else rendered,
                created_at=now,
                meta=meta,
                keep=options.keep,
                progress=options.progress,
                repair=options.repair,
                stages=clock,
                total=total,
            )
            collected, freed = collect_garbage(
                storage,
                grace_seconds=GC_GRACE_SECONDS,
                known={report.snapshot_id: report.referenced},
            )
        clock.take("publish", "render")
        clock.take("publish", "compress")
        clock.add("render", 0.0, children_cpu() - workers_cpu)  # the renderers, reaped
    # After the pointer moved, so only a published build exports.
    export = None
    if options.export is not None and details is not None:
        records = details

        def export() -> dict[str, int]:
            return write_bulk_export(
                options, games, catalog, records, clock, (report.snapshot_id, now, day)
            )

    counts = export() if export is not None and not options.export_later else None
    pages = None
    if later is not None:
        pending = later

        def pages() -> int:
            return complete_pages(
                storage,
                report.snapshot_id,
                pending.objects(options.workers),
                progress=options.progress,
                total=len(pending),
            )

    return BuildResult(
        location=options.out,
        games=len(games),
        publish=report,
        collected=collected,
        freed=freed,
        export_counts=counts,
        seconds=time.perf_counter() - started,
        stages=clock,
        pending_export=export if options.export_later else None,
        pending_pages=pages,
    )


def write_bulk_export(
    options: BuildOptions,
    games: Sequence[ScoredGame],
    catalog: Catalog,
    details: DetailRecords,
    clock: StageClock,
    published: tuple[str, dt.datetime, dt.date],
) -> dict[str, int]:
    """Given a build's options (with an export store), its scored games and catalogue, the
    detail records kept on their way to the snapshot, its stage clock and the snapshot it
    published (id, build time, day), write the Bulk export (counted to the clock's ``export``
    stage); return its change counts."""
    snapshot_id, created_at, day = published
    assert options.export is not None, "an export store is named"
    if options.progress:  # one step with no count to show: say what it does meanwhile
        print(
            f"export: writing the Bulk export of {len(games)} games to {options.export} "
            "(JSON lines, CSV, Parquet: under a minute)",
            file=sys.stderr,
            flush=True,
        )
    with clock.stage("export"):
        return write_export(
            open_object_storage(options.export),
            games,
            snapshot_id=snapshot_id,
            created_at=created_at,
            site_url=options.site_url,
            keep=options.keep,
            prices_as_of=catalog.prices_as_of,
            base_url=options.base_url,
            sources=options.sources,
            details=details.bodies(),
            as_of=day,
        ).counts


def score(options: BuildOptions, catalog: Catalog) -> list[ScoredGame]:
    """Given the build's options and its catalogue, return the scored games: read back from
    the stage cache when it holds them under the options' ``score_key``, else computed."""

    def make() -> list[ScoredGame]:
        return score_catalog(catalog.games, progress=options.progress)

    if options.cache is None or options.score_key is None:
        return make()
    return options.cache.get("score", options.score_key, make)


class DetailRecords:
    """The games' detail records as the snapshot stores them, kept as they stream past on
    their way to :func:`publish`: the Bulk export's records, computed once a build.

    Kept end to end in one growing buffer, not as 40,000 separate bytes objects: those would
    sit scattered among the publish's short-lived pages and keep the heap from shrinking (a
    build's peak resident memory rose by 1.1 GB so).
    """

    def __init__(self, games: Sequence[ScoredGame]) -> None:
        self._position = {detail_key(g.record.appid): n for n, g in enumerate(games)}
        self._spans: list[tuple[int, int] | None] = [None] * len(games)
        self._buffer = bytearray()

    def keep(self, objects: Iterable[StoredObject]) -> Iterator[StoredObject]:
        """Given a snapshot's objects, yield them unchanged, keeping each detail record's body."""
        for obj in objects:
            n = self._position.get(obj.key)
            if n is not None:
                start = len(self._buffer)
                self._buffer += obj.body
                self._spans[n] = (start, len(self._buffer))
            yield obj

    def bodies(self) -> list[bytes]:
        """Return every game's detail record (JSON bytes) in list order, letting the buffer
        go; ValueError if the snapshot did not carry one of them."""
        missing = [key for key, n in self._position.items() if self._spans[n] is None]
        if missing:
            raise ValueError(f"the snapshot carried no detail record under {missing[:3]}")
        view, self._buffer = memoryview(self._buffer), bytearray()
        with view:
            return [bytes(view[span[0] : span[1]]) for span in self._spans if span is not None]


def current_games(storage: ObjectStorage) -> int | None:
    """Given a snapshot store, return the current snapshot's game count (None: none yet, or a
    manifest that cannot be read, which the build then replaces)."""
    return current_counts(storage)[0]


def current_counts(storage: ObjectStorage) -> tuple[int | None, int | None]:
    """Given a snapshot store, return the current snapshot's (games, objects), each None when
    there is none yet or its manifest cannot be read (the build then replaces it)."""
    current = storage.read_pointer()
    if current is None:
        return None, None
    try:
        manifest = read_manifest(storage, current)
    except SnapshotError:
        return None, None
    games: Any = manifest.meta.get("games")
    return (games if isinstance(games, int) else None), len(manifest.entries)


# Objects per game on a first build, for the publish bar's total: 138,428 objects of 40,796
# games in the real catalogue's build (3 a game, its detail, page and badge, and the lists'
# pages and the feeds); a rebuild takes the current snapshot's count instead.
OBJECTS_PER_GAME = 3.4


def expected_objects(games: int, current: int | None) -> int:
    """Given the games to publish and the current snapshot's object count (None: none), return
    about how many objects the snapshot will hold (the publish bar's total)."""
    return current if current is not None else round(OBJECTS_PER_GAME * games)
