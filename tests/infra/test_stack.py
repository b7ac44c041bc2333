"""``infra/stack.sh`` end to end: SeaweedFS, Redis, two shim replicas and nginx on loopback,
started from the project's own files, called through nginx, and stopped by SIGTERM."""

from __future__ import annotations

import os
import queue
import random
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bangscore.ingest.catalog import write_catalog
from tests.support import factories, signups
from tests.support.live import LOOPBACK
from tests.support.servers import bindable

pytestmark = [pytest.mark.slow, pytest.mark.s3, pytest.mark.redis]
REPO = Path(__file__).resolve().parents[2]
READY_SECONDS = 180.0
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
NEW_KEY = re.compile(r'id="new-key-value" readonly value="([^"]+)"')


def listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def free_ports() -> dict[str, int]:
    """Pick the stack's ports: nginx, two replicas, Redis, and 5 SeaweedFS ports (+10000)."""
    for _ in range(200):
        base = random.randrange(20000, 30000, 10)
        weed = [base + i for i in range(5)] + [base + 10000 + i for i in range(5)]
        others = [base + 5, base + 6, base + 7, base + 8]
        if all(bindable(p) for p in weed + others):
            return {
                "STACK_WEED": base,
                "STACK_PORT": base + 5,
                "STACK_SHIM1": base + 6,
                "STACK_SHIM2": base + 7,
                "STACK_REDIS": base + 8,
            }
    raise RuntimeError("no free port range for the stack")


@dataclass
class Stack:
    """A running stack: its nginx URL, ports, demo key, the stack.sh process and its output,
    and its folder (``STACK_DIR``: the session secret)."""

    url: str
    ports: dict[str, int]
    key: str
    process: subprocess.Popen[str]
    output: list[str]
    folder: Path


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The stack over the small catalog, ready; stopped (SIGTERM) after the module."""
    folder = tmp_path_factory.mktemp("stack")
    catalog = folder / "catalog.json.gz"
    write_catalog(factories.make_catalog(factories.small_catalog()), catalog)
    ports = free_ports()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BANGSCORE_", "AWS_"))}
    env.update({name: str(port) for name, port in ports.items()})
    env.update({"STACK_DIR": str(folder / "run"), "STACK_CATALOG": str(catalog)})
    process = subprocess.Popen(
        ["bash", str(REPO / "infra" / "stack.sh")],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    deadline = time.monotonic() + READY_SECONDS
    while not any("stack ready" in line for line in output):
        try:
            output.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
        except queue.Empty:
            process.send_signal(signal.SIGTERM)
            process.wait(60)
            raise AssertionError("stack not ready:\n" + "".join(output)) from None
    key = (folder / "run" / "demo_key").read_text().strip()
    running = Stack(
        f"http://127.0.0.1:{ports['STACK_PORT']}", ports, key, process, output, folder / "run"
    )
    yield running
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
    reader.join(10)
    assert process.stdout is not None
    process.stdout.close()


def test_nginx_balances_keyed_calls_over_both_replicas_gzipped(stack: Stack) -> None:
    headers = {"Authorization": f"Bearer {stack.key}", "Accept-Encoding": "gzip"}
    upstreams: set[str] = set()
    served: dict[str, int] = {}
    with httpx.Client(base_url=stack.url, headers=headers) as client:
        for page in range(1, 7):
            answer = client.get("/api/v1/games", params={"page": page % 3 + 1})
            assert answer.status_code == 200
            assert answer.headers["content-encoding"] == "gzip"
            assert len(answer.json()["games"]) == 10
            upstream = answer.headers["x-upstream"]
            served[upstream] = served.get(upstream, 0) + 1
            # Each replica counts every request it served, and the others' as of its last
            # lease (docs/API.md#plans-and-quota): never fewer than its own.
            assert int(answer.headers["x-ratelimit-remaining"]) <= 1000 - served[upstream]
            upstreams.add(upstream)
        etag = answer.headers["etag"]
        again = client.get("/api/v1/games", params={"page": 1}, headers={"If-None-Match": etag})
        assert again.status_code == 304
    replicas = {
        f"127.0.0.1:{stack.ports['STACK_SHIM1']}",
        f"127.0.0.1:{stack.ports['STACK_SHIM2']}",
    }
    assert upstreams == replicas


def test_the_root_listing_needs_no_key_and_metrics_stay_internal(stack: Stack) -> None:
    root = LOOPBACK.get(f"{stack.url}/api/v1")
    assert root.status_code == 200 and root.json()["name"] == "BangScore"
    assert "x-ratelimit-remaining" in root.headers
    assert LOOPBACK.get(f"{stack.url}/metrics").status_code == 404
    direct = LOOPBACK.get(f"http://127.0.0.1:{stack.ports['STACK_SHIM1']}/metrics")
    assert "bangscore_store_round_trips_total" in direct.text


def test_an_account_made_through_nginx_gets_a_key_both_replicas_accept(stack: Stack) -> None:
    with httpx.Client(base_url=stack.url) as browser:
        page = browser.get("/account").text
        csrf = CSRF.search(page)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "email": "stack@x.io", "password": "a long password"}
        assert browser.post("/account/signup", data=form).status_code == 200
        # The email's link (read from the stack's Redis), opened by the same browser.
        store = f"redis://127.0.0.1:{stack.ports['STACK_REDIS']}/0"
        link = signups.signup_link(stack.folder, stack.url, "stack@x.io", store)
        assert signups.follow_signup_link(browser, link).status_code == 303
        # The session cookie must be honoured by whichever replica answers next.
        pages = [browser.get("/account").text for _ in range(2)]
        assert all('id="who">stack@x.io<' in p for p in pages)
        csrf = CSRF.search(pages[-1])
        assert csrf is not None
        created = NEW_KEY.search(browser.post("/account/keys", data={"csrf": csrf.group(1)}).text)
        assert created is not None
    headers = {"Authorization": f"Bearer {created.group(1)}"}
    answers = [LOOPBACK.get(f"{stack.url}/api/v1/games/10000", headers=headers) for _ in range(4)]
    assert [a.status_code for a in answers] == [200] * 4
    assert {a.headers["x-upstream"] for a in answers} == {
        f"127.0.0.1:{stack.ports['STACK_SHIM1']}",
        f"127.0.0.1:{stack.ports['STACK_SHIM2']}",
    }


def test_sigterm_stops_every_process_of_the_stack(stack: Stack) -> None:
    stack.process.send_signal(signal.SIGTERM)
    assert stack.process.wait(60) == 0  # a clean stop (issue 56: `make stack` said Error 143)
    for port in stack.ports.values():
        assert not listening(port), f"port {port} still open"


def test_the_stack_names_its_build_log_and_prints_the_build_by_stage(stack: Stack) -> None:
    """Issue 56: the stack's build went to a log it did not name, silent for minutes."""
    log = stack.folder / "logs" / "build.log"
    assert any(str(log) in line and "tail -f" in line for line in stack.output)
    stages = [line for line in stack.output if line.startswith("[stack] build: stage ")]
    assert [line.split()[3] for line in stages][:3] == ["ingest:", "score:", "render:"]
    assert any(line.startswith("[stack] build: published snapshot ") for line in stack.output)
