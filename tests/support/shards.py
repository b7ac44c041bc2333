"""``make check``'s shards: its test modules split into parts that run as separate pytest
processes side by side (``--shard=1/2`` and ``--shard=2/2``), each collecting only its own modules.

Why not pytest-xdist's workers: each worker imports and collects every test module of the suite
and the controller takes every report from them. On 2 Dec 2026 at 08:15 UTC (load 9: the figures
are inflated alike) the fast loop's tests took 37.8 s of CPU on two workers and 30.4 s (14.9 and
15.5) as two shards, which collect the suite once between them and need no controller.

A module's shard is chosen before pytest imports it (``pytest_ignore_collect``), from the CPU
seconds its tests took in the fast loop (shard_weights.json: measured with each test's process
and children's CPU time, setup and teardown included, on 2 Dec 2026 07:47 UTC at load 10, the
``thorough`` tests left out). The heaviest module goes first to the lightest shard, and so on; a
module the weights do not name yet (new) weighs by its size, at the measured modules' seconds
per byte, so a new module still lands where there is room.
"""

from __future__ import annotations

import heapq
import json
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
WEIGHTS = Path(__file__).with_name("shard_weights.json")
# pyproject.toml's norecursedirs, less the patterns: folders under tests/ that hold no tests.
_SKIPPED = {"fixtures", "output", "__pycache__", "node_modules"}


def test_modules() -> list[str]:
    """Return every test module under tests/ as a path from the repository's root, sorted
    (``tests/shim/test_app.py``), as pytest collects them."""
    found = []
    for path in TESTS.rglob("test_*.py"):
        parts = path.relative_to(TESTS).parts[:-1]
        if any(part in _SKIPPED or part.startswith(".") for part in parts):
            continue
        found.append(path.relative_to(ROOT).as_posix())
    return sorted(found)


def weights(modules: list[str], recorded: dict[str, float] | None = None) -> dict[str, float]:
    """Given the test modules (and their recorded CPU seconds: shard_weights.json unless
    given), return each one's estimated CPU seconds in the fast loop: its recorded figure, or
    its size in bytes times the recorded modules' seconds per byte."""
    if recorded is None:
        recorded = json.loads(WEIGHTS.read_text())
    known = [m for m in modules if m in recorded]
    seconds = sum(recorded[m] for m in known)
    size = sum((ROOT / m).stat().st_size for m in known) or 1
    return {
        m: recorded[m] if m in recorded else (ROOT / m).stat().st_size * seconds / size
        for m in modules
    }


def assign(estimates: dict[str, float], count: int) -> dict[str, int]:
    """Given each module's estimated seconds and a number of shards, return each module's
    shard (1 to ``count``): heaviest first, each to the shard with the least so far (ties: the
    lower number), so the shards' sums differ by at most the lightest module placed last."""
    if count < 1:
        raise ValueError(f"a shard count is 1 or more, not {count}")
    loads = [(0.0, shard) for shard in range(1, count + 1)]
    placed = {}
    for module in sorted(estimates, key=lambda m: (-estimates[m], m)):
        load, shard = heapq.heappop(loads)
        placed[module] = shard
        heapq.heappush(loads, (load + estimates[module], shard))
    return placed


def parse(spelling: str) -> tuple[int, int]:
    """Given ``--shard``'s value ``"i/n"``, return (i, n); ValueError unless 1 <= i <= n."""
    index, _, count = spelling.partition("/")
    try:
        shard, total = int(index), int(count)
    except ValueError:
        raise ValueError(f"--shard={spelling!r}: expected i/n, e.g. 1/2") from None
    if not 1 <= shard <= total:
        raise ValueError(f"--shard={spelling!r}: i runs from 1 to n")
    return shard, total


def others(spelling: str) -> set[Path]:
    """Given ``--shard``'s value, return the absolute paths of the test modules of the other
    shards: the ones this process leaves uncollected."""
    shard, total = parse(spelling)
    modules = test_modules()
    placed = assign(weights(modules), total)
    return {ROOT / m for m in modules if placed[m] != shard}
