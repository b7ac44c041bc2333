"""wrk and py-spy for the benchmark: run wrk with ``--latency`` and parse its figures, write
Lua scripts that rotate through many paths, and profile a server under wrk load."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CONNECTIONS = 64
WRK_THREADS = 1  # 2 cores: one for the server under test, one for wrk


@dataclass(frozen=True)
class WrkResult:
    """One wrk run: requests per second, p50/p99 latency (ms), requests, non-2xx/3xx, errors."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    errors: int


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
) -> WrkResult:
    """Given a URL, run wrk (64 connections, --latency) for ``seconds``; return its figures."""
    args = ["wrk", f"-t{WRK_THREADS}", f"-c{connections}", "--latency", "--timeout", "5s"]
    for name, value in (headers or {}).items():
        args += ["-H", f"{name}: {value}"]
    if script is not None:
        args += ["-s", str(script)]
    if warmup:
        subprocess.run([*args, "-d1s", url], capture_output=True, check=True, timeout=60)
    out = subprocess.run(
        [*args, f"-d{int(seconds)}s", url],
        capture_output=True,
        text=True,
        check=True,
        timeout=seconds + 60,
    )
    return parse_wrk(out.stdout)


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
