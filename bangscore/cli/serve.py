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
import signal
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from starlette.applications import Starlette

from bangscore.cli.arguments import bounded_int
from bangscore.settings import Settings
from bangscore.stores import open_stores
from bangscore.stores.keys import redact

if TYPE_CHECKING:
    from bangscore.mail.folder import MailLoop
    from bangscore.shim.account.watches import WatchOptions
    from bangscore.shim.downloads import ExportService
    from bangscore.shim.protocol import HeadLimits
    from bangscore.stores.watchstore import WatchStore

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
    stores = open_stores(settings.store_url, create=False, lease=settings.workers == 1)
    quota = Quota(
        stores.counter,
        stores.keys,
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
        accounts=stores.accounts,
        watches=_watch_options(settings, stores.watches),
        freeze_heap=True,
        access_log=(
            AccessLog(queue_bytes=settings.access_log_queue_bytes) if settings.access_log else None
        ),
    )


def _watch_options(settings: Settings, store: WatchStore) -> WatchOptions:
    # The watch pages share the key store's database. They never send mail: confirmations
    # are queued there and `alerts send` sends them, so a mail outage never holds a worker.
    from bangscore.shim.account.watches import WatchOptions

    # The webhook section over the same store (SQLite or Redis; docs/API.md#webhooks).
    return WatchOptions(store, hooks=settings.store_url)


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
        send_timeout=settings.export_send_timeout_seconds,
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
# The environment variables of every secret setting, upper-cased (pydantic-settings reads
# them in any case): a serving process is never left started with one in its environment.
SECRET_VARIABLES = frozenset(
    f"BANGSCORE_{name.upper()}"
    for name, field in Settings.model_fields.items()
    if field.annotation is not None and "SecretStr" in str(field.annotation)
)
HANDOFF_FOLDER = "run"  # under the state folder: the settings files serve hands its workers


def handoff_folder(state_dir: Path) -> Path:
    """Given the state folder, return its folder of the settings files serve processes hand
    their workers (``run``, mode 0700, created), the files of serve processes no longer
    running removed first (a killed server's; a running sibling's stay). Raises OSError."""
    folder = state_dir / HANDOFF_FOLDER
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for handed in folder.glob("serve-*.json"):
        pid = handed.stem.removeprefix("serve-")
        # Our own pid's file can only be a dead process's whose pid we were given.
        if not pid.isdigit() or int(pid) == os.getpid() or not _running(int(pid)):
            handed.unlink(missing_ok=True)
    return folder


