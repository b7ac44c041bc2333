"""The bound on export downloads under way per client address (shim/file_stream.py); the
streamed body itself is tested through the download route (tests/shim/test_downloads.py) and
a real server (tests/hardening/test_memory.py)."""

from __future__ import annotations

from bangscore.shim.file_stream import DownloadGate, once


def test_a_download_gate_admits_per_client_at_most() -> None:
    gate = DownloadGate(2)
    assert [gate.enter("a"), gate.enter("a"), gate.enter("a"), gate.enter("b")] == [
        True, True, False, True
    ]  # fmt: skip
    gate.leave("a")
    assert (gate.held("a"), gate.enter("a"), gate.held("a")) == (1, True, 2)
    gate.leave("b")
    assert gate.held("b") == 0


def test_once_runs_its_action_on_the_first_call_only() -> None:
    calls: list[int] = []
    run = once(lambda: calls.append(1))
    run()
    run()
    assert calls == [1]
