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
from collections.abc import Mapping

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own name for it
# Seconds: the shim answers in tens of microseconds to a few milliseconds; searches and
# uncached store reads take longer.
BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
STATUS_CLASSES = ("1xx", "2xx", "3xx", "4xx", "5xx")

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
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
