"""A build's time by stage (issue 56, item 1): every stage of a real build of the small
catalogue is measured, the parts add up to no more than the whole, and the clock counts only
what it is asked to count."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bangscore.build.pipeline import expected_objects, run_build
from bangscore.build.stages import STAGES, StageClock
from tests.build.test_pipeline import options


def spin(seconds: float) -> None:
    """Spend ``seconds`` of this process's CPU time (a busy loop, not a sleep)."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_timed_counts_the_producer_not_the_consumer() -> None:
    clock = StageClock()

    def produce() -> list[int]:
        spin(0.05)
        return [1]

    def items() -> Iterator[int]:
        for _ in range(2):
            yield from produce()

    for _ in clock.timed("render", items()):
        spin(0.1)  # the consumer's work: not rendering's
    assert 0.1 <= clock.cpu["render"] < 0.2


def test_take_moves_an_inner_stage_out_of_the_outer_one() -> None:
    clock = StageClock()
    with clock.stage("publish"):
        with clock.stage("compress"):
            spin(0.05)
        spin(0.05)
    clock.take("publish", "compress")
    assert clock.cpu["compress"] >= 0.05
    assert 0.05 <= clock.cpu["publish"] < 0.09


@pytest.mark.parametrize("workers", [1, 2], ids=["one-process", "forked-renderers"])
def test_a_build_reports_every_stage_and_they_add_up_to_at_most_the_whole(
    tmp_path: Path, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two blocks of games, so that two workers really fork (game_pages.GAMES_PER_TASK).
    monkeypatch.setattr("bangscore.build.game_pages.GAMES_PER_TASK", 20)
    result = run_build(options(tmp_path, workers=workers, export=str(tmp_path / "export")))
    clock = result.stages
    assert [line.split(":")[0] for line in clock.lines()] == [f"stage {s}" for s in STAGES]
    for name in STAGES:
        assert clock.wall[name] > 0 and clock.cpu[name] >= 0, name
    assert clock.cpu["render"] > 0 and clock.cpu["compress"] > 0
    assert sum(clock.wall.values()) <= result.seconds


def test_the_publish_bar_has_a_total_first_estimated_then_the_current_snapshot_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56: the publish bar had no total, so no ETA. A first build estimates it from the
    games (OBJECTS_PER_GAME), a rebuild takes the current snapshot's count; the last line
    says what was published."""
    first = run_build(options(tmp_path, progress=True))
    err = capsys.readouterr().err
    objects = first.publish.objects
    assert f"/{expected_objects(45, None)} [" in err  # the estimate, while it ran
    assert f"| {objects}/{objects} [" in err  # the last line: exact
    second = run_build(options(tmp_path, progress=True)).publish.objects
    err = capsys.readouterr().err
    assert f"/{objects} [" in err and f"| {second}/{second} [" in err
