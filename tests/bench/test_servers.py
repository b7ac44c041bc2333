"""The benchmark's servers: a shim is measured only once it is warm (its deferred indexes built
and ``bangscore_warm`` 1 on /metrics), not as soon as it first answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from bangscore.storage import LocalStorage
from bench.harden import bench_key, serve_command
from bench.servers import free_port, serving, wait_warm
from tests.support import factories
from tests.support.live import LOOPBACK, parse_metrics

pytestmark = pytest.mark.server  # each starts a `bangscore serve` process: not in make check


def test_a_shim_is_measured_only_once_warm(tmp_path: Path) -> None:
    state = tmp_path / "state"
    factories.publish_catalog(factories.small_catalog(), LocalStorage(state / "snapshots"))
    auth = {"Authorization": f"Bearer {bench_key(state)}"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serving(serve_command(state, port, quiet=True), f"{url}/metrics", tmp_path / "log"):
        wait_warm(url, auth)
        metrics = parse_metrics(LOOPBACK.get(f"{url}/metrics").text)
        assert metrics["bangscore_warm"] == 1.0
        answer = LOOPBACK.get(f"{url}/api/v1/games", headers=auth)
        assert answer.status_code == 200 and answer.json()["total"] > 0


def test_a_shim_that_never_warms_is_not_measured(tmp_path: Path) -> None:
    # No snapshot published: the shim answers (503 for the API) but never warms.
    state = tmp_path / "state"
    state.mkdir()
    auth = {"Authorization": f"Bearer {bench_key(state)}"}
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serving(serve_command(state, port, quiet=True), f"{url}/metrics", tmp_path / "log"):
        with pytest.raises(RuntimeError, match="not warm after 3"):
            wait_warm(url, auth, seconds=3.0)
        assert parse_metrics(LOOPBACK.get(f"{url}/metrics").text)["bangscore_warm"] == 0.0
