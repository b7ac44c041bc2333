"""The ``bangscore`` command line: build, serve, keys, snapshots, ingest, watch, alerts.

Configuration enters here once (:class:`bangscore.settings.Settings`, environment variables
prefixed ``BANGSCORE_``), with command-line options overriding it; everything below receives
typed values.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr, ValidationError
from starlette.applications import Starlette

from bangscore.errors import BangScoreError
from bangscore.settings import Settings
from bangscore.stores import open_key_store
from bangscore.stores.keys import redact
from bangscore.stores.keystore import KeyStore, KeyStoreError, KeyStoreUnavailable, issue_key

if TYPE_CHECKING:
    from email.message import EmailMessage

    from bangscore.shim.account.watches import WatchOptions
    from bangscore.shim.downloads import ExportService

log = logging.getLogger("bangscore")
GIL_SWITCH_SECONDS = 0.001  # see asgi_app
SNAPSHOT_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,63}")  # never a path: no '.', no '/'


def _log_safe(text: str) -> str:
    """Given a request's text (a path and query), return it fit for a quoted log field:
    ``"``, ``\\`` and control characters percent-encoded, so a line cannot be forged."""
    return "".join(
        f"%{ord(c):02X}" if c in '"\\' or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 else c
        for c in text
    )


class RedactKeys(logging.Filter):
    """A logging filter that replaces API keys in messages and arguments by their key id, and
    escapes the request fields of access-log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            escape = _log_safe if record.name == "uvicorn.access" else (lambda a: a)
            record.args = tuple(escape(redact(a)) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


def app_from_settings(settings: Settings) -> Starlette:
    """Given settings, return the ASGI app wired to its snapshot store and key store."""
    from bangscore.shim.app import create_app
    from bangscore.shim.quota import Quota
    from bangscore.shim.source import SnapshotSource
    from bangscore.storage import open_object_storage

    source = SnapshotSource(
        open_object_storage(settings.snapshot_location),
        cache_bytes=settings.cache_bytes,
        poll_seconds=settings.pointer_poll_seconds,
    )
    # One worker is the SQLite file's only counting process: it may lease blocks of quota.
    # `serve` never creates a key store: `keys create` (and so `make run`) does.
    store = open_key_store(settings.store_url, create=False, lease=settings.workers == 1)
    quota = Quota(
        store,
        anonymous_limit=settings.anonymous_daily_limit,
        page_limit=settings.page_daily_limit,
        key_cache_seconds=settings.key_cache_seconds,
    )
    from bangscore.stores.secret import load_session_secret

    session_secret = load_session_secret(settings.session_secret, settings.state_dir, create=False)
    return create_app(
        settings,
        source,
        quota,
        session_secret=session_secret,
        export=_export_service(settings, session_secret),
        watches=_watch_options(settings),
        freeze_heap=True,
    )


def _watch_options(settings: Settings) -> WatchOptions:
    # The watch pages share the key store's database; confirmation emails go out through the
    # configured SMTP server at once (without one, `alerts send` sends them).
    from bangscore.mail import SMTPServer, send_one
    from bangscore.shim.account.watches import WatchOptions
    from bangscore.stores import open_watch_store

    send_mail = None
    if settings.smtp_url is not None:
        server = SMTPServer.from_url(settings.smtp_url.get_secret_value())

        def send_mail(message: EmailMessage) -> None:
            send_one(server, message)

    store = open_watch_store(settings.store_url, create=False)
    return WatchOptions(store, send_mail, settings.mail_from)


def _export_service(settings: Settings, secret: str) -> ExportService | None:
    # The Bulk export. A local folder cannot presign: the shim signs its own links with
    # the session secret (under its own salt), which every replica already shares.
    if settings.export is None:
        return None
    from bangscore.shim.downloads import ExportService, LocalLinks
    from bangscore.storage import open_object_storage

    storage = open_object_storage(settings.export)
    local = not settings.export.startswith("s3://")
    links = LocalLinks(secret, settings.api_base_url) if local else None
    return ExportService(storage, links=links, link_seconds=settings.export_link_seconds)


def _open_store(settings: Settings, *, create: bool) -> KeyStore:
    """Given settings, open their key store. ``create``: a SQLite file may be created; without
    it a missing one raises KeyStoreMissing (a mistyped path must not look like an empty store).
    """
    return open_key_store(settings.store_url, create=create)


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """Given inclusive bounds, return an argparse ``type`` that accepts decimal integers in
    them (checking the length first, so a 5,000-digit value is refused, not converted)."""

    def parse(raw: str) -> int:
        text = raw.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)):
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}")
        return value

    return parse


def asgi_app() -> Starlette:
    """Return the app configured from the environment: the factory uvicorn workers call.

    Searches run on worker threads (CPU work, off the event loop); a thread keeps the GIL for
    up to the switch interval, so each serving process takes a shorter one than Python's 5 ms:
    the loop gets the GIL back sooner and other requests stay quick while someone sends costly
    queries.
    """
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    return app_from_settings(Settings())


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        name: getattr(args, name)
        for name in (
            *("state_dir", "snapshot", "store", "site_url", "host", "port", "workers"),
            *("export", "forwarded_allow_ips"),
        )
        if getattr(args, name, None) is not None
    }
    return Settings(**overrides)


# -- build ------------------------------------------------------------------------------------


def cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    """Build a snapshot from the catalog (or the bundled dumps) and publish it.

    Any failure leaves the current snapshot as it was and exits 1 with a one-line reason.
    """
    from bangscore.ingest.catalog import CatalogError
    from bangscore.scoring.pipeline import UnscorableGame

    try:
        return _build(args, settings)
    except (CatalogError, UnscorableGame, BangScoreError, OSError) as exc:
        print(f"error: build failed, the current snapshot is unchanged: {exc}", file=sys.stderr)
        return 1


def _build(args: argparse.Namespace, settings: Settings) -> int:
    from bangscore.build.guard import check_catalog, check_shrink
    from bangscore.build.heap import long_lived
    from bangscore.build.publish import GC_GRACE_SECONDS, collect_garbage, new_snapshot_id, publish
    from bangscore.build.snapshot import snapshot_objects
    from bangscore.ingest.catalog import load_bundled_catalog, read_catalog
    from bangscore.scoring.pipeline import score_catalog
    from bangscore.storage import open_object_storage

    started = time.perf_counter()
    # The catalog and its scored games live until the build ends and hold no cycles: the
    # collector is paused while they are built and skips them after (bangscore.build.heap).
    with long_lived() as loaded:
        catalog_path: Path = args.catalog or settings.catalog_path
        if args.catalog or catalog_path.exists():
            catalog = read_catalog(catalog_path)
            print(f"catalog: {catalog_path} ({len(catalog.games)} games, {catalog.origin})")
        else:
            catalog, report = load_bundled_catalog(settings.data_dir, progress=True)
            print(report.summary())
        check_catalog(catalog.games)
        games = score_catalog(catalog.games, progress=True)
        loaded()  # what the rest of the build renders from: frozen out of collections
        now = dt.datetime.now(dt.UTC)
        snapshot_id = new_snapshot_id(now)
        location = args.out or settings.snapshot_location
        storage = open_object_storage(location)
        check_shrink(len(games), _current_games(storage), allow_shrink=args.allow_shrink)
        objects = snapshot_objects(
            games,
            site_url=settings.site_url,
            base_url=settings.api_base_url,
            not_rated=catalog.not_rated,
            created_at=now,
            prices_as_of=catalog.prices_as_of,
            workers=settings.build_workers,
        )
        meta = {
            "games": len(games),
            "catalog": {"origin": catalog.origin, "created_at": catalog.created_at.isoformat()},
            "site_url": settings.site_url,
            "base_url": settings.api_base_url,
        }
        result = publish(
            storage,
            snapshot_id,
            objects,
            created_at=now,
            meta=meta,
            keep=settings.keep_snapshots,
            progress=True,
            repair=args.repair,
        )
        collected, freed = collect_garbage(storage, grace_seconds=GC_GRACE_SECONDS)
        print(
            f"published snapshot {result.snapshot_id} to {location}: {len(games)} games, "
            f"{result.objects} objects ({result.bytes_total / 1e6:.1f} MB), uploaded "
            f"{result.uploaded}, skipped {result.skipped} unchanged, pruned {len(result.pruned)}, "
            f"collected {collected} unreferenced ({freed / 1e6:.1f} MB); "
            f"{time.perf_counter() - started:.1f} s"
        )
    if settings.export is not None:
        _export(settings, games, snapshot_id, now, catalog.prices_as_of)
    return 0


def _current_games(storage: Any) -> int | None:
    """Given a snapshot store, return the current snapshot's game count (None: none yet)."""
    from bangscore.manifest import SnapshotError, read_manifest

    current = storage.read_pointer()
    if current is None:
        return None
    try:
        games = read_manifest(storage, current).meta.get("games")
    except SnapshotError:
        return None
    return games if isinstance(games, int) else None


