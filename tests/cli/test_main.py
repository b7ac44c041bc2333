"""The bangscore command line, run in-process on a temporary state folder."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from bangscore.cli.main import main
from bangscore.ingest.catalog import write_catalog
from bangscore.manifest import list_snapshots, read_body, read_manifest
from bangscore.settings import Settings
from bangscore.storage import LocalStorage
from bangscore.stores.keys import is_well_formed, key_id
from tests.support.factories import make_catalog, small_catalog, sqlite_stores


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


# -- hardening round 2: URLs follow HOST/PORT, store mistakes are one clear line ----------------


@pytest.mark.parametrize(
    ("options", "site"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"port": 9123}, "http://127.0.0.1:9123"),
        ({"host": "0.0.0.0", "port": 8080}, "http://127.0.0.1:8080"),
        ({"host": "::", "port": 8080}, "http://[::1]:8080"),
        ({"host": "10.1.2.3", "port": 80}, "http://10.1.2.3:80"),
        ({"port": 9123, "site_url": "https://bangscore.example/"}, "https://bangscore.example"),
    ],
    ids=["default", "port", "wildcard", "ipv6-wildcard", "address", "configured"],
)
def test_the_site_url_follows_host_and_port_unless_configured(
    options: dict[str, object], site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("BANGSCORE_SITE_URL", "BANGSCORE_BASE_URL", "BANGSCORE_HOST", "BANGSCORE_PORT"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(**options)  # type: ignore[arg-type]
    assert settings.site_url == site and settings.api_base_url == site


def test_build_bakes_the_url_of_the_configured_port(
    state: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BANGSCORE_SITE_URL", raising=False)
    monkeypatch.setenv("BANGSCORE_PORT", "9123")  # what `make run PORT=9123` hands the build
    assert run(state, capsys, "build")[0] == 0
    store = LocalStorage(state / "snapshots")
    manifest = read_manifest(store, list_snapshots(store)[0])
    assert manifest.meta["site_url"] == manifest.meta["base_url"] == "http://127.0.0.1:9123"
    entry = manifest.entries["games/10000.json"]
    assert b'"url":"http://127.0.0.1:9123/game/10000/' in read_body(store, entry)


@pytest.mark.parametrize(
    "argv",
    [
        ["keys", "list"],
        ["keys", "revoke", "AAAAaaaa"],
        ["usage", "report"],
        ["serve", "--port", "1"],
    ],
    ids=["keys-list", "keys-revoke", "usage-report", "serve"],
)
def test_commands_that_read_keys_refuse_a_store_that_does_not_exist(
    state: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    typo = state / "bangscore.sqlite"  # the real one would be bangscore.sqlite3
    code, _, err = run(state, capsys, "--store", f"sqlite:///{typo}", *argv)
    assert code == 1
    assert err == f"error: no key store at {typo} (create one with `bangscore keys create`)\n"
    assert not typo.exists()


def test_keys_create_makes_the_store_it_names(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{state}/new/keys.sqlite3"
    assert run(state, capsys, "--store", url, "keys", "create", "--account", "a@x.io",
               "--plan", "free")[0] == 0  # fmt: skip
    code, out, _ = run(state, capsys, "--store", url, "keys", "list")
    assert code == 0 and "a@x.io" in out


def _read_only(path: Path) -> None:
    """Given a SQLite file, mark it read-only in its header (file format write version 3):
    SQLite then refuses every write, even for root, as it would a read-only file."""
    data = bytearray(path.read_bytes())
    data[18] = 3
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("case", ["under-a-file", "read-only"])
def test_store_errors_are_one_clear_line_and_a_failure(
    state: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    if case == "under-a-file":
        (state / "plain-file").write_text("not a folder")
        url = f"sqlite:///{state}/plain-file/keys.sqlite3"
        expected = "cannot create"
    else:
        url = f"sqlite:///{state}/ro.sqlite3"
        sqlite_stores(state / "ro.sqlite3").close()
        _read_only(state / "ro.sqlite3")
        expected = "readonly database"
    code, _, err = run(
        state, capsys, "--store", url, "keys", "create", "--account", "a@x.io", "--plan", "free"
    )
    assert code == 1
    assert err.count("\n") == 1 and err.startswith(f"error: the key store {url} failed: ")
    assert expected in err and "Traceback" not in err and "unique key id" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["ingest", "--limit", "9" * 5000],
        ["serve", "--port", "9" * 5000],
        ["serve", "--workers", "65"],
    ],
    ids=["ingest-limit", "port", "workers"],
)
def test_oversized_integer_options_are_refused(
    state: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, _, err = run(state, capsys, *argv)
    assert code == 2 and "must be an integer from 1 to" in err and "Traceback" not in err
