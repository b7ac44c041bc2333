"""Work a command leaves running after it returns (issue 56, item 1): ``bangscore build
--finish-in-background`` (``make run``) publishes the snapshot without its games' web pages
and badges, then writes them, the Bulk export and the kept stages in a forked process while the
server starts, so the first answer waits for none of them.

The pages are added to the published snapshot (:func:`bangscore.build.publish.complete_pages`):
until they are, a game's page and badge answer 503 with ``Retry-After`` (every API answer is
there from the first). The export is written as ever (its ``latest.json`` last, so no reader
sees it half written): until it is, ``GET /api/v1/export`` answers 404 "No Bulk export has
been published yet", or the previous build's export.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bangscore.build.pipeline import BuildResult
    from bangscore.build.stage_cache import StageCache
    from bangscore.settings import Settings

# Below the server and the shell that started it: the work must not slow the first answers.
NICENESS = 10
LOG_NAME = "background.log"  # in the state folder


def lock_path(state_dir: Path, snapshot_id: str) -> Path:
    """Given the state folder and a snapshot id, return the lock file its background writer
    holds while it runs."""
    return state_dir / f"background-{snapshot_id}.lock"


def writing(lock: Path) -> bool:
    """Given a background writer's lock file, return True while a process holds it (the
    writer runs); False when none does (done, or killed: the kernel let the lock go)."""
    try:
        fd = os.open(lock, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def run_in_background(work: Callable[[], str], log: Path, lock: Path | None = None) -> int:
    """Given a call that returns a line saying what it did, a log file and a lock file (None:
    none), run the call in a forked process at a lower priority (:data:`NICENESS`), its
    output and that line appended to ``log``, the lock held from before the fork until the
    child ends (:func:`writing` asks); return the child's pid.

    The child ignores SIGINT: the Ctrl-C that stops ``make run`` leaves the export to finish
    (seconds) rather than leave none; SIGTERM still ends it. It exits 0 when the call
    returned, 1 when it raised (the traceback in ``log``). Raises OSError if the log's folder
    cannot be made.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    held = os.open(lock, os.O_CREAT | os.O_WRONLY, 0o644) if lock is not None else None
    if held is not None:
        fcntl.flock(held, fcntl.LOCK_EX)  # the child's inherited descriptor keeps it
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        if held is not None:
            os.close(held)
        return pid
    code = 1
    try:  # the child: never returns into the caller's code (os._exit below)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        os.nice(NICENESS)
        out = open(log, "a", buffering=1, encoding="utf-8")  # noqa: SIM115  (held until _exit)
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        sys.stdout = sys.stderr = out
        print(work(), flush=True)
        code = 0
    except BaseException:  # the child's last word goes to its log
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        if lock is not None:  # done or failed: the lock file goes (the kernel frees the lock)
            with contextlib.suppress(OSError):
                os.unlink(lock)
        os._exit(code)


def finish_in_background(
    result: BuildResult, cache: StageCache | None, settings: Settings
) -> int | None:
    """Given a published build's result and its stage cache, write what serving need not wait
    for in a background process (:func:`run_in_background`, holding the snapshot's
    :func:`lock_path` while the pages are to come): the games' pages and badges, the Bulk
    export, then the stages the build made; say so, and where its log goes; return the
    process's pid (None: nothing to write, nothing started)."""
    pages, write = result.pending_pages, result.pending_export
    keep = cache is not None and bool(cache.made)
    if pages is None and write is None and not keep:
        return None
    log = settings.state_dir / LOG_NAME

    def work() -> str:
        said = []
        if pages is not None:
            said.append(f"wrote {pages():,} pages and badges into snapshot {result.snapshot_id}")
        if write is not None:
            counts = write()
            said.append(
                f"exported {result.games} games of snapshot {result.snapshot_id} to "
                f"{settings.export}: {counts['added']} added, {counts['changed']} changed, "
                f"{counts['removed']} removed since the previous export ("
                + ", ".join(line for line in result.stages.lines() if "stage export" in line)
                + ")"
            )
        if cache is not None:
            said.append(f"kept stages: {', '.join(cache.keep_made()) or 'none'}")
        return "; ".join(said)

    lock = lock_path(settings.state_dir, result.snapshot_id) if pages is not None else None
    pid = run_in_background(work, log, lock)
    what = (
        (["the games' pages and badges"] if pages is not None else [])
        + ([f"the Bulk export of snapshot {result.snapshot_id}"] if write is not None else [])
        + (["the kept stages"] if keep else [])
    )
    notes = (["a game's page and badge answer 503 until theirs are written"] if pages else []) + (
        ["GET /api/v1/export answers 404 until it is written"] if write is not None else []
    )
    print(
        f"writing {', '.join(what[:-1]) + ' and ' if len(what) > 1 else ''}{what[-1]} in the "
        f"background (process {pid}, log {log})" + "".join(f"; {n}" for n in notes)
    )
    return pid
