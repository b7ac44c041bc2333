"""``infra/nginx/locations.conf`` in front of a real shim (issue 36): ``/metrics`` is hidden at
the edge in every spelling nginx and the shim might read as it, while the API still passes."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.hardening.conftest import publish_into
from tests.support.factories import small_catalog
from tests.support.live import LOOPBACK, REPO, ShimServer, free_port, wait_for
from tests.support.tools import NGINX

pytestmark = pytest.mark.slow

SECRET_SERIES = "bangscore_store_errors_total"


@pytest.fixture
def edge(tmp_path: Path) -> Iterator[tuple[str, ShimServer]]:
    """nginx on a free loopback port with the project's locations.conf, in front of one shim;
    yields nginx's URL and the shim."""
    state = tmp_path / "state"
    publish_into(state, small_catalog(), "s1")
    shim = ShimServer(state, tmp_path / "shim.log").start()
    port = free_port()
    run = tmp_path / "nginx"
    (run / "tmp").mkdir(parents=True)
    conf = run / "nginx.conf"
    conf.write_text(
        f"""
worker_processes 1;
daemon off;
pid {run}/nginx.pid;
error_log {run}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {run}/tmp;
    proxy_temp_path {run}/tmp;
    fastcgi_temp_path {run}/tmp;
    uwsgi_temp_path {run}/tmp;
    scgi_temp_path {run}/tmp;
    upstream bangscore {{ server 127.0.0.1:{shim.port}; }}
    server {{
        listen 127.0.0.1:{port};
        include {REPO}/infra/nginx/locations.conf;
    }}
}}
"""
    )
    binary = shutil.which("nginx") or str(NGINX)
    process = subprocess.Popen([binary, "-c", str(conf), "-p", str(run)], stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: LOOPBACK.get(f"{url}/api/v1").status_code == 200, 15, "nginx proxying")
        yield url, shim
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(10)
        if process.stderr is not None:
            process.stderr.close()
        shim.stop()


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param("/metrics", id="exact"),
        pytest.param("/metrics/", id="trailing-slash"),
        pytest.param("/metrics//", id="two-slashes"),
        pytest.param("/metrics%2F", id="escaped-slash"),
        pytest.param("/metrics?x=1", id="query"),
        pytest.param("//metrics", id="leading-slashes"),
        pytest.param("/%6Detrics", id="escaped-letter"),
        pytest.param("/./metrics", id="dot-segment"),
        pytest.param("/api/../metrics", id="dot-dot"),
        pytest.param("/METRICS", id="upper-case"),
        pytest.param("/metrics;x", id="semicolon"),
    ],
)
def test_no_spelling_of_metrics_passes_the_edge(
    edge: tuple[str, ShimServer], spelling: str
) -> None:
    url, shim = edge
    # The raw path as written: httpx would normalise dot segments itself.
    with httpx.Client() as client:
        request = client.build_request("GET", f"{url}/")
        request.url = request.url.copy_with(raw_path=spelling.encode())
        answer = client.send(request)
    assert answer.status_code == 404
    assert SECRET_SERIES not in answer.text
    assert SECRET_SERIES in LOOPBACK.get(f"{shim.url}/metrics").text  # the replica still has them
