"""The ``build``, ``ingest`` and ``snapshots`` commands of the command line: the arguments
become :class:`bangscore.build.pipeline.BuildOptions`, the build is
:func:`bangscore.build.pipeline.run_build`, and what it did is printed here.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bangscore.cli.arguments import bounded_int, printable
from bangscore.errors import BangScoreError
from bangscore.manifest import SNAPSHOT_ID  # never a path: no '.', no '/'
from bangscore.settings import Settings

if TYPE_CHECKING:
    from bangscore.build.stage_cache import StageCache
    from bangscore.scoring.records import Catalog


def cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    """Build a snapshot from the catalog (or the bundled dumps) and publish it.

    Any failure leaves the current snapshot as it was and exits 1 with a one-line reason.
    """
    from bangscore.build.licences import read_licences
    from bangscore.build.pipeline import BuildOptions, run_build
    from bangscore.cli.lifetime import hold
    from bangscore.errors import CatalogError, UnscorableGame

    as_of: dt.date | None = args.as_of
    today = dt.datetime.now(dt.UTC).date()
    if as_of is not None and as_of > today:
        print(f"error: --as-of {as_of} is after today ({today}, UTC)", file=sys.stderr)
        return 1
    if as_of is not None and args.catalog is not None:
        # A catalog file keeps each field's winner only, not every dated observation.
        print("error: --as-of builds from the bundled dumps; drop --catalog", file=sys.stderr)
        return 1
    inputs = _inputs(args, settings)
    if args.if_changed and inputs is not None and (current := inputs.current()) is not None:
        print(
            f"snapshot {current} is current: the bundled data, the code, the configured "
            f"addresses and the day it was built from are unchanged ({inputs.stamp}); not built "
            "again (`make build` builds anyway; the server gives it its own address)"
        )
        return 0
    cache, ingest_key, score_key = _stage_cache(args, settings)
    options = BuildOptions(
        load_catalog=lambda: _load_catalog(args.catalog, settings, as_of, cache, ingest_key),
        out=args.out or settings.snapshot_location,
        site_url=settings.site_url,
        base_url=settings.api_base_url,
        export=settings.export,
        keep=settings.keep_snapshots,
        workers=settings.build_workers,
        allow_shrink=args.allow_shrink,
        repair=args.repair,
        progress=True,
        # the bundled sources' licences, for the export's manifest (data/README.md#licences)
        sources=read_licences(settings.data_dir / "README.md"),
        as_of=as_of,
        cache=cache,
        score_key=score_key,
        export_later=args.finish_in_background,
        pages_later=args.finish_in_background,
    )
    try:
        result = run_build(options)
    except (CatalogError, UnscorableGame, BangScoreError, OSError) as exc:
        print(f"error: build failed, the current snapshot is unchanged: {exc}", file=sys.stderr)
        return 1
    hold(result)  # the catalogue and the games, freed by no one: the process exits (lifetime)
    if inputs is not None:
        inputs.record(result.snapshot_id)
    # CPU beside wall: on a busy machine the wall time grows, the CPU time does not
    print("\n".join(result.stages.lines()))
    if cache is not None:
        print(
            f"kept stages ({cache.folder}): reused {', '.join(cache.reused) or 'none'}; "
            f"made {', '.join(cache.made) or 'none'}"
            + (" (kept in the background)" if args.finish_in_background and cache.made else "")
        )
    report = result.publish
    print(
        f"published snapshot {result.snapshot_id} to {result.location}: {result.games} games, "
        f"{report.objects} objects ({report.bytes_total / 1e6:.1f} MB), uploaded "
        f"{report.uploaded}, skipped {report.skipped} unchanged, pruned {len(report.pruned)}, "
        f"collected {result.collected} unreferenced ({result.freed / 1e6:.1f} MB); "
        f"{result.seconds:.1f} s"
    )
    if (counts := result.export_counts) is not None:
        print(
            f"exported {result.games} games to {settings.export}: {counts['added']} added, "
            f"{counts['changed']} changed, {counts['removed']} removed since the previous export"
        )
    if args.finish_in_background:
        from bangscore.cli.background import finish_in_background

        finish_in_background(result, cache, settings)
    return 0


@dataclass(frozen=True)
class _Inputs:
    """A build's input digest, its stamp's path and the snapshot store it publishes to."""

    digest: str
    stamp: Path
    location: str

    def current(self) -> str | None:
        """Return the current snapshot's id if it was built from these inputs and is whole or
        being completed (its games' pages' writer running), else None."""
        from bangscore.cli.background import lock_path, writing
        from bangscore.cli.inputs import current_build
        from bangscore.errors import ObjectStorageError, SnapshotError
        from bangscore.manifest import pages_pending, read_manifest_view
        from bangscore.storage import open_object_storage

        try:
            storage = open_object_storage(self.location)
            found = current_build(self.stamp, self.digest, storage.read_pointer())
            if found is None or not pages_pending(read_manifest_view(storage, found).meta):
                return found
        except (ObjectStorageError, SnapshotError):
            return None
        # Its games' pages still to come: current while their writer runs, else (killed
        # before it wrote them) built again.
        return found if writing(lock_path(self.stamp.parent, found)) else None

    def record(self, snapshot_id: str) -> None:
        """Given the snapshot just published, stamp it with these inputs (best effort: a
        state folder that cannot be written only costs the next run a build)."""
        from bangscore.cli.inputs import write_stamp

        try:
            write_stamp(self.stamp, self.digest, snapshot_id)
        except OSError as exc:
            print(f"warning: could not record the build's inputs: {exc}", file=sys.stderr)


def _inputs(args: argparse.Namespace, settings: Settings) -> _Inputs | None:
    """Given the build's options and settings, return its inputs' digest and stamp: the
    bundled dumps (or the catalog file it reads instead), the package's code, the configured
    addresses (one derived from the host and port is moved at serve time) and the day; None
    if the catalog file cannot be read (the build then says why)."""
    import hashlib

    import bangscore
    from bangscore.cli.inputs import STAMP_NAME, input_digest

    location = args.out or settings.snapshot_location
    baked = {
        "export": str(settings.export),
        "out": location,
        "day": str(args.as_of or dt.datetime.now(dt.UTC).date()),
    }
    # An address that follows the host and port is not an input: the shim moves a snapshot's
    # bodies to the address it serves at (bangscore/shim/readdress.py), so `make run PORT=9001`
    # after `make run` builds nothing. A configured one (a deployment's) is built for.
    if settings.site_url_configured:
        baked["site_url"] = settings.site_url
    if settings.base_url:
        baked["base_url"] = settings.base_url
    folders = {"code": Path(bangscore.__file__).parent}
    catalog = args.catalog or settings.catalog_path
    if args.as_of is None and (args.catalog is not None or catalog.exists()):
        try:
            baked["catalog"] = hashlib.sha256(catalog.read_bytes()).hexdigest()
        except OSError:
            return None
    else:
        folders["data"] = settings.data_dir
    return _Inputs(input_digest(folders, baked), settings.state_dir / STAMP_NAME, location)


def _stage_cache(
    args: argparse.Namespace, settings: Settings
) -> tuple[StageCache | None, str | None, str | None]:
    """Given the build's arguments and settings, return its stage cache and the keys of the
    joined catalogue and of the scores (:func:`bangscore.cli.inputs.stage_keys`); no cache for
    a build ``--as-of`` a day (a one-off) or when the inputs cannot be read (the build says
    why)."""
    import bangscore
    from bangscore.build.stage_cache import StageCache
    from bangscore.cli.inputs import stage_keys

    if args.as_of is not None:
        return None, None, None
    catalog = args.catalog or settings.catalog_path
    try:
        ingest, score = stage_keys(
            Path(bangscore.__file__).parent,
            settings.data_dir,
            catalog if args.catalog is not None or catalog.exists() else None,
        )
    except OSError:
        return None, None, None
    # `make run` keeps the stages in the background, once the snapshot is current.
    folder = settings.state_dir / "cache" / "stages"
    return StageCache(folder, defer=args.finish_in_background), ingest, score


def _load_catalog(
    path: Path | None,
    settings: Settings,
    as_of: dt.date | None = None,
    cache: StageCache | None = None,
    key: str | None = None,
) -> Catalog:
    """Given ``--catalog`` (or None), settings, ``--as-of`` (or None) and the stage cache with
    the joined catalogue's key (or None), return the catalog to build from: the file named,
    else the state folder's catalog if there is one, else the bundled dumps joined (read back
    from the cache when it holds them under ``key``); with ``as_of``, always the bundled dumps
    as that day knew them."""
    from bangscore.ingest.catalog import load_bundled_catalog, read_catalog

    catalog_path = path or settings.catalog_path
    if as_of is None and (path or catalog_path.exists()):
        catalog = read_catalog(catalog_path)
        print(f"catalog: {catalog_path} ({len(catalog.games)} games, {catalog.origin})")
        return catalog

    def join() -> Catalog:
        catalog, report = load_bundled_catalog(
            settings.data_dir, progress=True, as_of=as_of, workers=settings.build_workers
        )
        print(report.summary())
        return catalog

    if cache is None or key is None or as_of is not None:
        return join()
    return cache.get("ingest", key, join)


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Refresh the catalog from the live sources; keep the last good one on any failure.

    Exits 2 for an unknown source name and 1, with a one-line reason, when the catalog (or,
    with none yet, a bundled dump to seed it from) is missing or unreadable."""
    from bangscore.errors import CatalogError

    try:
        return _print_ingest_plan(settings) if args.dry_run else _ingest(args, settings)
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _ingest(args: argparse.Namespace, settings: Settings) -> int:
    from bangscore.ingest.catalog import load_bundled_catalog, write_catalog
    from bangscore.ingest.live.refresh import IngestConfig, run_ingest

    path = settings.catalog_path
    if not path.exists():
        catalog, report = load_bundled_catalog(settings.data_dir, progress=True)
        write_catalog(catalog, path)
        print(f"no catalog at {path} yet: seeded it from the bundled dumps ({report.rated} games)")
    config = IngestConfig(
        catalog_path=path,
        cache_dir=settings.state_dir / "cache",
        itad_api_key=(settings.itad_api_key.get_secret_value() if settings.itad_api_key else None),
        steam_api_key=(
            settings.steam_api_key.get_secret_value() if settings.steam_api_key else None
        ),
        review_depth=settings.review_depth,
    )
    sources = [s.strip() for s in args.sources.split(",")] if args.sources else None
    try:
        result = run_ingest(config, sources=sources, limit=args.limit, since=args.since)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result.summary())
    return 0 if result.written else 1