def _export(
    settings: Settings,
    games: list[Any],
    snapshot_id: str,
    now: dt.datetime,
    prices_as_of: dt.datetime | None,
) -> None:
    # The Bulk export: after the pointer moved, so only a published build exports.
    from bangscore.build.export import write_export
    from bangscore.storage import open_object_storage

    assert settings.export is not None
    export = write_export(
        open_object_storage(settings.export),
        games,
        snapshot_id=snapshot_id,
        created_at=now,
        site_url=settings.site_url,
        keep=settings.keep_snapshots,
        prices_as_of=prices_as_of,
    )
    counts = export.counts
    print(
        f"exported {len(games)} games to {settings.export}: {counts['added']} added, "
        f"{counts['changed']} changed, {counts['removed']} removed since the previous export"
    )


# -- ingest -----------------------------------------------------------------------------------


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Refresh the catalog from the live sources; keep the last good one on any failure."""
    from bangscore.ingest.catalog import load_bundled_catalog, write_catalog
    from bangscore.ingest.refresh import IngestConfig, run_ingest

    path = settings.catalog_path
    if not path.exists():
        catalog, report = load_bundled_catalog(settings.data_dir, progress=True)
        write_catalog(catalog, path)
        print(f"no catalog at {path} yet: seeded it from the bundled dumps ({report.rated} games)")
    config = IngestConfig(
        catalog_path=path,
        cache_dir=settings.state_dir / "cache",
        itad_api_key=(settings.itad_api_key.get_secret_value() if settings.itad_api_key else None),
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


# -- serve ------------------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the current snapshot with uvicorn, behind the bounded request-head protocol.

    A configured key store that does not exist yet is refused (exit 1) before the server
    starts; the default store under the state folder is created. No proxy is trusted unless
    ``forwarded_allow_ips`` names it.
    """
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from bangscore.shim.protocol import BoundedProtocols, HeadLimits
    from bangscore.stores.secret import load_session_secret

    # Never created here: a state folder removed under a running server must not come back
    # empty on restart (every key 401, every account gone); `keys create` creates both.
    _open_store(settings, create=False).close()
    load_session_secret(settings.session_secret, settings.state_dir, create=False)
    limits = HeadLimits(
        max_line=settings.max_request_line,
        max_field=settings.max_header_field,
        max_head=settings.max_request_head,
        head_seconds=settings.head_timeout_seconds,
        max_headers=settings.max_header_count,
        body_seconds=settings.body_timeout_seconds,
        max_client_connections=settings.max_client_connections,
        exempt=frozenset(a.strip() for a in settings.forwarded_allow_ips.split(",") if a.strip()),
    )

    # Workers are separate processes that read Settings() themselves: hand them the overrides.
    for name, value in settings.model_dump(exclude_none=True).items():
        secret = value.get_secret_value() if isinstance(value, SecretStr) else value
        os.environ[f"BANGSCORE_{name.upper()}"] = str(secret)
    log_config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    log_config["filters"] = {"redact": {"()": "bangscore.cli.RedactKeys"}}
    for handler in log_config["handlers"].values():
        handler["filters"] = ["redact"]
    uvicorn.run(
        "bangscore.cli:asgi_app",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        server_header=False,
        http=BoundedProtocols(limits),  # type: ignore[arg-type]  # a protocol factory
        timeout_keep_alive=settings.keep_alive_seconds,
        proxy_headers=bool(settings.forwarded_allow_ips.strip()),
        forwarded_allow_ips=settings.forwarded_allow_ips.strip() or None,
        log_config=log_config,
        access_log=not args.quiet,
    )
    return 0


