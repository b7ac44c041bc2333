"""The issue-36 rows of the benchmark report: ratios, targets reached or not, rows left out
when not measured."""

from __future__ import annotations

import pytest

from bench.harden import LogFigures, section


@pytest.mark.parametrize(
    ("log", "starts", "expected"),
    [
        pytest.param(
            LogFigures(off_rps=10_000, on_rps=9_500, off_p99_ms=8.0, on_p99_ms=10.0),
            [1.2, 1.5, 1.4],
            [
                "| log on p99 within 1.5x log off | 1.25x | reached |",
                "| log on throughput >= 0.9x log off | 0.95x | reached |",
                "| replica start to first answer < 2 s | 1.40 s median, 1.50 s worst | reached |",
            ],
            id="reached",
        ),
        pytest.param(
            LogFigures(off_rps=10_000, on_rps=8_000, off_p99_ms=8.0, on_p99_ms=30.0),
            [1.2, 2.5, 1.4],
            [
                "| log on p99 within 1.5x log off | 3.75x | **not reached** |",
                "| log on throughput >= 0.9x log off | 0.80x | **not reached** |",
                "| replica start to first answer < 2 s | 1.40 s median, 2.50 s worst | "
                "**not reached** |",
            ],
            id="not-reached",
        ),
        pytest.param(None, [], [], id="nothing-measured"),
    ],
)
def test_targets_read_from_the_figures(
    log: LogFigures | None, starts: list[float], expected: list[str]
) -> None:
    lines = section(log, starts, 134_364)
    targets = lines[lines.index("| target (issue 36) | measured | reached |") + 2 :]
    assert [line for line in targets if line] == expected
    assert ("| median | 1.40 |" in lines) is bool(starts)
    assert any("134,364 manifest entries" in line for line in lines) is bool(starts)