def _print_ingest_plan(settings: Settings) -> int:
    """Print the plan of a full refresh of the current catalogue; send nothing."""
    from bangscore.ingest.catalog import load_bundled_catalog
    from bangscore.ingest.catalog_file import count_games
    from bangscore.ingest.live.adapters import DEFAULT_HOST_LIMIT, DEFAULT_RATE_LIMITS, Endpoints
    from bangscore.ingest.live.plan import plan_refresh

    # The plan needs the catalogue's size only (issue 48: reading it whole took 22 s).
    path = settings.catalog_path
    built = None if path.exists() else _snapshot_games(settings.snapshot_location)
    if path.exists():
        games = count_games(path)
    elif built is not None:
        print(f"no catalog at {path} yet: planning for the current snapshot's {built:,} games")
        games = built
    else:
        print(f"no catalog at {path} yet: planning for the bundled dumps' catalogue")
        games = len(load_bundled_catalog(settings.data_dir, progress=True)[0].games)
    plan = plan_refresh(
        games,
        Endpoints(),
        DEFAULT_RATE_LIMITS,
        DEFAULT_HOST_LIMIT,
        itad=settings.itad_api_key is not None,
        app_list=settings.steam_api_key is not None,
    )
    print(plan.render())
    return 0


def _snapshot_games(location: str) -> int | None:
    """Given the snapshot store, return the number of games of its current snapshot (built
    from the bundled dumps when no catalog file exists), or None without a readable one."""
    from bangscore.errors import ObjectStorageError, SnapshotError
    from bangscore.manifest import read_manifest_view
    from bangscore.storage import open_object_storage

    try:
        storage = open_object_storage(location)
        pointer = storage.read_pointer()
        games = read_manifest_view(storage, pointer).meta.get("games") if pointer else None
    except (SnapshotError, ObjectStorageError):
        return None
    return games if isinstance(games, int) and games > 0 else None


