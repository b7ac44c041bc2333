"""The protocol's write combining (what uvicorn writes in one turn of the event loop reaches
the connection's transport as one write) and its connection caps (per client group, per
process). (The head limits and timers are probed against a
real server in tests/hardening/test_edge.py.)"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from bangscore.shim.protocol import (
    COMBINE_BYTES,
    RESERVED_DESCRIPTORS,
    BoundedHttpToolsProtocol,
    HeadLimits,
    _WriteCombining,
    connection_cap,
)


class Recording(asyncio.Transport):
    """A transport that keeps what it is asked to do, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []
        self.closing = False

    def write(self, data: Any) -> None:
        self.calls.append(("write", bytes(data)))

    def write_eof(self) -> None:
        self.calls.append(("write_eof", None))

    def close(self) -> None:
        self.closing = True
        self.calls.append(("close", None))

    def abort(self) -> None:
        self.closing = True
        self.calls.append(("abort", None))

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return 7


def _run(steps: Any) -> list[tuple[str, Any]]:
    async def main() -> list[tuple[str, Any]]:
        raw = Recording()
        await steps(_WriteCombining(raw, asyncio.get_running_loop()), raw)
        await asyncio.sleep(0)  # one more turn: whatever is still held is sent
        return raw.calls

    return asyncio.run(main())


async def _head_then_body(t: _WriteCombining, raw: Recording) -> None:
    t.write(b"HTTP/1.1 200 OK\r\n\r\n")
    t.write(memoryview(b"{}"))
    assert raw.calls == []  # held until the turn ends
    assert t.get_write_buffer_size() == 7 + 21


async def _across_turns(t: _WriteCombining, raw: Recording) -> None:
    t.write(b"first")
    await asyncio.sleep(0)
    t.write(b"second")


async def _then_close(t: _WriteCombining, raw: Recording) -> None:
    t.write(b"answer")
    t.close()


async def _then_eof(t: _WriteCombining, raw: Recording) -> None:
    t.write(b"refusal")
    t.write_eof()


async def _then_abort(t: _WriteCombining, raw: Recording) -> None:
    t.write(b"never sent")
    t.abort()


async def _large(t: _WriteCombining, raw: Recording) -> None:
    t.write(b"x" * (COMBINE_BYTES - 1))
    t.write(b"y")
    assert len(raw.calls) == 1  # sent at once: a streamed body never piles up


@pytest.mark.parametrize(
    ("steps", "calls"),
    [
        pytest.param(
            _head_then_body, [("write", b"HTTP/1.1 200 OK\r\n\r\n{}")], id="one-turn-one-write"
        ),
        pytest.param(
            _across_turns, [("write", b"first"), ("write", b"second")], id="each-turn-its-own"
        ),
        pytest.param(_then_close, [("write", b"answer"), ("close", None)], id="close-sends-first"),
        pytest.param(_then_eof, [("write", b"refusal"), ("write_eof", None)], id="eof-sends-first"),
        pytest.param(_then_abort, [("abort", None)], id="abort-drops-what-is-held"),
        pytest.param(
            _large, [("write", b"x" * (COMBINE_BYTES - 1) + b"y")], id="a-full-buffer-goes-now"
        ),
    ],
)
def test_writes_of_one_turn_go_out_together(steps: Any, calls: list[tuple[str, Any]]) -> None:
    assert _run(steps) == calls


# -- the seam: what the bounded protocol takes from uvicorn's internals ----------------------
# shim/protocol.py subclasses uvicorn's private HttpToolsProtocol. pyproject.toml allows only
# the minor release tested here; these checks fail, naming what moved, before a newer uvicorn
# could change the protocol's behaviour silently.

PROTOCOL_METHODS = {
    "__init__": ["self", "config", "server_state", "app_state", "_loop"],
    "connection_made": ["self", "transport"],
    "connection_lost": ["self", "exc"],
    "data_received": ["self", "data"],
    "on_url": ["self", "url"],
    "on_header": ["self", "name", "value"],
    "on_headers_complete": ["self"],
    "on_message_complete": ["self"],
    "on_response_complete": ["self"],
    "send_400_response": ["self", "msg"],
    "_unset_keepalive_if_required": ["self"],
    "_start_asgi_task": ["self", "cycle", "app"],
}
# Instance attributes the subclass reads, as HttpToolsProtocol's source assigns them.
PROTOCOL_ATTRIBUTES = (
    "self.url",
    "self.parser",
    "self.cycle",
    "self.pipeline",
    "self.flow",
    "self.transport",
    "self.loop",
    "self.server",
    "self.client",
    "self.scheme",
    "self.root_path",
    "self.app_state",
    "self.logger",
    "self.access_logger",
    "self.access_log",
    "self.server_state",
    "self.app",
)
CYCLE_PARAMETERS = [
    "self",
    "scope",
    "transport",
    "flow",
    "logger",
    "access_logger",
    "access_log",
    "default_headers",
    "message_event",
    "expect_100_continue",
    "keep_alive",
    "on_response",
]
CYCLE_ATTRIBUTES = ("self.more_body", "self.keep_alive", "self.response_complete")


