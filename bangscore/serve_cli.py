"""The ``serve`` command: the ASGI app wired from settings (its snapshot store, key store,
quota, account site, watches and Bulk export), run by uvicorn behind the bounded request-head
protocol, with every log line's API keys redacted.
"""

from __future__ import annotations

import argparse
import copy
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from starlette.applications import Starlette

from bangscore.arguments import bounded_int
from bangscore.settings import Settings
from bangscore.stores import open_key_store
from bangscore.stores.keys import redact

if TYPE_CHECKING:
    from bangscore.shim.account.watches import WatchOptions
    from bangscore.shim.downloads import ExportService
    from bangscore.shim.protocol import HeadLimits

GIL_SWITCH_SECONDS = 0.001  # see asgi_app


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
    from bangscore.shim.lru import AnswerBudgets
    from bangscore.shim.quota import Quota
    from bangscore.shim.source import SnapshotSource
    from bangscore.storage import open_object_storage

    source = SnapshotSource(
        open_object_storage(settings.snapshot_location),
        cache_bytes=settings.cache_bytes,
        poll_seconds=settings.pointer_poll_seconds,
        budgets=AnswerBudgets(settings.answer_cache_bytes),
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
    from bangscore.shim.access_log import AccessLog

    return create_app(
        settings,
        source,
        quota,
        session_secret=session_secret,
        export=_export_service(settings, session_secret),
        watches=_watch_options(settings),
        freeze_heap=True,
        access_log=(
            AccessLog(queue_bytes=settings.access_log_queue_bytes) if settings.access_log else None
        ),
    )


def _watch_options(settings: Settings) -> WatchOptions:
    # The watch pages share the key store's database. They never send mail: confirmations
    # are queued there and `alerts send` sends them, so a mail outage never holds a worker.
    from bangscore.shim.account.watches import WatchOptions
    from bangscore.stores import open_watch_store

    store = open_watch_store(settings.store_url, create=False)
    return WatchOptions(store)


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
    return ExportService(
        storage,
        links=links,
        link_seconds=settings.export_link_seconds,
        downloads_per_client=settings.export_downloads_per_client,
    )


def asgi_app() -> Starlette:
    """Return the app configured from the environment: the factory uvicorn workers call.

    Searches run on worker threads (CPU work, off the event loop); a thread keeps the GIL for
    up to the switch interval, so each serving process takes a shorter one than Python's 5 ms:
    the loop gets the GIL back sooner and other requests stay quick while someone sends costly
    queries.
    """
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    return app_from_settings(worker_settings())


# The environment variable naming the settings file `serve` hands its workers: the file's path
# only, never a secret, so /proc/<pid>/environ and a crash dump of a worker hold no secret.
SETTINGS_FILE_VARIABLE = "BANGSCORE_WORKER_SETTINGS_FILE"
# Secrets no serving process uses: never handed to a worker at all.
_NOT_FOR_WORKERS = frozenset({"smtp_url", "itad_api_key", "steam_api_key"})


def write_worker_settings(settings: Settings, folder: Path) -> Path:
    """Given the serve command's settings and a private folder, write them for the workers.

    Returns the path of a JSON file of mode 0600 holding every setting (secrets revealed, as
    the workers need the session secret) except the secrets no worker uses (SMTP URL, the
    ingest's API keys). Raises OSError if it cannot be written.
    """
    values = settings.model_dump(mode="json", exclude=set(_NOT_FOR_WORKERS))
    if settings.session_secret is not None:
        values["session_secret"] = settings.session_secret.get_secret_value()
    path = folder / "settings.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(orjson.dumps(values))
    return path


def worker_settings(environ: Mapping[str, str] = os.environ) -> Settings:
    """Return a worker's settings: from the file `serve` wrote, else from the environment.

    The file (:func:`write_worker_settings`) is read as it is, without environment variables
    or a ``.env`` file layered over it, so every worker runs with exactly the serve command's
    settings. Raises OSError if the named file is gone, pydantic.ValidationError if it is not
    valid settings.
    """
    handed = environ.get(SETTINGS_FILE_VARIABLE)
    if handed is None:
        return Settings()
    return Settings.model_validate(orjson.loads(Path(handed).read_bytes()))


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the current snapshot with uvicorn, behind the bounded request-head protocol.

    A configured key store that does not exist yet is refused (exit 1) before the server
    starts; the default store under the state folder is created. No proxy is trusted unless
    ``forwarded_allow_ips`` names it.
    """
    from uvicorn.config import LOGGING_CONFIG

    from bangscore.shim.protocol import HeadLimits
    from bangscore.stores.secret import load_session_secret

    # Never created here: a state folder removed under a running server must not come back
    # empty on restart (every key 401, every account gone); `keys create` creates both.
    open_key_store(settings.store_url, create=False).close()
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

    if args.quiet:
        settings = settings.model_copy(update={"access_log": False})
    # Workers are separate processes: they read the serve command's settings from a file of
    # mode 0600 that only its path names, so no secret sits in a worker's environment; the
    # secrets the operator exported are removed from the environment the workers inherit.
    handoff = Path(tempfile.mkdtemp(prefix="bangscore-serve-"))
    os.environ[SETTINGS_FILE_VARIABLE] = str(write_worker_settings(settings, handoff))
    for name, value in Settings.model_fields.items():
        if value.annotation is not None and "SecretStr" in str(value.annotation):
            os.environ.pop(f"BANGSCORE_{name.upper()}", None)
    log_config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    log_config["filters"] = {"redact": {"()": "bangscore.serve_cli.RedactKeys"}}
    for handler in log_config["handlers"].values():
        handler["filters"] = ["redact"]
        # A stalled reader of standard error drops messages instead of stopping the server.
        handler["class"] = "bangscore.shim.log_handler.NonBlockingHandler"
    # The shim's own loggers (bangscore.*) write through the same handler, redacted, in every
    # worker (a spawned worker has no other handler: Python's last resort would block).
    log_config["root"] = {"handlers": ["default"], "level": "INFO"}
    # Several workers write their metrics to one folder that every scrape sums
    # (bangscore.shim.metrics); prometheus_client reads where from the environment at import.
    metrics_dir = None
    if settings.workers > 1:
        metrics_dir = tempfile.mkdtemp(prefix="bangscore-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    try:
        _run_uvicorn(settings, limits, log_config)
    finally:
        shutil.rmtree(handoff, ignore_errors=True)
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0


def _run_uvicorn(settings: Settings, limits: HeadLimits, log_config: dict[str, Any]) -> None:
    import uvicorn

    from bangscore.shim.protocol import BoundedProtocols

    uvicorn.run(
        "bangscore.serve_cli:asgi_app",
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
        access_log=False,  # the shim writes its own, structured (bangscore.shim.access_log)
    )


def add_parsers(sub: Any) -> None:
    """Given the top-level subparsers, add ``serve``."""
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
    p.add_argument("--quiet", action="store_true", help="no access log (BANGSCORE_ACCESS_LOG)")
    p.set_defaults(func=cmd_serve)