def cmd_snapshots(args: argparse.Namespace, settings: Settings) -> int:
    """List, roll back to or verify snapshots, or delete unreferenced objects (gc)."""
    from bangscore.build.publish import collect_garbage, rollback, verify
    from bangscore.errors import SnapshotError
    from bangscore.manifest import list_snapshots, read_manifest
    from bangscore.storage import open_object_storage

    snapshot_id = getattr(args, "id", None)
    if snapshot_id is not None and not SNAPSHOT_ID.fullmatch(snapshot_id):
        print(f"error: {printable(snapshot_id[:80])!s} is not a snapshot id", file=sys.stderr)
        return 1
    storage = open_object_storage(args.snapshot or settings.snapshot_location)
    try:
        if args.action == "gc":
            count, freed = collect_garbage(storage, grace_seconds=args.grace_hours * 3600)
            print(f"deleted {count} unreferenced objects ({freed / 1e6:.1f} MB)")
            return 0
        if args.action == "list":
            current = storage.read_pointer()
            found = list_snapshots(storage)
            if not found:
                where = args.snapshot or settings.snapshot_location
                print(f"no snapshots in {where}: `bangscore build` publishes one")
            for sid in found:
                m = read_manifest(storage, sid)
                mark = "*" if sid == current else " "
                # Stored as the build reports it (the gzip form where there is one), and the
                # bodies' own size beside it (issue 48: 1,261.8 MB here, 318.5 MB in the build).
                stored = sum(
                    e.encodings[0].size if e.encodings else e.size for e in m.entries.values()
                )
                size = sum(e.size for e in m.entries.values())
                print(
                    f"{mark} {sid}  {m.created_at:%Y-%m-%d %H:%M:%S}  "
                    f"{m.meta.get('games', '?')} games  {len(m.entries)} objects  "
                    f"{stored / 1e6:.1f} MB stored ({size / 1e6:.1f} MB uncompressed)"
                )
            return 0
        if args.action == "rollback":
            previous = rollback(storage, args.id)
            print(f"current is now {args.id} (was {previous})")
            return 0
        report = verify(storage, args.id, progress=True)
        print(
            f"{report.snapshot_id}: {report.checked:,} objects checked, "
            f"{len(report.missing)} missing, {len(report.corrupt)} corrupt "
            f"({report.bodies:,} stored bodies read: objects with the same bytes share one, "
            "and a gzip form is one more)"
        )
        for key in report.missing[:20]:
            print(f"missing: {key}")
        for key in report.corrupt[:20]:
            print(f"corrupt: {key}")
        return 0 if report.ok else 1
    except SnapshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _day(text: str) -> dt.date:
    """Given ``--as-of``'s text, return the day; ArgumentTypeError (argparse's exit 2 with
    the reason) unless it is a real ``YYYY-MM-DD`` date."""
    try:
        if len(text) == 10:  # fromisoformat alone also takes 20260624 and week dates
            return dt.date.fromisoformat(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{printable(text[:40])} is not a YYYY-MM-DD day")


def add_parsers(sub: Any) -> None:
    """Given the top-level subparsers, add ``build``, ``ingest`` and ``snapshots``."""
    p = sub.add_parser("build", help="score the catalog and publish a snapshot")
    p.add_argument("--out", help="snapshot store: folder or s3://bucket/prefix")
    p.add_argument("--export", help="Bulk export store: folder or s3://bucket/prefix")
    p.add_argument("--catalog", type=Path, help="catalog file from `bangscore ingest`")
    p.add_argument("--site-url", help="the website's base URL baked into the snapshot")
    p.add_argument(
        "--as-of",
        type=_day,
        metavar="YYYY-MM-DD",
        help="build the snapshot as that day (UTC) knew it, from the bundled dumps: only "
        "observations dated on or before it (default: today)",
    )
    p.add_argument(
        "--allow-shrink",
        action="store_true",
        help="publish even if the build rates over 20%% fewer games than the current snapshot",
    )
    p.add_argument(
        "--repair",
        action="store_true",
        help="re-hash every reused object and upload again any whose bytes are wrong",
    )
    p.add_argument(
        "--if-changed",
        action="store_true",
        help="skip the build while the current snapshot was built from the same bundled data, "
        "code, addresses and day (`make run` passes it)",
    )
    p.add_argument(
        "--finish-in-background",
        action="store_true",
        help="publish the snapshot without the games' web pages and badges, then write them, "
        "the Bulk export and the kept stages in a background process (its log: <state dir>/"
        "background.log), so serving need not wait for them (`make run` passes it)",
    )
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("ingest", help="refresh the catalog from the live sources")
    p.add_argument("--sources", help="comma-separated adapters (default: all)")
    p.add_argument(
        "--limit", type=bounded_int(1, 10_000_000), help="refresh at most the first N games"
    )
    p.add_argument(
        "--since",
        type=dt.date.fromisoformat,
        help="skip a game's source when its data is dated on or after DATE (YYYY-MM-DD)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the requests per host of a full refresh and its least time; send nothing",
    )
    p.set_defaults(func=cmd_ingest)

    snaps = sub.add_parser("snapshots", help="list, roll back or verify snapshots")
    snaps.add_argument("--snapshot", help="snapshot store: folder or s3://bucket/prefix")
    ssub = snaps.add_subparsers(dest="action", required=True)
    ssub.add_parser("list", help="list snapshots (* marks the current one)")
    ssub.add_parser("rollback", help="make an older snapshot current").add_argument("id")
    ssub.add_parser("verify", help="check every object's digest").add_argument("id")
    ssub.add_parser(
        "gc", help="delete objects no snapshot references (older than the grace period)"
    ).add_argument(
        "--grace-hours",
        type=bounded_int(0, 24 * 365),
        default=24,
        help="keep unreferenced objects younger than this, for a build still publishing "
        "(0-8760, default 24)",
    )
    snaps.set_defaults(func=cmd_snapshots)
