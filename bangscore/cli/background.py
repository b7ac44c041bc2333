"""Work a command leaves running after it returns (issue 56, item 1): ``bangscore build
--export-in-background`` (``make run``) publishes the snapshot, then writes the Bulk export in a
forked process while the server starts, so the first answer does not wait for it.

The export is written as ever (its ``latest.json`` last, so no reader sees it half written):
until it is, ``GET /api/v1/export`` answers 404 "No Bulk export has been published yet", or the
previous build's export.
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

# Below the server and the shell that started it: the export must not slow the first answers.
NICENESS = 10


def run_in_background(work: Callable[[], str], log: Path) -> int:
    """Given a call that returns a line saying what it did, and a log file, run the call in a
    forked process at a lower priority (:data:`NICENESS`), its output and that line appended
    to ``log``; return the child's pid.

    The child ignores SIGINT: the Ctrl-C that stops ``make run`` leaves the export to finish
    (seconds) rather than leave none; SIGTERM still ends it. It exits 0 when the call
    returned, 1 when it raised (the traceback in ``log``). Raises OSError if the log's folder
    cannot be made.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
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
        os._exit(code)
