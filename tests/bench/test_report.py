"""Cells of the benchmark report: a run in which nothing answered reads as such, not as zero."""

from __future__ import annotations

import pytest

from bench.report import (
    DUMPS_LABEL,
    NO_ANSWER,
    BuildFigure,
    _lat,
    _ratio,
    _rps,
    build_seconds_target,
    build_table,
    lookup_lines,
    parse_stages,
    stage_table,
)
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


@pytest.mark.parametrize(
    ("label", "seconds"),
    [
        pytest.param("real", 60.0, id="from-a-catalogue-file"),
        pytest.param(DUMPS_LABEL, 90.0, id="from-the-dumps"),
    ],
)
def test_build_targets(label: str, seconds: float) -> None:
    assert build_seconds_target(label) == seconds


def test_build_table_row_gives_wall_cpu_and_peak() -> None:
    fig = BuildFigure("real", 39_503, 52.3, 1200.0, 126_704, 1375.4, cpu_seconds=61.25)
    rows = [line for line in build_table([fig]) if line.startswith("| real |")]
    assert rows == ["| real | 39,503 | 52.3 | 61.2 | 1,200 | 126,704 | 1,375.4 | 1,324 | 31.1 |"]


@pytest.mark.parametrize(
    ("lookup", "listed", "expected"),
    [
        pytest.param(
            WrkResult(rps=2000.0, p50_ms=30.0, p99_ms=60.0, requests=1, non_2xx=0, errors=0),
            RAN,
            "The lookup answers 100 games a request: 200,000 games/s, against 84,864 games/s "
            "from the precomputed list page (10 a request), 2.4x; one request costs 0.50 ms "
            "against the list page's 0.12 ms.",
            id="both ran",
        ),
        pytest.param(None, RAN, None, id="no lookup row"),
        pytest.param(SILENT, RAN, None, id="lookup answered nothing"),
    ],
)
def test_lookup_lines_compare_games_a_second(
    lookup: WrkResult | None, listed: WrkResult, expected: str | None
) -> None:
    lines = lookup_lines(lookup, listed)
    assert lines == ([] if expected is None else ["", expected])


def test_the_stage_table_has_a_row_per_stage_with_the_load_beside() -> None:
    """Issue 56: `make bench` reports the build by stage, CPU beside wall, the load beside."""
    stages = (("ingest", 80.5, 71.25), ("render", 120.0, 230.0))
    fig = BuildFigure("dumps", 40_000, 300.0, 2000.0, 138_000, 350.0, 400.0, stages, "5.1 4 3")
    bare = BuildFigure("real", 40_000, 250.0, 2000.0, 138_000, 350.0, 380.0)
    lines = stage_table([bare, fig])
    assert lines[-2:] == [
        "| dumps | ingest | 80.5 | 71.2 | 5.1 4 3 |",
        "| dumps | render | 120.0 | 230.0 | 5.1 4 3 |",
    ]
    assert stage_table([bare]) == []


def test_the_stages_a_build_prints_are_read_back() -> None:
    from bangscore.build.stages import StageClock

    clock = StageClock()
    clock.add("ingest", 80.46, 71.25)
    clock.add("render", 120.0, 230.04)
    text = "catalog: x\n" + "\n".join(clock.lines()) + "\npublished snapshot s1 to var\n"
    assert parse_stages(text) == (("ingest", 80.5, 71.2), ("render", 120.0, 230.0))