def _parameters(function: Any) -> list[str]:
    import inspect

    return list(inspect.signature(function).parameters)


@pytest.mark.parametrize("name", list(PROTOCOL_METHODS), ids=list(PROTOCOL_METHODS))
def test_uvicorn_protocol_methods_are_where_the_subclass_expects(name: str) -> None:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    method = getattr(HttpToolsProtocol, name, None)
    assert method is not None, f"uvicorn's HttpToolsProtocol has no {name} any more"
    assert _parameters(method) == PROTOCOL_METHODS[name], f"HttpToolsProtocol.{name} changed"


def test_uvicorn_protocol_and_cycle_keep_the_attributes_the_subclass_reads() -> None:
    import inspect
    import re

    from uvicorn.protocols.http import httptools_impl

    source = inspect.getsource(httptools_impl)
    missing = [
        a
        for a in (*PROTOCOL_ATTRIBUTES, *CYCLE_ATTRIBUTES)
        if not re.search(rf"{re.escape(a)}(: [^=\n]+)? = ", source)  # set, maybe annotated
    ]
    assert not missing, f"uvicorn's httptools protocol no longer sets {missing}"
    assert "async def receive(self)" in source
    assert "self.message_event" in source
    assert _parameters(httptools_impl.RequestResponseCycle.__init__) == CYCLE_PARAMETERS


def test_uvicorn_is_the_minor_release_pyproject_allows() -> None:
    import tomllib
    from importlib.metadata import version
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    # The server's packages are the `server` extra (the client installs alone: issue 56).
    pin = next(
        d
        for d in pyproject["project"]["optional-dependencies"]["server"]
        if d.startswith("uvicorn")
    )
    low, high = (part.lstrip(">=<") for part in pin.removeprefix("uvicorn").split(","))
    installed = tuple(int(n) for n in version("uvicorn").split(".")[:2])
    assert tuple(int(n) for n in low.split(".")[:2]) <= installed
    assert installed < tuple(int(n) for n in high.split(".")[:2])


class Peer(asyncio.Transport):
    """A connection's transport from ``host``: what uvicorn asks of one when it opens."""

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": (self.host, 40000), "sockname": ("::1", 8300)}.get(name, default)

    def abort(self) -> None:
        self.aborted = True

    def close(self) -> None:
        self.aborted = True

    def is_closing(self) -> bool:
        return self.aborted

    def write(self, data: Any) -> None:
        """Nothing is answered: no request arrives."""

    def get_write_buffer_size(self) -> int:
        return 0


def _opened(hosts: list[str], limits: HeadLimits) -> dict[str, bool]:
    """Given client addresses and limits, open a connection from each in turn (none closed);
    return whether each was accepted."""

    async def main() -> dict[str, bool]:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            """No request reaches it."""

        config = Config(app=app, lifespan="off")
        config.load()
        state, loop = ServerState(), asyncio.get_running_loop()
        accepted: dict[str, bool] = {}
        protocols = []
        for host in hosts:
            protocol = BoundedHttpToolsProtocol(config, state, {}, loop, limits=limits)
            transport = Peer(host)
            protocol.connection_made(transport)
            accepted[host] = not transport.aborted
            protocols.append(protocol)
        for protocol in protocols:  # every counted connection given back
            protocol.connection_lost(None)
        return accepted

    return asyncio.run(main())


def test_connections_are_counted_per_64_and_capped_in_all() -> None:
    # One /64 spreading its connections over 1,080 addresses (issue 55) holds its 64.
    flood = [f"2001:db8:1:2::{n:x}" for n in range(1, 1081)]
    others = ["2001:db8:9:9::1", "203.0.113.7", "::ffff:198.51.100.1"]
    accepted = _opened([*flood, *others], HeadLimits(max_client_connections=64))
    assert sum(accepted[h] for h in flood) == 64
    assert all(accepted[h] for h in flood[:64])
    assert all(accepted[h] for h in others)  # another network's client is still let in
    # All clients together stop at the process's cap, whatever their networks.
    many = [f"2001:db8:{n:x}::1" for n in range(1, 11)]
    capped = _opened(many, HeadLimits(max_client_connections=64, max_connections=6))
    assert [capped[h] for h in many] == [True] * 6 + [False] * 4


def test_the_connection_cap_stays_below_the_descriptor_limit() -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert connection_cap(10**9) == soft - RESERVED_DESCRIPTORS
    assert connection_cap(100) == min(100, soft - RESERVED_DESCRIPTORS)