def _running(pid: int) -> bool:
    """Given a process id, return True if a process holds it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def write_worker_settings(settings: Settings, folder: Path) -> Path:
    """Given the serve command's settings and a private folder, write them for the workers.

    Returns the path (``serve-<pid>.json``) of a JSON file of mode 0600 holding every setting
    (secrets revealed, as the workers need the session secret) except the secrets no worker
    uses (SMTP URL, the ingest's API keys). Raises OSError if it cannot be written, or if
    the file exists (FileExistsError: never overwritten).
    """
    values = settings.model_dump(mode="json", exclude=set(_NOT_FOR_WORKERS))
    if settings.session_secret is not None:
        values["session_secret"] = settings.session_secret.get_secret_value()
    path = folder / f"serve-{os.getpid()}.json"
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
    from bangscore.stores.secret import load_session_secret

    # Never created here: a state folder removed under a running server must not come back
    # empty on restart (every key 401, every account gone); `keys create` creates both.
    open_stores(settings.store_url, create=False).close()
    load_session_secret(settings.session_secret, settings.state_dir, create=False)
    if args.quiet:
        settings = settings.model_copy(update={"access_log": False})
    # Workers (and, with one worker, this process) read the serve command's settings from a
    # file of mode 0600 under the state folder that only its path names, so no secret sits
    # in a serving process's environment.
    handed = write_worker_settings(settings, handoff_folder(settings.state_dir))
    os.environ[SETTINGS_FILE_VARIABLE] = str(handed)
    clean = {k: v for k, v in os.environ.items() if k.upper() not in SECRET_VARIABLES}
    if len(clean) < len(os.environ):
        # /proc/<pid>/environ shows the environment a process was started with, whatever it
        # removes later: started with a secret in it, serve starts again without (the same
        # process id, so a supervisor keeps tracking it), its settings read from the file.
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, [sys.executable, "-m", "bangscore.cli.serve"], clean)
    return serve(settings, handed)


def serve_handed(environ: Mapping[str, str] = os.environ) -> int:
    """Run the server serve started again without its secrets: its settings from the file
    the environment names (:func:`worker_settings`), its log lines redacted as
    :func:`bangscore.cli.main` redacts them. Raises KeyError without a handed file."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger().addFilter(RedactKeys())
    return serve(worker_settings(environ), Path(environ[SETTINGS_FILE_VARIABLE]))


def serve(settings: Settings, handed: Path) -> int:
    """Given the serve command's settings and the settings file handed to its workers, run
    uvicorn behind the bounded request-head protocol until it stops; the file is removed
    then (a killed server's is removed at the next start: :func:`handoff_folder`)."""
    from uvicorn.config import LOGGING_CONFIG

    from bangscore.shim.protocol import HeadLimits, connection_cap

    limits = HeadLimits(
        max_line=settings.max_request_line,
        max_field=settings.max_header_field,
        max_head=settings.max_request_head,
        head_seconds=settings.head_timeout_seconds,
        max_headers=settings.max_header_count,
        body_seconds=settings.body_timeout_seconds,
        max_client_connections=settings.max_client_connections,
        max_connections=connection_cap(settings.max_connections),
        exempt=frozenset(a.strip() for a in settings.forwarded_allow_ips.split(",") if a.strip()),
    )
    log_config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    log_config["filters"] = {"redact": {"()": "bangscore.cli.serve.RedactKeys"}}
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
    # One server process (one worker) shuts down on SIGTERM or SIGINT and then raises the
    # signal again with the handler it found: ours, so that the files are removed before the
    # process ends by that signal, as a supervisor expects. The handler found before ours
    # (the default, or one a tool installed: coverage saves its data on SIGTERM) is put back
    # first, so it still runs.
    found: dict[int, Any] = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    for signum in found:
        signal.signal(signum, _stopped)
    stopped_by = None
    from bangscore.stores.secret import load_session_secret

    mail = _mail_loop(settings, load_session_secret(settings.session_secret, settings.state_dir))
    try:
        _run_uvicorn(settings, limits, log_config)
    except _Stopped as stop:
        stopped_by = stop.signum
    finally:
        if mail is not None:
            mail.stop()
        handed.unlink(missing_ok=True)
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    if stopped_by is not None:
        before = found[stopped_by]
        # Python's own SIGINT handler would raise KeyboardInterrupt instead of ending the
        # process by the signal.
        kept = callable(before) and before is not signal.default_int_handler
        signal.signal(stopped_by, before if kept else signal.SIG_DFL)
        signal.raise_signal(stopped_by)
    return 0


class _Stopped(BaseException):
    """The stop signal uvicorn raised again once it had shut down."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stopped(signum: int, _: object) -> None:
    raise _Stopped(signum)


def _mail_loop(settings: Settings, secret: str) -> MailLoop | None:
    # Local development (`make run`): the queued mail is kept as .eml files in a folder, one
    # `alerts send` pass every 2 s in a thread of this process, its links naming the address
    # served here, so a sign-up from the quick start finishes without a mail server (issue 48).
    if settings.mail_dir is None:
        return None
    from bangscore.mail.folder import MailLoop
    from bangscore.mail.links import WatchLinks

    def say(line: str) -> None:
        print(line, flush=True)

    loop = MailLoop(
        folder=settings.mail_dir,
        snapshot=settings.snapshot_location,
        store_url=settings.store_url,
        links=WatchLinks(secret, settings.site_url),
        from_address=settings.mail_from,
        say=say,
    )
    say(f"mail is kept in {settings.mail_dir}: each message's file and links are printed here")
    loop.start()
    return loop


def _run_uvicorn(settings: Settings, limits: HeadLimits, log_config: dict[str, Any]) -> None:
    import uvicorn

    from bangscore.shim.protocol import BoundedProtocols

    uvicorn.run(
        "bangscore.cli.serve:asgi_app",
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
    defaults = Settings.model_fields
    p.add_argument(
        "--host", help=f"address to listen on (default {defaults['host'].default}, BANGSCORE_HOST)"
    )
    p.add_argument(
        "--port",
        type=bounded_int(1, 65535),
        help=f"port to listen on, 1-65535 (default {defaults['port'].default}, BANGSCORE_PORT)",
    )
    p.add_argument(
        "--workers",
        type=bounded_int(1, 64),
        help=f"server processes, 1-64 (default {defaults['workers'].default}, BANGSCORE_WORKERS)",
    )
    p.add_argument("--site-url", help="the website's base URL (default: http://HOST:PORT)")
    p.add_argument(
        "--forwarded-allow-ips",
        help="proxies trusted to set X-Forwarded-For, comma-separated (default: none)",
    )
    p.add_argument("--quiet", action="store_true", help="no access log (BANGSCORE_ACCESS_LOG)")
    p.add_argument(
        "--mail-dir",
        help="local development: keep the queued mail as .eml files in this folder, "
        "delivered every 2 s, and print their links (BANGSCORE_MAIL_DIR)",
    )
    p.set_defaults(func=cmd_serve)


if __name__ == "__main__":  # serve, started again without its secrets (cmd_serve)
    raise SystemExit(serve_handed())
