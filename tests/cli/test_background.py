"""What `bangscore build --finish-in-background` leaves to a background process
(cli/background.py): in order, the games' pages and badges, the Bulk export and the kept
stages, with the snapshot's lock held while the pages are to come; the work itself here, in
this process (tests/cli/test_build.py runs it forked)."""

from __future__ import annotations

import fcntl
from collections.abc import Callable
from pathlib import Path

import pytest

from bangscore.build.pipeline import BuildOptions, BuildResult, run_build
from bangscore.cli import background
from bangscore.cli.background import finish_in_background, lock_path, writing
from bangscore.manifest import read_manifest
from bangscore.settings import Settings
from bangscore.storage import LocalStorage
from tests.support.factories import SITE, make_catalog, small_catalog


def built(folder: Path, games: int, **options: object) -> BuildResult:
    """Given a folder, a number of small-catalogue games and build options, build them."""
    catalog = make_catalog(small_catalog()[:games])
    out = str(folder / "snapshots")
    return run_build(
        BuildOptions(load_catalog=lambda: catalog, out=out, site_url=SITE, base_url=SITE, **options)  # type: ignore[arg-type]
    )


def test_the_work_writes_the_pages_then_the_export_and_holds_the_snapshots_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    export = tmp_path / "export"
    result = built(tmp_path, 45, export=str(export), pages_later=True, export_later=True)
    started: list[tuple[str, Path, Path | None]] = []

    def in_process(work: Callable[[], str], log: Path, lock: Path | None = None) -> int:
        started.append((work(), log, lock))
        return 4242

    monkeypatch.setattr(background, "run_in_background", in_process)
    settings = Settings(state_dir=tmp_path, export=str(export))
    assert finish_in_background(result, None, settings) == 4242
    ((said, log, lock),) = started
    snapshot = result.snapshot_id
    assert log == tmp_path / "background.log" and lock == lock_path(tmp_path, snapshot)
    assert said.startswith(f"wrote 90 pages and badges into snapshot {snapshot}; exported 45 ")
    assert "pages" not in read_manifest(LocalStorage(tmp_path / "snapshots"), snapshot).meta
    assert capsys.readouterr().out == (
        f"writing the games' pages and badges and the Bulk export of snapshot {snapshot} in "
        f"the background (process 4242, log {log}); a game's page and badge answer 503 until "
        "theirs are written; GET /api/v1/export answers 404 until it is written\n"
    )


def test_nothing_left_starts_nothing(tmp_path: Path) -> None:
    result = built(tmp_path, 5)
    assert finish_in_background(result, None, Settings(state_dir=tmp_path)) is None


def test_a_lock_is_writing_only_while_a_process_holds_it(tmp_path: Path) -> None:
    lock = lock_path(tmp_path, "20261202T161544Z-b447")
    assert lock.name == "background-20261202T161544Z-b447.lock"
    assert not writing(lock)  # no file: no writer
    lock.touch()
    assert not writing(lock)  # a file nobody holds: a writer that ended or was killed
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert writing(lock)
    assert not writing(lock)
