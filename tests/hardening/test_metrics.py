"""``/metrics`` of a real server (issue 36): answered at its exact spelling only, to the
configured addresses only, and without the gauges of a worker killed with SIGKILL."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.hardening.conftest import ServerFactory, SharedServer, publish_into
from tests.support.factories import small_catalog
from tests.support.live import LOOPBACK, ShimServer, parse_metrics, wait_for

SECRET_SERIES = "bangscore_store_errors_total"


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param("/metrics/", id="trailing-slash"),
        pytest.param("/metrics//", id="two-slashes"),
        pytest.param("/metrics%2F", id="escaped-slash"),
        pytest.param("/metrics%2f%2f", id="escaped-slashes"),
        pytest.param("/%6Detrics", id="escaped-letter"),
        pytest.param("/METRICS", id="upper-case"),
        pytest.param("//metrics", id="leading-slashes"),
    ],
)
def test_metrics_answer_only_at_their_exact_path(
    shared_server: SharedServer, spelling: str
) -> None:
    url = shared_server.server.url
    exact = LOOPBACK.get(f"{url}/metrics")
    assert exact.status_code == 200 and SECRET_SERIES in exact.text
    other = LOOPBACK.get(f"{url}{spelling}")
    assert other.status_code == 404
    assert SECRET_SERIES not in other.text


class GuardedServer(ShimServer):
    """A server whose /metrics is not for 127.0.0.1: ready when /metrics answers at all."""

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"server exited early:\n{self.log()}")
        return LOOPBACK.get(f"{self.url}/metrics", timeout=1.0).status_code in (200, 404)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("allowed", "status"),
    [
        pytest.param("10.0.0.0/8, 192.0.2.7", 404, id="elsewhere"),
        pytest.param("10.0.0.0/8,127.0.0.0/8", 200, id="loopback-listed"),
    ],
)
def test_metrics_answer_only_the_configured_addresses(
    tmp_path: Path, allowed: str, status: int
) -> None:
    state = tmp_path / "state"
    publish_into(state, small_catalog(), "s1")
    server = GuardedServer(
        state, tmp_path / "server.log", env={"BANGSCORE_METRICS_ALLOW_IPS": allowed}
    ).start()
    try:
        answer = LOOPBACK.get(f"{server.url}/metrics")
        assert answer.status_code == status
        assert (SECRET_SERIES in answer.text) is (status == 200)
        assert LOOPBACK.get(f"{server.url}/api/v1").status_code == 200
    finally:
        server.stop()


def worker_pids(server: ShimServer) -> set[int]:
    """Given a server started with several workers, return its workers' pids (the
    supervisor's children)."""
    assert server.process is not None
    children = Path(f"/proc/{server.process.pid}/task/{server.process.pid}/children")
    pids = {int(pid) for pid in children.read_text().split()}
    # multiprocessing's resource tracker is a child too; the workers run spawn_main
    return {
        pid
        for pid in pids
        if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()
        and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    }


@pytest.mark.slow
def test_a_worker_killed_with_sigkill_leaves_the_scrape(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    publish_into(state, small_catalog(), "s1")
    server = server_factory(state, workers=2)
    wait_for(lambda: len(worker_pids(server)) == 2, 10, "two workers")
    wait_for(lambda: server.metrics()["bangscore_workers"] == 2, 10, "both workers counted")
    victim = min(worker_pids(server))
    os.kill(victim, signal.SIGKILL)
    # uvicorn starts a new worker; the scrape counts the two alive, not the dead one too.
    wait_for(
        lambda: len(worker_pids(server)) == 2 and victim not in worker_pids(server),
        30,
        "a new worker in the dead one's place",
    )
    wait_for(
        lambda: parse_metrics(LOOPBACK.get(f"{server.url}/metrics").text)["bangscore_workers"] == 2,
        10,
        "the dead worker marked dead",
    )
    assert not any(name.endswith(f"_{victim}.db") and "live" in name for name in _files(server))


def _files(server: ShimServer) -> list[str]:
    """Given a server with several workers, return the file names in their prometheus
    folder."""
    # `serve` sets the variable for its workers after it started: read a worker's.
    environ = Path(f"/proc/{min(worker_pids(server))}/environ").read_bytes().split(b"\0")
    folder = next(v for v in environ if v.startswith(b"PROMETHEUS_MULTIPROC_DIR="))
    return os.listdir(folder.split(b"=", 1)[1].decode())
