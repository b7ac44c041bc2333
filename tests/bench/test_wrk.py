"""Parsing wrk's --latency output (wrk 4.1, as Debian ships it)."""

from __future__ import annotations

import pytest

from bench.wrk import parse_wrk

SAMPLE = """Running 6s test @ http://127.0.0.1:8124/api/v1/games?genre=rpg
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    12.31ms    4.02ms  80.11ms   90.12%
    Req/Sec     5.21k     1.95k    8.73k    64.00%
  Latency Distribution
     50%  {p50}
     75%   13.01ms
     90%   15.40ms
     99%  {p99}
  31064 requests in 6.00s, 160.12MB read
{extra}Requests/sec:   5177.68
Transfer/sec:     26.68MB
"""


@pytest.mark.parametrize(
    ("p50", "p99", "extra", "expected"),
    [
        ("10.34ms", "61.02ms", "", (10.34, 61.02, 0, 0)),
        ("940.00us", "1.20s", "", (0.94, 1200.0, 0, 0)),
        (
            "10.34ms",
            "61.02ms",
            "  Socket errors: connect 0, read 2, write 0, timeout 3\n"
            "  Non-2xx or 3xx responses: 17\n",
            (10.34, 61.02, 17, 5),
        ),
    ],
    ids=["ms", "us-and-s", "errors"],
)
def test_parse_wrk_reads_rate_latency_and_failures(
    p50: str, p99: str, extra: str, expected: tuple[float, float, int, int]
) -> None:
    result = parse_wrk(SAMPLE.format(p50=p50, p99=p99, extra=extra))
    assert result.rps == 5177.68
    assert result.requests == 31064
    assert (result.p50_ms, result.p99_ms, result.non_2xx, result.errors) == pytest.approx(expected)


def test_parse_wrk_refuses_output_without_latency() -> None:
    with pytest.raises(ValueError, match="50% latency"):
        parse_wrk("  10 requests in 1.00s, 1KB read\nRequests/sec:   10.00\n")
