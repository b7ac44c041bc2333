"""/metrics (shim/metrics.py): Prometheus text from prometheus_client, a latency histogram,
the counters kept, and under two workers every scrape sums both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from tests.support import factories
from tests.support.live import ShimServer, parse_metrics, wait_for

pytestmark = pytest.mark.server


def test_metrics_hold_the_histogram_and_the_counters(tmp_path: Path, small_snapshot: Any) -> None:
    app, store, _ = factories.make_app(small_snapshot[0], tmp_path)
    key = factories.add_key(store)
    with TestClient(app, base_url=factories.SITE) as client:
        for _ in range(3):
            client.get("/api/v1/games", headers={"Authorization": f"Bearer {key}"})
        client.get("/nowhere")
        scrape = client.get("/metrics")
    assert scrape.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert scrape.headers["cache-control"] == "no-store"
    metrics = parse_metrics(scrape.text)
    assert metrics['bangscore_requests_total{status="2xx"}'] == 3
    assert metrics['bangscore_requests_total{status="4xx"}'] == 1
    assert metrics["bangscore_request_duration_seconds_count"] == 4
    assert metrics['bangscore_request_duration_seconds_bucket{le="+Inf"}'] == 4
    assert metrics["bangscore_request_duration_seconds_sum"] > 0
    # The counters of the hand-written /metrics, kept under their names.
    assert metrics["bangscore_key_lookups_total"] >= 1
    assert metrics["bangscore_snapshot_switches_total"] == 1
    assert metrics["bangscore_store_errors_total"] == 0
    assert "bangscore_body_cache_bytes" in metrics


def test_a_scrape_sums_every_worker(tmp_path: Path, snapshot_folder: Path) -> None:
    server = ShimServer(
        tmp_path / "state", tmp_path / "shim.log", snapshot=snapshot_folder, workers=2
    ).start()
    try:
        clients = server.worker_clients()
        try:
            sent = {0: 3, 1: 5}  # 404s through each worker, so each worker's own count differs
            for n, client in enumerate(clients):
                for _ in range(sent[n]):
                    assert client.get("/nowhere").status_code == 404

            def summed() -> bool:
                scrapes = [parse_metrics(c.get("/metrics").text) for c in clients]
                return all(s.get('bangscore_requests_total{status="4xx"}') == 8 for s in scrapes)

            wait_for(summed, 5, "both workers' 404s in every worker's scrape")
        finally:
            for client in clients:
                client.close()
    finally:
        server.stop()
