"""Cells of the benchmark report: a run in which nothing answered reads as such, not as zero."""

from __future__ import annotations

import pytest

from bench.report import NO_ANSWER, _lat, _ratio, _rps
from bench.wrk import WrkResult

RAN = WrkResult(rps=8486.4, p50_ms=6.7, p99_ms=15.54, requests=50_918, non_2xx=0, errors=0)
BARE = WrkResult(rps=14794.0, p50_ms=4.1, p99_ms=9.0, requests=88_764, non_2xx=0, errors=0)
SILENT = WrkResult(rps=0.0, p50_ms=0.0, p99_ms=0.0, requests=0, non_2xx=0, errors=0)


@pytest.mark.parametrize(
    ("result", "rps", "latency"),
    [
        pytest.param(RAN, "8,486", "6.70 / 15.54", id="measured"),
        pytest.param(SILENT, NO_ANSWER, NO_ANSWER, id="nothing-answered"),
        pytest.param(None, "-", "-", id="not-run"),
    ],
)
def test_rate_and_latency_cells(result: WrkResult | None, rps: str, latency: str) -> None:
    assert (_rps(result), _lat(result)) == (rps, latency)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param(RAN, BARE, "0.57", id="both-measured"),
        pytest.param(RAN, SILENT, "-", id="divisor-silent"),
        pytest.param(SILENT, BARE, "-", id="dividend-silent"),
        pytest.param(RAN, None, "-", id="divisor-not-run"),
    ],
)
def test_ratio_cell(a: WrkResult | None, b: WrkResult | None, expected: str) -> None:
    assert _ratio(a, b) == expected
