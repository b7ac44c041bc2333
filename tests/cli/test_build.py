"""The ``build``, ``ingest`` and ``snapshots`` commands (bangscore/cli/build.py), run in-process
on a temporary state folder as tests/cli/test_main.py runs them."""

from __future__ import annotations

import fcntl
import gzip
import os
import re
import shutil
from pathlib import Path

import pytest

from bangscore.cli.background import lock_path, writing
from bangscore.contract.export import GAMES_JSONL, file_key, read_latest
from bangscore.ingest.catalog import read_catalog
from bangscore.manifest import (
    gunzip_body,
    list_snapshots,
    manifest_key,
    object_key,
    read_manifest,
)
from bangscore.storage import LocalStorage, StoredObject
from tests.cli.test_main import run, state  # noqa: F401  (state is the fixture of the state folder)
from tests.support.factories import make_record, publish_catalog


def _snapshots(folder: Path) -> list[str]:
    return list_snapshots(LocalStorage(folder / "snapshots"))


def test_build_with_an_export_prints_what_changed_since_the_previous_export(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    export = state / "export"
    code, out, _ = run(state, capsys, "build", "--export", str(export))
    assert code == 0
    first = read_latest(LocalStorage(export))
    assert first is not None and first.previous is None
    assert [f.rows for f in first.files if f.name == GAMES_JSONL] == [45]
    assert out.splitlines()[-1] == (
        f"exported 45 games to {export}: 45 added, 0 changed, 0 removed since the previous export"
    )
    code, out, _ = run(state, capsys, "build", "--export", str(export))
    assert code == 0
    assert out.splitlines()[-1] == (
        f"exported 45 games to {export}: 0 added, 0 changed, 0 removed since the previous export"
    )
    second = read_latest(LocalStorage(export))
    assert second is not None and second.previous == first.snapshot != second.snapshot


def test_build_without_an_export_prints_no_export_line(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BANGSCORE_EXPORT", raising=False)
    code, out, _ = run(state, capsys, "build")
    assert code == 0 and out.splitlines()[-1].startswith("published snapshot ")
    assert "exported" not in out and not (state / "export").exists()


def test_snapshots_list_gives_the_stored_size_the_build_reported(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 48: the list summed the uncompressed bodies (1,261.8 MB), the build the stored
    # ones (318.5 MB).
    code, out, _ = run(state, capsys, "build")
    assert code == 0
    built = re.search(r"objects \(([\d.]+) MB\)", out)
    assert built is not None
    code, out, _ = run(state, capsys, "snapshots", "list")
    listed = re.search(r"([\d.]+) MB stored \(([\d.]+) MB uncompressed\)", out)
    assert code == 0 and listed is not None, out
    assert listed[1] == built[1]
    assert float(listed[2]) > float(listed[1])  # the gzip forms are smaller


def test_rollback_makes_an_older_snapshot_current_and_says_which_was(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(state, capsys, "build")[0] == 0
    assert run(state, capsys, "build")[0] == 0
    first, second = sorted(_snapshots(state))
    store = LocalStorage(state / "snapshots")
    assert store.read_pointer() == second
    code, out, _ = run(state, capsys, "snapshots", "rollback", first)
    assert (code, out) == (0, f"current is now {first} (was {second})\n")
    assert store.read_pointer() == first
    code, out, _ = run(state, capsys, "snapshots", "list")
    assert sorted(line[: 2 + len(first)] for line in out.splitlines()) == [
        f"  {second}",
        f"* {first}",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rollback", "20990101T000000Z-none"], "20990101T000000Z-none"),
        (["verify", "20990101T000000Z-none"], "20990101T000000Z-none"),
        (["rollback", "../current"], "error: ../current is not a snapshot id"),
    ],
    ids=["rollback-unknown", "verify-unknown", "rollback-path"],
)
def test_snapshots_refuses_an_id_it_does_not_keep_in_one_line(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    assert run(state, capsys, "build")[0] == 0
    current = LocalStorage(state / "snapshots").read_pointer()
    code, out, err = run(state, capsys, "snapshots", *argv)
    assert (code, out) == (1, "")
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert LocalStorage(state / "snapshots").read_pointer() == current


def test_ingest_refuses_an_unknown_source_before_sending_anything(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = (state / "catalog.json.gz").read_bytes()
    code, out, err = run(state, capsys, "ingest", "--sources", "steamspy, nope")
    assert (code, out) == (2, "")
    assert err.startswith("error: unknown sources ['nope']; known: ") and "steamspy" in err
    assert (state / "catalog.json.gz").read_bytes() == before
    assert not (state / "cache").exists()


def test_ingest_dry_run_plans_for_the_state_catalog(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    games = len(read_catalog(state / "catalog.json.gz").games)
    code, out, _ = run(state, capsys, "ingest", "--dry-run")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"dry run: nothing sent; a full refresh of {games:,} rated games"
    assert any(line.lstrip().startswith("store.steampowered.com") for line in lines)
    assert "least wall time: " in out
    assert not (state / "cache").exists()


def test_ingest_dry_run_counts_the_catalog_without_reading_its_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 48: the plan read and validated every record (22 s) for its size alone. These
    # 40,000 games are no valid records: only counted, they plan as well.
    body = b'{"games": [' + b",".join([b'{"appid": "x"}'] * 40_000) + b"]}"
    (tmp_path / "catalog.json.gz").write_bytes(gzip.compress(body))
    code, out, _ = run(tmp_path, capsys, "ingest", "--dry-run")
    assert code == 0
    assert out.splitlines()[0] == "dry run: nothing sent; a full refresh of 40,000 rated games"


def test_ingest_dry_run_without_a_catalog_plans_for_the_current_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # What `make run` leaves: a snapshot joined from the bundled dumps, no catalog file.
    monkeypatch.setenv("BANGSCORE_DATA_DIR", str(tmp_path / "no-data"))  # never read
    records = [make_record(appid=a, name=f"Game {a}") for a in (10, 20, 30)]
    publish_catalog(records, LocalStorage(tmp_path / "snapshots"))
    code, out, err = run(tmp_path, capsys, "ingest", "--dry-run")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (
        f"no catalog at {tmp_path / 'catalog.json.gz'} yet: planning for the current "
        "snapshot's 3 games"
    )
    assert lines[1] == "dry run: nothing sent; a full refresh of 3 rated games"


@pytest.mark.parametrize("argv", [["ingest"], ["ingest", "--dry-run"]], ids=["ingest", "dry-run"])
def test_ingest_without_a_catalog_or_the_dumps_to_seed_one_fails_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    monkeypatch.setenv("BANGSCORE_DATA_DIR", str(tmp_path / "no-data"))
    code, _, err = run(tmp_path, capsys, *argv)
    assert code == 1 and "Traceback" not in err
    # Above the one line, only the progress bar of reading the dumps (on a terminal's stderr).
    assert err.splitlines()[-1].startswith(f"error: missing raw dump {tmp_path / 'no-data'}/raw/")
    assert not (tmp_path / "catalog.json.gz").exists()


def test_ingest_dry_run_with_a_corrupt_catalog_fails_in_one_line(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    (state / "catalog.json.gz").write_bytes(gzip.compress(b"{not json"))
    code, out, err = run(state, capsys, "ingest", "--dry-run")
    assert (code, out) == (1, "")
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_build_without_a_catalog_or_the_dumps_fails_and_publishes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BANGSCORE_DATA_DIR", str(tmp_path / "no-data"))
    code, _, err = run(tmp_path, capsys, "build")
    assert code == 1
    assert err.splitlines()[-1].startswith(
        "error: build failed, the current snapshot is unchanged: missing raw dump"
    )
    assert not (tmp_path / "snapshots" / "current").exists()


def test_a_build_if_changed_is_skipped_while_its_inputs_and_snapshot_are_current(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 56 item 1: a second `make run` (`build --if-changed`) serves what is there, and
    so does `make run PORT=9001` (the server moves the address); any input changed, a
    configured address, or another snapshot made current, builds again."""
    monkeypatch.delenv("BANGSCORE_SITE_URL", raising=False)
    monkeypatch.delenv("BANGSCORE_BASE_URL", raising=False)
    assert run(state, capsys, "build", "--if-changed")[0] == 0  # no stamp yet: built
    first = _snapshots(state)
    assert len(first) == 1
    code, out, _ = run(state, capsys, "build", "--if-changed")
    assert code == 0 and out.startswith(f"snapshot {first[0]} is current: ")
    assert _snapshots(state) == first  # nothing published
    monkeypatch.setenv("BANGSCORE_PORT", "9001")  # `make run PORT=9001`
    code, out, _ = run(state, capsys, "build", "--if-changed")
    assert code == 0 and out.startswith(f"snapshot {first[0]} is current: ")
    assert _snapshots(state) == first
    code, out, _ = run(state, capsys, "build", "--if-changed", "--site-url", "http://x.test")
    assert code == 0 and "published snapshot " in out  # an address baked into pages changed
    assert len(_snapshots(state)) == 2
    assert run(state, capsys, "build", "--if-changed", "--site-url", "http://x.test")[0] == 0
    assert len(_snapshots(state)) == 2
    catalog = state / "catalog.json.gz"
    catalog.write_bytes(catalog.read_bytes() + b"")  # the same bytes, a new timestamp
    assert (
        "is current"
        in run(state, capsys, "build", "--if-changed", "--site-url", "http://x.test")[1]
    )
    assert len(_snapshots(state)) == 2


def test_snapshots_list_on_an_empty_state_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 56 item 7: `snapshots list` on an empty state printed nothing."""
    code, out, _ = run(tmp_path, capsys, "snapshots", "list")
    assert code == 0 and out.startswith("no snapshots in ") and "bangscore build" in out


def test_snapshots_verify_says_how_many_bodies_it_read(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 56 item 7: the progress bar counted bodies, the last line objects (138,422 then
    138,466), with no word on why they differ."""
    assert run(state, capsys, "build")[0] == 0
    (sid,) = _snapshots(state)
    code, out, _ = run(state, capsys, "snapshots", "verify", sid)
    found = re.search(
        r"([\d,]+) objects checked, 0 missing, 0 corrupt \(([\d,]+) stored bodies", out
    )
    assert code == 0 and found, out
    objects, bodies = (int(n.replace(",", "")) for n in found.groups())
    assert objects > 0 and bodies > 0 and "share one" in out


@pytest.mark.parametrize(
    ("argv", "code", "said"),
    [
        (("--as-of", "2026-6-24"), 2, "2026-6-24 is not a YYYY-MM-DD day"),
        (("--as-of", "20260624"), 2, "20260624 is not a YYYY-MM-DD day"),
        (("--as-of", "2026-02-30"), 2, "2026-02-30 is not a YYYY-MM-DD day"),
        (("--as-of", "2999-01-01"), 1, "error: --as-of 2999-01-01 is after today"),
        (("--as-of", "2026-06-24", "--catalog", "x.json.gz"), 1, "drop --catalog"),
    ],
    ids=["not-padded", "no-dashes", "no-such-day", "future", "with-a-catalog-file"],
)
def test_build_as_of_refuses_a_bad_day_in_one_line_and_publishes_nothing(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    code: int,
    said: str,
) -> None:
    got, out, err = run(state, capsys, "build", *argv)
    assert (got, out) == (code, "")
    assert said in err and "Traceback" not in err
    assert not (state / "snapshots" / "current").exists()


RAW = Path(__file__).resolve().parents[2] / "data" / "raw"


def _damaged_storefront(data: Path, damage: str) -> Path:
    """Given a data folder, copy the bundled storefront dump into its raw folder damaged:
    ``bad-json`` (its first shard not JSON) or ``one-shard`` (every shard but the first
    gone: a dump read short, with no read error); return the dump's folder."""
    dump = data / "raw" / "steam_pics_2026"
    (dump / "pics_raw").mkdir(parents=True)
    shutil.copytree(RAW / "steam_pics_2026" / "lookups", dump / "lookups")
    first = RAW / "steam_pics_2026" / "pics_raw" / "shard_00.json.gz"
    body = gzip.compress(b'{"apps": [') if damage == "bad-json" else first.read_bytes()
    (dump / "pics_raw" / first.name).write_bytes(body)
    return dump


@pytest.mark.parametrize(
    ("damage", "check"),
    [("bad-json", "cannot read raw dump"), ("one-shard", "fails its expectation 'row count'")],
    ids=["bad-json", "one-shard"],
)
def test_a_build_from_a_damaged_dump_fails_naming_it_and_publishes_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    damage: str,
    check: str,
) -> None:
    store = LocalStorage(tmp_path / "snapshots")
    publish_catalog([make_record(appid=10)], store, snapshot_id="s1")
    dump = _damaged_storefront(tmp_path / "data", damage)
    monkeypatch.setenv("BANGSCORE_DATA_DIR", str(tmp_path / "data"))
    code, _, err = run(tmp_path, capsys, "build")
    assert code == 1 and "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith("error: build failed, the current snapshot is unchanged: ")
    assert f"{check}" in last and str(dump) in last
    assert store.read_pointer() == "s1" and list_snapshots(store) == ["s1"]


def _export_rows(export: Path) -> bytes:
    latest = read_latest(LocalStorage(export))
    assert latest is not None
    return gzip.decompress(LocalStorage(export).get(file_key(latest.snapshot, GAMES_JSONL)))


def _pages(folder: Path) -> dict[str, bytes]:
    """Given a state folder, return its current snapshot's games' pages and badges, by key."""
    store = LocalStorage(folder / "snapshots")
    pointer = store.read_pointer()
    assert pointer is not None
    entries = read_manifest(store, pointer).entries
    return {
        key: gunzip_body(store.get(object_key(e.stored[0])))
        if e.encodings
        else store.get(object_key(e.sha256))
        for key, e in entries.items()
        if key.startswith(("site/game/", "site/badge/"))
    }


def test_build_finish_in_background_publishes_first_then_writes_the_same_pages_and_export(
    state: Path,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 56: `make run` serves once the snapshot is current, its games' pages and badges
    # missing; they, the export and the kept stages follow.
    export = state / "export"
    code, out, _ = run(state, capsys, "build", "--export", str(export), "--finish-in-background")
    assert code == 0
    said = re.search(r"in the background \(process (\d+), log (\S+)\)", out)
    assert said is not None, out
    assert "the games' pages and badges, the Bulk export of snapshot" in out
    assert "a game's page and badge answer 503 until theirs are written" in out
    assert "exported" not in out and "(kept in the background)" in out
    _, status = os.waitpid(int(said[1]), 0)  # the forked writer, bounded by its own work
    assert os.waitstatus_to_exitcode(status) == 0
    snapshot = _snapshots(state)[-1]
    assert LocalStorage(state / "snapshots").read_pointer() == snapshot
    log = Path(said[2]).read_text()
    assert Path(said[2]) == state / "background.log"
    last = log.splitlines()[-1]
    assert last.startswith(f"wrote 90 pages and badges into snapshot {snapshot}; ")
    assert f"; exported 45 games of snapshot {snapshot} to {export}: 45 added, " in last
    assert last.endswith("; kept stages: score")
    assert [p.name[:6] for p in (state / "cache" / "stages").iterdir()] == ["score-"]
    manifest = read_manifest(LocalStorage(state / "snapshots"), snapshot)
    assert "pages" not in manifest.meta
    latest = read_latest(LocalStorage(export))
    assert latest is not None and latest.snapshot == snapshot
    # Stamped once whole: the next build with the same inputs is skipped.
    again = run(state, capsys, "build", "--export", str(export), "--if-changed")[1]
    assert again.startswith(f"snapshot {snapshot} is current")
    # The same pages and rows as a build that writes them before it returns.
    other = tmp_path_factory.mktemp("foreground")
    shutil.copy(state / "catalog.json.gz", other / "catalog.json.gz")
    assert run(other, capsys, "build", "--export", str(other / "export"))[0] == 0
    pages = _pages(state)
    assert len(pages) == 90 and pages == _pages(other)
    assert _export_rows(export) == _export_rows(other / "export")


def test_a_snapshot_whose_pages_are_to_come_is_current_while_their_writer_runs(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Issue 56: a `make run` stopped and started again while its pages are written serves
    # at once; one whose writer was killed before it wrote them builds again.
    code, out, _ = run(state, capsys, "build", "--finish-in-background")
    said = re.search(r"in the background \(process (\d+),", out)
    assert code == 0 and said is not None, out
    _, status = os.waitpid(int(said[1]), 0)
    assert os.waitstatus_to_exitcode(status) == 0
    store = LocalStorage(state / "snapshots")
    snapshot = _snapshots(state)[-1]
    lock = lock_path(state, snapshot)
    assert not lock.exists()  # the writer took its lock file with it
    # As a writer killed before the pages were written leaves it: pending, nobody writing.
    manifest = read_manifest(store, snapshot)
    manifest.meta["pages"] = "pending"
    store.put_many([StoredObject(manifest_key(snapshot), manifest.to_bytes())])
    with lock.open("w") as held:  # a writer at work holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        assert writing(lock)
        again = run(state, capsys, "build", "--if-changed")[1]
        assert again.startswith(f"snapshot {snapshot} is current")
    assert not writing(lock)
    rebuilt = run(state, capsys, "build", "--if-changed")[1]
    assert "published snapshot" in rebuilt and _snapshots(state)[-1] != snapshot
