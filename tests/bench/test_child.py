"""bench.child: a command's own peak memory and CPU time, and its exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BIG = 300 * 2**20  # held by the test process while it starts the command


@pytest.mark.parametrize(
    ("code", "status", "least_mib", "most_mib"),
    [
        pytest.param("pass", 0, 1, 100, id="small-command-small-peak"),
        pytest.param("x = bytearray(400 * 2**20)", 0, 400, 600, id="its-own-peak"),
        pytest.param("raise SystemExit(3)", 3, 1, 100, id="exit-status-passes-through"),
    ],
)
def test_reports_the_commands_own_peak_not_its_starters(
    tmp_path: Path, code: str, status: int, least_mib: int, most_mib: int
) -> None:
    held = bytearray(BIG)  # a large starter, as the benchmark is
    held[::4096] = b"x" * len(held[::4096])  # touch every page, so it is resident
    out = tmp_path / "usage.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.child", str(out), sys.executable, "-c", code], check=False
    )
    assert done.returncode == status
    usage = json.loads(out.read_text())
    assert least_mib <= usage["maxrss_kib"] / 1024 < most_mib
    assert usage["user_seconds"] >= 0 and usage["system_seconds"] >= 0
    del held