# -- keys -------------------------------------------------------------------------------------


def cmd_keys_create(args: argparse.Namespace, settings: Settings) -> int:
    """Create a key and print it once, alone on the last line (the store is created if
    it does not exist yet: creating keys is what starts one)."""
    from bangscore.stores.addresses import normalize_email

    account = normalize_email(args.account)
    if account is None:
        print(
            f"error: --account must be an email address, not {_printable(args.account[:80])}",
            file=sys.stderr,
        )
        return 2
    from bangscore.stores.secret import load_session_secret

    try:
        store = _open_store(settings, create=True)
        load_session_secret(settings.session_secret, settings.state_dir)
        key, record = issue_key(store, account, args.plan, args.limit, int(time.time()))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"created key {record.key_id} for {record.account}: plan {record.plan}, "
        f"{record.daily_limit}/day"
    )
    print("the key is shown only once; store it now:")
    print(key)
    return 0


def cmd_keys_revoke(args: argparse.Namespace, settings: Settings) -> int:
    """Revoke a key by its id."""
    from bangscore.stores.keystore import UnknownKey

    try:
        record = _open_store(settings, create=False).revoke_key(args.key_id)
    except UnknownKey:
        print(f"error: no key with id {args.key_id}", file=sys.stderr)
        return 1
    print(f"revoked key {record.key_id} ({record.account})")
    return 0


