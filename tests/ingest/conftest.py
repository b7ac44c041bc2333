"""Fixtures shared by the ingest tests: real local servers replaying recorded responses."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ingest.replay import Handler, Replay, ReplayFactory, start_replay, stop_replay


@pytest.fixture
def replay() -> Iterator[ReplayFactory]:
    """Return a factory: given routes, start a replay server on a free port; all stop after."""
    started: list[Replay] = []

    def start(routes: dict[tuple[str, str], Handler]) -> Replay:
        started.append(start_replay(routes))
        return started[-1]

    yield start
    for server in started:
        stop_replay(server)
