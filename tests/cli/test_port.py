"""bangscore/cli/port.py: a busy port named before the build starts (issue 56, item 1)."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bangscore.cli.port import main, port_problem
from tests.support.live import REPO


@pytest.fixture
def listening() -> Iterator[int]:
    """A real listener on a free loopback port; yields the port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_a_port_someone_listens_on_is_named_with_what_to_do(listening: int) -> None:
    problem = port_problem("127.0.0.1", listening)
    assert problem is not None
    assert f"port {listening} on 127.0.0.1 is in use" in problem
    assert f"make run PORT={listening + 1}" in problem


def test_a_free_port_is_free() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    assert port_problem("127.0.0.1", port) is None


def test_an_address_not_on_this_machine_says_why() -> None:
    problem = port_problem("192.0.2.1", 8000)  # TEST-NET-1: never a local address
    assert problem is not None and problem.startswith("cannot listen on 192.0.2.1:8000")


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="none"),
        pytest.param(["127.0.0.1"], id="no-port"),
        pytest.param(["127.0.0.1", "http"], id="not-a-number"),
        pytest.param(["127.0.0.1", "70000"], id="past-65535"),
    ],
)
def test_bad_arguments_are_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("usage:")


def test_the_command_fails_fast_naming_the_port(listening: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bangscore.cli.port", "127.0.0.1", str(listening)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: port {listening} on 127.0.0.1 is in use")
