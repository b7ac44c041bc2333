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
