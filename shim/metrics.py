"""``/metrics`` (docs/API.md#metrics): the shim's counters and a request-latency histogram in
the Prometheus text format, from prometheus_client.

Under ``bangscore serve --workers N`` every worker is its own process; the command line gives
them one ``PROMETHEUS_MULTIPROC_DIR`` (prometheus_client's multiprocess mode, read when the
library is imported), each worker writes its values to its own files there, and a scrape,
whichever worker answers it, sums them all (prometheus_client docs, "Multiprocess Mode
(E.g. Gunicorn)"). With one worker the values live in the process.

Requests are observed as they end (:meth:`Metrics.observe`); the key store's and the quota's
own counters are plain integers kept where they are counted, copied into prometheus counters
once a second by the app's ticker and before every scrape (:meth:`Metrics.sync`), so counting
stays off the library on the hot path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own name for it
# Seconds: the shim answers in tens of microseconds to a few milliseconds; searches and
# uncached store reads take longer.
BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")
# prometheus_client's files of live gauges: gauge_livesum_<pid>.db, gauge_liveall_<pid>.db...
_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w*_(\d+)\.db")

disable_created_metrics()  # type: ignore[no-untyped-call]  # the *_created samples double every series for nothing we read


def multiprocess_dir() -> str | None:
    """Return the folder prometheus_client's multiprocess mode writes to, or None when this
    process keeps its values itself (one worker)."""
    return os.environ.get(MULTIPROCESS_ENV) or None


class Metrics:
    """The shim's Prometheus metrics: request latency (a histogram), requests by status class,
    and the counters synced from the quota and the key store."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.duration = Histogram(
            "bangscore_request_duration_seconds",
            "Time from a request's arrival to its last body byte handed to the server.",
            buckets=BUCKETS,
            registry=self.registry,
        )
        requests = Counter(
            "bangscore_requests",
            "Requests answered, by status class.",
            ["status"],
            registry=self.registry,
        )
        self._by_class = [requests.labels(name) for name in STATUS_CLASSES]
        self._counters: dict[str, Counter] = {}
        self._seen: dict[str, float] = {}
        self.cache_bytes = Gauge(
            "bangscore_body_cache_bytes",
            "Bytes of snapshot bodies held in the body cache (summed over workers).",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        # 1 per serving process: a worker killed with SIGKILL leaves the sum at the next
        # scrape (mark_dead_workers), so the scrape shows how many are alive.
        self.workers = Gauge(
            "bangscore_workers",
            "Serving processes alive (summed over workers).",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.workers.set(1)
        # 1 once the current snapshot's indexes are built and the heap settled (shim.app's
        # warm-up, seconds after a start): the lowest over the workers.
        self.warm = Gauge(
            "bangscore_warm",
            "1 when every worker has built its snapshot's indexes and settled its heap.",
            registry=self.registry,
            multiprocess_mode="livemin",
        )
        self.warm.set(0)

    def observe(self, status: int, seconds: float) -> None:
        """Given an answered request's status and its duration in seconds, count it."""
        self.duration.observe(seconds)
        self._by_class[min(max(status // 100, 1), 5) - 1].inc()

    def sync(self, totals: Mapping[str, int], cache_bytes: int) -> None:
        """Given this process's counter totals (name without ``bangscore_`` and ``_total``:
        total so far) and the body cache's size, bring the exported counters up to them."""
        for name, total in totals.items():
            counter = self._counters.get(name)
            if counter is None:
                counter = Counter(f"bangscore_{name}", f"The shim's {name} counter.", registry=None)
                counter = self._register(name, counter)
            delta = total - self._seen.get(name, 0)
            if delta > 0:
                counter.inc(delta)
                self._seen[name] = total
        self.cache_bytes.set(cache_bytes)

    def _register(self, name: str, counter: Counter) -> Counter:
        # Created unregistered (the default registry is the library's global one) and added
        # to this app's registry, so two apps in one test process never collide.
        self.registry.register(counter)
        self._counters[name] = counter
        return counter

    def exposition(self) -> bytes:
        """Return the metrics in the Prometheus text format: every worker's, summed, in
        multiprocess mode; this process's otherwise."""
        if multiprocess_dir() is None:
            return generate_latest(self.registry)
        folder = multiprocess_dir()
        assert folder is not None
        mark_dead_workers(folder)
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)


def alive(pid: int) -> bool:
    """Given a process id, return True if that process runs (a zombie, killed and not yet
    reaped by its parent, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel whether the pid exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    # "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ")"
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def mark_dead_workers(folder: str) -> list[int]:
    """Given the multiprocess folder, mark every worker whose live-gauge files are there but
    whose process is gone as dead (prometheus_client's ``mark_process_dead``: its live gauges
    leave the scrape; its counters and histograms stay, being totals); return their pids.

    uvicorn restarts a worker killed with SIGKILL without telling the app, so a scrape checks
    (one /proc read per worker file)."""
    dead = []
    for name in os.listdir(folder):
        match = _LIVE_GAUGE_FILE.fullmatch(name)
        if match is None:
            continue
        pid = int(match.group(1))
        if pid not in dead and not alive(pid):
            mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]
            dead.append(pid)
    return dead
