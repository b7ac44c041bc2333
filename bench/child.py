"""Run a command as the child of this small process and report its resource use.

Linux carries a process's peak RSS across ``exec`` from the process it was forked from: a
build started straight from the benchmark (which holds the catalogue, well over a GiB)
reports the benchmark's size as its own peak whenever the build's real peak is lower. Forked
from this fresh interpreter instead, the build's ``ru_maxrss`` is its own.

    python -m bench.child OUT.json COMMAND [ARG...]

writes ``{"maxrss_kib", "user_seconds", "system_seconds"}`` of COMMAND to OUT.json and exits
with COMMAND's exit status.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    """Given the report path and a command, run the command; return its exit status."""
    out, command = Path(argv[0]), argv[1:]
    pid = os.fork()
    if pid == 0:  # the child: become the command
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    out.write_text(
        json.dumps(
            {
                "maxrss_kib": usage.ru_maxrss,
                "user_seconds": usage.ru_utime,
                "system_seconds": usage.ru_stime,
            }
        )
    )
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
