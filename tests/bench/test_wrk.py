"""Parsing wrk's --latency output (wrk 4.1, as Debian ships it), and the server's CPU time
read from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.wrk import parse_wrk, process_cpu

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


def _stat(proc: Path, pid: int, parent: int, utime: int, stime: int, name: str = "python") -> None:
    # /proc/<pid>/stat: pid (comm) state ppid ... utime is field 14, stime 15 (proc(5))
    fields = ["S", str(parent), *["0"] * 9, str(utime), str(stime), *["0"] * 6]
    (proc / str(pid)).mkdir()
    (proc / str(pid) / "stat").write_text(f"{pid} ({name}) {' '.join(fields)}\n")


def test_process_cpu_adds_up_the_process_and_its_descendants_only(tmp_path: Path) -> None:
    ticks = os.sysconf("SC_CLK_TCK")
    _stat(tmp_path, 10, 1, 3 * ticks, ticks)  # the server
    _stat(tmp_path, 11, 10, ticks, 0, name="uvicorn worker) x")  # a child; ")" in its name
    _stat(tmp_path, 12, 11, 0, 2 * ticks)  # a grandchild
    _stat(tmp_path, 13, 1, 50 * ticks, 0)  # unrelated
    assert process_cpu(10, tmp_path) == pytest.approx(7.0)
    assert process_cpu(11, tmp_path) == pytest.approx(3.0)
    assert process_cpu(99, tmp_path) == 0.0


def test_process_cpu_of_a_real_process_grows_with_its_work() -> None:
    # the child spins for 0.3 s of its own CPU time, then waits to be read
    spin = "import sys, time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"
    spin += "print('done', flush=True)\nsys.stdin.read()\n"
    child = subprocess.Popen(
        [sys.executable, "-c", spin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "done\n"
        assert process_cpu(child.pid) >= 0.29
    finally:
        child.communicate("")
