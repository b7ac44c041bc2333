"""A build's time by stage (issue 56, item 1): ingest, score, render, compress, publish and
export, each as wall seconds and CPU seconds, printed by ``bangscore build`` and read by
``make bench`` (bench/report.py's stage table).

CPU is what the machine spent, not what the clock saw pass: on a machine busy with other
work the wall time of a stage grows while its CPU time does not. It is this process's
(``time.process_time``) plus, for reading the dumps and for rendering, its worker processes'
(``RUSAGE_CHILDREN``, counted once they are reaped). Rendering and publishing are interleaved
(the renderer is a generator the publish consumes): the time spent inside the generator's
``next`` is rendering's, the gzip compression of each body is compression's, and the rest of
the publish (hashing, writing, the manifest, the pointer, pruning, garbage collection) is
publishing's.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
STAGES = ("ingest", "score", "render", "compress", "publish", "export")


def children_cpu() -> float:
    """Return the CPU seconds (user + system) of this process's reaped child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class StageClock:
    """Wall and CPU seconds by stage name, added to as the build goes."""

    wall: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def add(self, name: str, wall: float, cpu: float) -> None:
        """Given a stage's name and seconds of wall and CPU time, add them to it."""
        self.wall[name] = self.wall.get(name, 0.0) + wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu

    @contextmanager
    def stage(self, name: str, *, children: bool = False) -> Iterator[None]:
        """Count the block's time to the stage ``name`` (with ``children``, also the CPU of
        the child processes reaped meanwhile)."""
        wall, cpu = time.perf_counter(), time.process_time()
        kids = children_cpu() if children else 0.0
        try:
            yield
        finally:
            spent = time.process_time() - cpu + (children_cpu() - kids if children else 0.0)
            self.add(name, time.perf_counter() - wall, spent)

    def timed(self, name: str, items: Iterable[T]) -> Iterator[T]:
        """Given a stage's name and an iterable, yield its items, counting the time spent
        producing each (not the consumer's) to the stage."""
        found = iter(items)
        while True:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                item = next(found)
            except StopIteration:
                self.add(name, time.perf_counter() - wall, time.process_time() - cpu)
                return
            self.add(name, time.perf_counter() - wall, time.process_time() - cpu)
            yield item

    def take(self, into: str, part: str) -> None:
        """Given a stage that a measurement of ``into`` included (``part``), take its time
        out of ``into`` (the publish's span held rendering and compressing)."""
        self.wall[into] -= self.wall[part]
        self.cpu[into] -= self.cpu[part]

    def lines(self) -> list[str]:
        """Return one printed line per stage that ran: ``stage NAME: W s wall, C s CPU``."""
        return [
            f"stage {name}: {self.wall[name]:.1f} s wall, {self.cpu[name]:.1f} s CPU"
            for name in self.wall
            if self.wall[name] > 0 or self.cpu[name] > 0
        ]
