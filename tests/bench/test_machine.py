"""The machine probe (bench.machine): a fixed piece of work whose CPU time `make test` prints
beside its own, so runs at different hours can be compared."""

from __future__ import annotations

import re

import pytest

from bench import machine


def test_the_probe_takes_longer_for_ten_times_the_loops() -> None:
    short = min(machine.probe(100_000) for _ in range(3))
    long = min(machine.probe(1_000_000) for _ in range(3))
    assert 0 < short < long


def test_main_prints_one_line_with_the_probe_and_the_load(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert machine.main() == 0
    line = capsys.readouterr().out
    assert re.fullmatch(
        r"machine probe: \d+\.\d{3} s of CPU for 3,000,000 loops \(load [\d.]+ [\d.]+ [\d.]+\)\n",
        line,
    )