def _printable(text: str) -> str:
    """Given text from the store (an email, typed by anyone), return it safe for a terminal:
    control characters and escapes shown as ``\\xNN`` instead of acting on the terminal."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _when(ts: int | None) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M") if ts else "never"


def cmd_keys_list(args: argparse.Namespace, settings: Settings) -> int:
    """List keys: id, account, plan, limit, state, created, last used, today's count."""
    today = dt.datetime.now(dt.UTC).date()
    views = _open_store(settings, create=False).list_keys(today, args.account)
    print(
        f"{'id':<9} {'account':<28} {'plan':<5} {'limit':>7} {'state':<8} "
        f"{'created':<17} {'last used':<17} {'today':>6}"
    )
    for v in views:
        r = v.record
        print(
            f"{r.key_id:<9} {_printable(r.account):<28} {r.plan:<5} {r.daily_limit:>7} "
            f"{r.state:<8} {_when(r.created_at):<17} {_when(v.last_used):<17} {v.today:>6}"
        )
    return 0


# -- usage ------------------------------------------------------------------------------------


def cmd_usage_report(args: argparse.Namespace, settings: Settings) -> int:
    """Print accounts whose keys together exceed one key's plan limit on a UTC day (term 4)."""
    from bangscore.usage import (
        abuse_report,
        format_network_report,
        format_report,
        network_report,
    )

    try:
        day = dt.date.fromisoformat(args.date) if args.date else dt.datetime.now(dt.UTC).date()
    except ValueError:
        print(f"error: --date must be YYYY-MM-DD, not {args.date!r}", file=sys.stderr)
        return 2
    store = _open_store(settings, create=False)
    try:
        views = store.list_keys(day)
        networks: dict[str, str] = {}
        for email in {v.record.account for v in views if v.today > 0}:
            account = store.find_account(email)
            if account is not None and account.network:
                networks[email] = account.network
        report = format_report(abuse_report(views), day.isoformat()) + format_network_report(
            network_report(views, networks), day.isoformat()
        )
        print("\n".join(_printable(line) for line in report.splitlines()))
    finally:
        store.close()
    return 0


# -- snapshots --------------------------------------------------------------------------------


def cmd_snapshots(args: argparse.Namespace, settings: Settings) -> int:
    """List, roll back to or verify snapshots, or delete unreferenced objects (gc)."""
    from bangscore.build.publish import collect_garbage, rollback
    from bangscore.manifest import SnapshotError, list_snapshots, read_manifest, verify
    from bangscore.storage import open_object_storage

    snapshot_id = getattr(args, "id", None)
    if snapshot_id is not None and not SNAPSHOT_ID.fullmatch(snapshot_id):
        print(f"error: {_printable(snapshot_id[:80])!s} is not a snapshot id", file=sys.stderr)
        return 1
    storage = open_object_storage(args.snapshot or settings.snapshot_location)
    try:
        if args.action == "gc":
            count, freed = collect_garbage(storage, grace_seconds=args.grace_hours * 3600)
            print(f"deleted {count} unreferenced objects ({freed / 1e6:.1f} MB)")
            return 0
        if args.action == "list":
            current = storage.read_pointer()
            for sid in list_snapshots(storage):
                m = read_manifest(storage, sid)
                mark = "*" if sid == current else " "
                size = sum(e.size for e in m.entries.values())
                print(
                    f"{mark} {sid}  {m.created_at:%Y-%m-%d %H:%M:%S}  "
                    f"{m.meta.get('games', '?')} games  {len(m.entries)} objects  "
                    f"{size / 1e6:.1f} MB"
                )
            return 0
        if args.action == "rollback":
            previous = rollback(storage, args.id)
            print(f"current is now {args.id} (was {previous})")
            return 0
        report = verify(storage, args.id, progress=True)
        print(
            f"{report.snapshot_id}: {report.checked} objects checked, "
            f"{len(report.missing)} missing, {len(report.corrupt)} corrupt"
        )
        for key in report.missing[:20]:
            print(f"missing: {key}")
        for key in report.corrupt[:20]:
            print(f"corrupt: {key}")
        return 0 if report.ok else 1
    except SnapshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


