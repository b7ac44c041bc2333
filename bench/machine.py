"""The machine a benchmark runs on (cores, CPU, memory, kernel, load) and the versions of
everything it measures, for the results' Machine and Versions tables.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def version(package: str) -> str:
    """Given a distribution name, return its installed version or ``-``."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def command_version(args: Sequence[str], pattern: str) -> str:
    """Given a command printing its version, return the part matching ``pattern``."""
    try:
        out = subprocess.run(list(args), capture_output=True, text=True, timeout=10)
    except OSError:
        return "-"
    found = re.search(pattern, out.stdout + out.stderr)
    return found.group(1) if found else "-"


def machine() -> dict[str, str]:
    """Return the machine: cores, CPU model, memory, kernel and load average now."""
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"model name\s*:\s*(.+)", cpuinfo)
    meminfo = re.search(r"MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text())
    return {
        "cores (nproc)": str(len(os.sched_getaffinity(0))),
        "CPU": model.group(1).strip() if model else "-",
        "memory": f"{int(meminfo.group(1)) / 2**20:.1f} GiB" if meminfo else "-",
        "kernel": platform.release(),
        "load average at start (1/5/15 min)": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


# The probe's work: sum the squares below this in a plain loop (0.17-0.18 s of CPU here, 3 Dec 2026
# 09:13 UTC, load 1.4).
PROBE_LOOPS = 3_000_000


def probe(loops: int = PROBE_LOOPS) -> float:
    """Given a loop count, return the CPU seconds this process takes to sum the squares below
    it in a plain Python loop: a fixed piece of work on one core, whose time moves with the
    machine's speed (a shared host's load, its clock), so that two runs of the suite timed at
    different hours can be told apart from a change in the code they ran."""
    start = time.process_time()
    total = 0
    for n in range(loops):
        total += n * n
    return time.process_time() - start


def versions() -> dict[str, str]:
    """Return the versions of everything measured."""
    return {
        "Python": platform.python_version(),
        "bangscore": version("bangscore"),
        "starlette": version("starlette"),
        "uvicorn": version("uvicorn"),
        "httptools": version("httptools"),
        "uvloop": version("uvloop"),
        "datasette": version("datasette"),
        "SQLite": sqlite3.sqlite_version,
        "nginx": command_version(["nginx", "-v"], r"nginx/(\S+)"),
        "wrk": command_version(["wrk", "-v"], r"wrk (\S+)"),
    }


def main() -> int:
    """``python -m bench.machine``: print the probe's CPU seconds (the best of three) and the
    load average, one line; `make test` prints it when it starts and when it ends."""
    best = min(probe() for _ in range(3))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"machine probe: {best:.3f} s of CPU for {PROBE_LOOPS:,} loops (load {load})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
