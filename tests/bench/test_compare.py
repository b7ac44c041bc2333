"""The paired regression check's own parts: medians and marks, the earlier commit's tree, and
the environment that makes its code the one imported."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bench.compare import Row, Side, checkout, median_row, report, side_env, working_tree
from bench.run import work_folder
from bench.wrk import WrkResult


def _wrk(rps: float, p99: float) -> WrkResult:
    return WrkResult(
        rps=rps, p50_ms=p99 / 2, p99_ms=p99, requests=int(rps * 5), non_2xx=0, errors=0
    )


@pytest.mark.parametrize(
    ("ref", "head", "expected", "regressed"),
    [
        pytest.param(
            [(9000, 12.0), (10000, 11.0), (11000, 30.0)],
            [(9500, 10.0), (9700, 10.5), (9800, 14.0)],
            Row("x", 10000, 9700, 6.0, 12.0, 5.25, 10.5),
            False,
            id="within-noise",
        ),
        pytest.param(
            [(10000, 10.0), (10000, 10.0)],
            [(8900, 12.0), (9000, 11.0)],
            Row("x", 10000, 8950, 5.0, 10.0, 5.75, 11.5),
            True,
            id="fell-past-ten-percent",
        ),
        pytest.param(
            [(10000, 10.0)],
            [(9000, 10.0)],
            Row("x", 10000, 9000, 5.0, 10.0, 5.0, 10.0),
            False,
            id="at-floor",
        ),
        pytest.param(
            [(0, 0.0)],
            [(9000, 10.0)],
            Row("x", 0, 9000, 0.0, 0.0, 5.0, 10.0),
            False,
            id="ref-silent",
        ),
    ],
)
def test_median_row_and_its_mark(
    ref: list[tuple[float, float]],
    head: list[tuple[float, float]],
    expected: Row,
    regressed: bool,
) -> None:
    row = median_row("x", [_wrk(*r) for r in ref], [_wrk(*h) for h in head])
    assert row == expected
    assert row.regressed is regressed


def test_median_row_takes_the_median_server_cpu_of_the_runs_that_measured_it() -> None:
    ref = [replace(_wrk(9000, 10.0), cpu_us=us) for us in (60.0, 90.0, 61.0)]
    head = [_wrk(9000, 10.0), replace(_wrk(9000, 10.0), cpu_us=70.0)]
    row = median_row("x", ref, head)
    assert (row.ref_cpu_us, row.head_cpu_us) == (61.0, 70.0)
    assert math.isnan(median_row("x", head[:1], head[:1]).ref_cpu_us)


def test_report_marks_regressed_rows_and_builds() -> None:
    sides = {
        "ref": Side("ref 3cb03e9", Path("/r"), {}),
        "head": Side("head 9df4778", Path("/h"), {}),
    }
    rows = [
        Row("search", 10_000, 9_990, 5.0, 11.0, 5.5, 11.2),
        Row("304", 10_000, 8_000, 4.0, 9.0, 7.0, 14.0, failed=3, ref_cpu_us=61.4, head_cpu_us=70.6),
    ]
    facts = {"CPU": "Test CPU", "cores (nproc)": "2", "load average at start (1/5/15 min)": "0.10"}
    text = report(sides, {"ref": [100.0, 110.0], "head": [130.0, 128.0]}, rows, facts, "2 rounds.")
    lines = text.splitlines()
    assert (
        "| search | 10,000 | 9,990 | 1.00 | 5.00 / 11.00 | 5.50 / 11.20 | - / - | 0 |  |" in lines
    )
    assert (
        "| 304 | 10,000 | 8,000 | 0.80 | 4.00 / 9.00 | 7.00 / 14.00 | 61 / 71 | 3 | **regressed** |"
        in lines
    )
    assert (
        "| median (100.0, 110.0 / 130.0, 128.0) | 105.0 | 129.0 | 1.23 | **regressed** |" in lines
    )


def _repo(folder: Path) -> Path:
    folder.mkdir()
    (folder / "bangscore").mkdir()
    (folder / "bangscore" / "__init__.py").write_text('WHERE = "the earlier tree"\n')
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "HOME": str(folder)}
    env |= {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": os.devnull}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", "-C", str(folder), *args], check=True, env=env)
    return folder


def test_checkout_extracts_the_commit_and_its_code_is_the_one_imported(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    expected = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    tree = tmp_path / "ref"
    assert checkout("HEAD", tree, repo) == expected
    # The editable install of this checkout must not win over the earlier tree.
    out = subprocess.run(
        [sys.executable, "-c", "import bangscore; print(bangscore.WHERE)"],
        cwd=tmp_path,
        env=side_env(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "the earlier tree"


def test_checkout_refuses_an_unknown_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    with pytest.raises(RuntimeError, match="unknown commit 'no-such-ref'"):
        checkout("no-such-ref", tmp_path / "ref", repo)
    assert not (tmp_path / "ref").exists()


def test_side_env_drops_this_shells_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BANGSCORE_API_BASE_URL", "https://elsewhere.example")
    env = side_env(Path("/tree"))
    assert env["PYTHONPATH"] == "/tree"
    assert not any(name.startswith("BANGSCORE_") for name in env)


def test_report_without_builds_says_they_were_not_run() -> None:
    sides = {"ref": Side("ref a", Path("/r"), {}), "head": Side("head b", Path("/h"), {})}
    facts = {"CPU": "c", "cores (nproc)": "2", "load average at start (1/5/15 min)": "0.10"}
    text = report(sides, {}, [Row("search", 100, 100, 0.5, 1.0, 0.5, 1.0)], facts, "no builds.")
    assert "| not run: served the state folders given (`--states`) | - | - | - | |" in text
    assert "| search | 100 | 100 | 1.00 | 0.50 / 1.00 | 0.50 / 1.00 | - / - | 0 |  |" in text


def test_median_row_counts_every_failed_answer_of_both_versions() -> None:
    def run(non_2xx: int, errors: int) -> WrkResult:
        return WrkResult(
            rps=1.0, p50_ms=1.0, p99_ms=1.0, requests=9, non_2xx=non_2xx, errors=errors
        )

    row = median_row("x", [run(2, 0), run(0, 1)], [run(0, 0), run(4, 0)])
    assert row.failed == 7


def test_working_tree_takes_uncommitted_edits_and_leaves_the_checkout_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "repo")
    # A machine with no git identity (CI's) must not stop it.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert working_tree(repo) == "HEAD"  # nothing changed
    source = repo / "bangscore" / "__init__.py"
    source.write_text('WHERE = "edited"\n')
    checkout(working_tree(repo), tmp_path / "now", repo)
    source.write_text('WHERE = "edited again, during the run"\n')
    assert (tmp_path / "now" / "bangscore" / "__init__.py").read_text() == 'WHERE = "edited"\n'
    status = subprocess.run(
        ["git", "-C", str(repo), "stash", "list"], capture_output=True, text=True, check=True
    )
    assert status.stdout == ""  # no stash entry made


@pytest.mark.parametrize("keep", [False, True], ids=["removed", "kept"])
def test_work_folder_is_removed_unless_kept(keep: bool, capsys: pytest.CaptureFixture[str]) -> None:
    with work_folder("bangscore-test-", keep=keep) as work:
        (work / "build.log").write_text("built")
    assert work.exists() is keep
    assert (f"work folder kept: {work}" in capsys.readouterr().out) is keep
    if keep:
        (work / "build.log").unlink()
        work.rmdir()
