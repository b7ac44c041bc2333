"""bench/production.py: the production section's targets from figures, and disk use."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.production import NGINX_LOGGED, SHIM_LOGGED, SHIM_QUIET, Disk, disk_usage, targets
from bench.wrk import WrkResult

NAMES = ["precomputed list page", "detail record"]


def _r(rps: float) -> WrkResult:
    return WrkResult(rps=rps, p50_ms=1.0, p99_ms=2.0, requests=int(rps), non_2xx=0, errors=0)


def _figures(logged: float, gzip_speed: float) -> dict[tuple[str, str, str], WrkResult]:
    found = {}
    for name in NAMES:
        for coding in ("identity", "gzip"):
            found[(name, SHIM_QUIET, coding)] = _r(10_000)
            found[(name, SHIM_LOGGED, coding)] = _r(
                10_000 * logged * (gzip_speed if coding == "gzip" else 1)
            )
            found[(name, NGINX_LOGGED, coding)] = _r(30_000)
    return found


@pytest.mark.parametrize(
    ("logged", "body", "allocated", "reached"),
    [
        pytest.param(0.95, (5240, 914), 326e6, True, id="all-reached"),
        pytest.param(0.85, (5240, 914), 326e6, False, id="log-too-slow"),
        pytest.param(0.95, (5240, 1400), 326e6, False, id="gzip-too-large"),
        pytest.param(0.95, (5240, 914), 692e6, False, id="snapshot-too-big"),
    ],
)
def test_targets_mark_what_is_reached(
    logged: float, body: tuple[int, int], allocated: float, reached: bool
) -> None:
    wire = {
        (NAMES[0], "identity"): (body[0] + 800, body[0]),
        (NAMES[0], "gzip"): (body[1] + 800, body[1]),
    }
    found = targets(NAMES, _figures(logged, 1.0), wire, Disk(int(allocated), 0, 4))
    assert len(found) == 8
    assert all(ok for _, _, ok in found) is reached


def test_disk_usage_counts_blocks_bytes_and_files(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 10)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * 5000)
    found = disk_usage(tmp_path)
    assert (found.apparent, found.files) == (5010, 2)
    assert found.allocated >= 5010
