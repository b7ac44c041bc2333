"""The protocol's write combining: what uvicorn writes in one turn of the event loop reaches
the connection's transport as one write. (The head limits and timers are probed against a
real server in tests/hardening/test_edge.py.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bangscore.shim.protocol import COMBINE_BYTES, _WriteCombining


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
