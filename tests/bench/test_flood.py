"""The issue-45 rows of the benchmark report: the figures, the targets read from them, and the
distinct queries the flood sends."""

from __future__ import annotations

import pytest

from bench.flood import FloodFigures, distinct_queries, section


def figures(
    grown: float, head_ms: float, lookup_cpu_ms: float, start_s: float, warm_mib: float
) -> FloodFigures:
    return FloodFigures(
        download_before_mib=690,
        download_after_mib=690 + grown,
        head_cpu_ms=head_ms,
        download_seconds=0.11,
        query_start_mib=warm_mib,
        query_after_mib=warm_mib + 38,
        queries=20_000,
        lookup_rps=1745,
        lookup_p99_ms=26.2,
        lookup_cpu_ms=lookup_cpu_ms,
        list_rps=6656,
        list_p99_ms=22.6,
        list_cpu_ms=0.072,
        start_seconds=start_s,
        start_mib=warm_mib - 4,
    )


@pytest.mark.parametrize(
    ("measured", "expected"),
    [
        (
            figures(7, 0.38, 0.256, 1.41, 216),
            [
                "| 48 idle download readers add at most 20 MB | +7 MiB | reached |",
                "| a HEAD reads nothing (was 14 ms of CPU) | 0.38 ms | reached |",
                "| every endpoint ready within 2 s of spawn (was 2.6-3.8 s) | 1.41 s | reached |",
                "| a worker under 275 MB before any cache (was 609 MB) | 216 MiB warm, 212 MiB at "
                "start | reached |",
                "| a lookup 304 costs no compression (was 4-6.6x a list 304) | 3.6x | reached |",
            ],
        ),
        (
            figures(612, 12.58, 0.587, 3.8, 670),
            [
                "| 48 idle download readers add at most 20 MB | +612 MiB | **not reached** |",
                "| a HEAD reads nothing (was 14 ms of CPU) | 12.58 ms | **not reached** |",
                "| every endpoint ready within 2 s of spawn (was 2.6-3.8 s) | 3.80 s | "
                "**not reached** |",
                "| a worker under 275 MB before any cache (was 609 MB) | 670 MiB warm, 666 MiB at "
                "start | **not reached** |",
                "| a lookup 304 costs no compression (was 4-6.6x a list 304) | 8.2x | "
                "**not reached** |",
            ],
        ),
    ],
    ids=["reached", "not-reached"],
)
def test_targets_read_from_the_figures(measured: FloodFigures, expected: list[str]) -> None:
    lines = section(measured)
    targets = lines[lines.index("| target (issue 45) | measured | reached |") + 2 :]
    assert [line for line in targets if line] == expected
    after = measured.query_start_mib + 38
    assert (
        f"| distinct-query flood: RSS after 20,000 distinct queries | {after:.0f} MiB (+38) |"
        in lines
    )


def test_the_flood_sends_distinct_queries_keyed_and_not() -> None:
    sent = list(distinct_queries(20_000))
    assert len({path for path, _ in sent}) == 20_000
    assert {keyed for _, keyed in sent} == {True, False}
    assert all(path.startswith("/api/") == keyed for path, keyed in sent)
