"""The bangscore command line, run in-process on a temporary state folder."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from build.publish import list_snapshots
from build.storage import LocalStorage
from ingest.catalog import write_catalog
from shim.cli import main
from shim.keys import is_well_formed, key_id
from tests.factories import make_catalog, small_catalog


@pytest.fixture
def state(tmp_path: Path) -> Path:
    write_catalog(make_catalog(small_catalog()), tmp_path / "catalog.json.gz")
    return tmp_path


def run(state: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["--state-dir", str(state), *argv])
    except SystemExit as exc:  # argparse refuses a bad option value with exit status 2
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_build_publishes_from_the_state_catalog(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(state, capsys, "build")
    assert code == 0
    assert "catalog: " in out and "45 games" in out
    store = LocalStorage(state / "snapshots")
    assert len(list_snapshots(store)) == 1 and store.read_pointer() == list_snapshots(store)[0]
    code, out, _ = run(state, capsys, "snapshots", "list")
    assert code == 0 and out.startswith("* ") and "45 games" in out
    sid = list_snapshots(store)[0]
    code, out, _ = run(state, capsys, "snapshots", "verify", sid)
    assert code == 0 and "0 missing, 0 corrupt" in out


def test_build_with_a_corrupt_catalog_fails_cleanly(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (state / "catalog.json.gz").write_bytes(gzip.compress(b'{"games": [{"appid": "x"}]}'))
    code, _, err = run(state, capsys, "build")
    assert code == 1
    assert err.startswith("error: build failed, the current snapshot is unchanged")
    assert "Traceback" not in err
    assert not (state / "snapshots" / "current").exists()


def test_keys_create_list_revoke(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        state, capsys, "keys", "create", "--account", "a@x.io", "--plan", "free", "--limit", "3"
    )
    assert code == 0
    key = out.strip().splitlines()[-1]
    assert is_well_formed(key)
    code, out, _ = run(state, capsys, "keys", "list")
    assert key_id(key) in out and "a@x.io" in out and key not in out
    code, out, _ = run(state, capsys, "keys", "revoke", key_id(key))
    assert code == 0 and "revoked" in out
    code, _, err = run(state, capsys, "keys", "revoke", "nokey123")
    assert code == 1 and "no key" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--plan", "bulk"], "bulk keys need an explicit --limit"),
        (["--plan", "free", "--limit", "0"], "--limit: must be an integer from 1 to"),
        (["--plan", "bulk", "--limit", "9" * 5000], "--limit: must be an integer from 1 to"),
        (["--plan", "bulk", "--limit", "-5"], "--limit: must be an integer from 1 to"),
    ],
    ids=["bulk-without-limit", "zero-limit", "5000-digit-limit", "negative-limit"],
)
def test_keys_create_rejects_bad_limits(
    state: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(state, capsys, "keys", "create", "--account", "a@x.io", *argv)
    assert code == 2 and message in err
