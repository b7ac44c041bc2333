"""wrk and py-spy for the benchmark: run wrk with ``--latency`` and parse its figures, write
Lua scripts that rotate through many paths, and profile a server under wrk load."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

CONNECTIONS = 64
WRK_THREADS = 1  # 2 cores: one for the server under test, one for wrk


@dataclass(frozen=True)
class WrkResult:
    """One wrk run: requests per second, p50/p99 latency (ms), requests, non-2xx/3xx, errors,
    and the server's CPU microseconds per request (None when not measured)."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    errors: int
    cpu_us: float | None = None


_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}


def parse_wrk(text: str) -> WrkResult:
    """Given wrk's output with ``--latency``, return its figures; ValueError if unparseable."""

    def latency(pct: str) -> float:
        found = re.search(rf"^\s*{pct}%\s+([\d.]+)(us|ms|s|m)\s*$", text, re.M)
        if not found:
            raise ValueError(f"no {pct}% latency in wrk output:\n{text}")
        return float(found.group(1)) * _UNITS_MS[found.group(2)]

    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    total = re.search(r"(\d+) requests in", text)
    if not rps or not total:
        raise ValueError(f"unparseable wrk output:\n{text}")
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    )
    return WrkResult(
        rps=float(rps.group(1)),
        p50_ms=latency("50"),
        p99_ms=latency("99"),
        requests=int(total.group(1)),
        non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
        errors=sum(int(g) for g in errors.groups()) if errors else 0,
    )


def rotation_script(folder: Path, name: str, paths: Sequence[str]) -> Path:
    """Given paths, write a wrk Lua script that requests them in turn; return its path."""
    listing = folder / f"{name}.paths"
    listing.write_text("\n".join(paths) + "\n")
    script = folder / f"{name}.lua"
    script.write_text(
        f"""
local paths = {{}}
for line in io.lines("{listing}") do paths[#paths + 1] = line end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format(nil, paths[i])
end
"""
    )
    return script


def wrk(
    url: str,
    seconds: float,
    *,
    headers: dict[str, str] | None = None,
    script: Path | None = None,
    warmup: bool = True,
    connections: int = CONNECTIONS,
    server_cpu: Callable[[], float] | None = None,
) -> WrkResult:
    """Given a URL, run wrk (64 connections, --latency) for ``seconds``; return its figures.
    With ``server_cpu`` (the server's CPU seconds so far, e.g. :func:`process_cpu`), the result
    also gives the server's CPU microseconds per request of the measured run (the warm-up's
    aside): a figure the machine's other work moves far less than throughput."""
    args = ["wrk", f"-t{WRK_THREADS}", f"-c{connections}", "--latency", "--timeout", "5s"]
    for name, value in (headers or {}).items():
        args += ["-H", f"{name}: {value}"]
    if script is not None:
        args += ["-s", str(script)]
    if warmup:
        subprocess.run([*args, "-d1s", url], capture_output=True, check=True, timeout=60)
    before = server_cpu() if server_cpu else 0.0
    out = subprocess.run(
        [*args, f"-d{int(seconds)}s", url],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 60,
    )
    result = parse_wrk(out.stdout)
    if server_cpu is None or not result.requests:
        return result
    return replace(result, cpu_us=(server_cpu() - before) * 1e6 / result.requests)


def process_cpu(pid: int, proc: Path = Path("/proc")) -> float:
    """Given a process id, return the CPU seconds (user + system) it and its live descendants
    have used, from ``/proc/<pid>/stat`` (Linux); 0.0 for a process that is gone."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    used: dict[int, float] = {}
    for stat in proc.glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            # the command name (field 2) may hold spaces: the fields after its ")" are fixed
            fields = stat.read_text().rsplit(")", 1)[1].split()
            child = int(stat.parent.name)
            parents[child] = int(fields[1])
            used[child] = (int(fields[11]) + int(fields[12])) / ticks
    tree, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return sum(used.get(p, 0.0) for p in tree)


def profile(pid: int, url: str, headers: dict[str, str], seconds: float, out: Path) -> list[str]:
    """Given the shim's pid, record py-spy samples while wrk loads ``url``; return the top
    functions by own time as ``share% function (file:line)`` lines (empty if py-spy fails)."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        return [f"py-spy is not installed ({spy}): no profile"]
    recorder = subprocess.Popen(
        [
            spy,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--format",
            "raw",
            "--output",
            str(out),
            "--nonblocking",
            "--rate",
            "200",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with contextlib.suppress(subprocess.CalledProcessError, ValueError):
        wrk(url, seconds, headers=headers, warmup=False)
    try:
        recorder.wait(timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        recorder.kill()
        recorder.wait()
    if not out.exists():
        return []
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in out.read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack.split(";")
        total += int(count)
        own[frames[-1]] += int(count)
        for frame in set(frames):
            if "(shim/" in frame:
                inclusive[frame] += int(count)
    if not total:
        return []
    return [f"{100 * n / total:.1f}% own: {f}" for f, n in own.most_common(12)] + [
        f"{100 * n / total:.1f}% inclusive: {f}" for f, n in inclusive.most_common(12)
    ]