# -- parser -----------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``bangscore`` command."""
    top = argparse.ArgumentParser(prog="bangscore", description=__doc__.split("\n")[0])
    top.add_argument("--state-dir", type=Path, help="state folder (default ./var)")
    top.add_argument("--store", help="key/counter store: sqlite:///PATH or redis://HOST:PORT/DB")
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("build", help="score the catalog and publish a snapshot")
    p.add_argument("--out", help="snapshot store: folder or s3://bucket/prefix")
    p.add_argument("--export", help="Bulk export store: folder or s3://bucket/prefix")
    p.add_argument("--catalog", type=Path, help="catalog file from `bangscore ingest`")
    p.add_argument("--site-url", help="the website's base URL baked into the snapshot")
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
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("serve", help="serve the current snapshot")
    p.add_argument("--snapshot", help="snapshot store: folder or s3://bucket/prefix")
    p.add_argument("--export", help="Bulk export store: folder or s3://bucket/prefix")
    p.add_argument("--host")
    p.add_argument("--port", type=bounded_int(1, 65535))
    p.add_argument("--workers", type=bounded_int(1, 64))
    p.add_argument("--site-url", help="the website's base URL (default: http://HOST:PORT)")
    p.add_argument(
        "--forwarded-allow-ips",
        help="proxies trusted to set X-Forwarded-For, comma-separated (default: none)",
    )
    p.add_argument("--quiet", action="store_true", help="no access log")
    p.set_defaults(func=cmd_serve)

    keys = sub.add_parser("keys", help="create, revoke and list API keys").add_subparsers(
        dest="keys_command", required=True
    )
    p = keys.add_parser("create", help="create a key and print it once")
    p.add_argument("--account", required=True, help="owning account (email)")
    p.add_argument("--plan", required=True, choices=["free", "pro", "bulk"])
    p.add_argument(
        "--limit", type=bounded_int(1, 1_000_000_000), help="daily limit (default: the plan's)"
    )
    p.set_defaults(func=cmd_keys_create)
    p = keys.add_parser("revoke", help="revoke a key by id")
    p.add_argument("key_id")
    p.set_defaults(func=cmd_keys_revoke)
    p = keys.add_parser("list", help="list keys")
    p.add_argument("--account")
    p.set_defaults(func=cmd_keys_list)

    usage = sub.add_parser("usage", help="operators' usage reports").add_subparsers(
        dest="usage_command", required=True
    )
    p = usage.add_parser("report", help="accounts whose keys together exceed one key's limit")
    p.add_argument("--date", help="UTC day YYYY-MM-DD (default: today)")
    p.set_defaults(func=cmd_usage_report)

    from bangscore.watch_cli import add_parsers as add_watch_parsers

    add_watch_parsers(sub)  # watch add|list|remove, alerts send

    snaps = sub.add_parser("snapshots", help="list, roll back or verify snapshots")
    snaps.add_argument("--snapshot", help="snapshot store: folder or s3://bucket/prefix")
    ssub = snaps.add_subparsers(dest="action", required=True)
    ssub.add_parser("list", help="list snapshots (* marks the current one)")
    ssub.add_parser("rollback", help="make an older snapshot current").add_argument("id")
    ssub.add_parser("verify", help="check every object's digest").add_argument("id")
    ssub.add_parser(
        "gc", help="delete objects no snapshot references (older than the grace period)"
    ).add_argument("--grace-hours", type=bounded_int(0, 24 * 365), default=24)
    snaps.set_defaults(func=cmd_snapshots)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``bangscore`` command with ``argv`` (default: sys.argv); return the exit code."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger().addFilter(RedactKeys())
    args = parser().parse_args(argv)
    try:
        settings = _settings(args)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        print(f"error: invalid configuration: {problems}", file=sys.stderr)
        return 2
    try:
        return int(args.func(args, settings))
    except KeyStoreUnavailable as exc:
        print(f"error: the key store {settings.store_url} failed: {exc}", file=sys.stderr)
        return 1
    except KeyStoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
