"""Export downloads against a real server (issue 55): a reader that stops reading is dropped
after the send timeout, its slot and connection freed, as nginx's ``send_timeout`` does."""

from __future__ import annotations

import socket
import time
from functools import partial
from pathlib import Path

import pytest

from bench.flood import write_export
from tests.hardening.conftest import ServerFactory, add_key, publish_into
from tests.hardening.test_memory import download_path, head_of, idle_reader
from tests.support import factories
from tests.support.live import LOOPBACK, wait_for

pytestmark = pytest.mark.slow  # real servers

SEND_TIMEOUT = 1.0  # seconds (BANGSCORE_EXPORT_SEND_TIMEOUT_SECONDS; 60 by default)
SLOTS = 2


def closed_by_server(sock: socket.socket) -> bool:
    """Given a connection, return True once the server has dropped it (reset or closed)."""
    sock.settimeout(0.2)
    try:
        while chunk := sock.recv(1 << 20):  # drain what the kernel holds, up to the end
            del chunk
        return True  # an orderly close after what was sent
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_stalled_download_frees_its_slot_within_the_send_timeout(
    tmp_path: Path, server_factory: ServerFactory, sockets: list[socket.socket]
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    write_export(tmp_path / "export", "s1", mib=12)
    server = server_factory(
        tmp_path,
        env={
            "BANGSCORE_EXPORT": str(tmp_path / "export"),
            "BANGSCORE_EXPORT_DOWNLOADS_PER_CLIENT": str(SLOTS),
            "BANGSCORE_EXPORT_SEND_TIMEOUT_SECONDS": str(SEND_TIMEOUT),
        },
    )
    path = download_path(server, add_key(tmp_path))
    stalled = [idle_reader(server, path, sockets) for _ in range(SLOTS)]
    for sock in stalled:
        wait_for(lambda s=sock: head_of(s).startswith(b"HTTP/1.1 200"), 30, "answered")  # type: ignore[misc]
    started = time.monotonic()
    # Every slot is held by a reader that reads nothing: one more is refused for now...
    assert LOOPBACK.head(f"{server.url}{path}", timeout=10).status_code == 429
    # ...until the send timeout drops them: a slot is free again within it (and a margin).
    wait_for(
        lambda: LOOPBACK.head(f"{server.url}{path}", timeout=10).status_code == 200,
        SEND_TIMEOUT + 5,
        "a slot freed",
    )
    for sock in stalled:  # each dropped by its own deadline, within a second of the other
        wait_for(partial(closed_by_server, sock), SEND_TIMEOUT + 5, "the connection dropped")
    assert time.monotonic() - started <= SEND_TIMEOUT + 5
    assert server.log().count("dropped: its reader took nothing for 1.0s") == SLOTS
