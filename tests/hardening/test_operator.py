"""An operator's bad day, through the real command line (``python -m bangscore`` in a
subprocess) and a real server: bad catalogues refused, broken snapshot objects healed by the
next build, orphans collected, bad arguments answered in one line, and a state folder removed
under a running server noticed instead of silently replaced."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bangscore.ingest.catalog import write_catalog
from bangscore.manifest import list_snapshots, object_key, read_manifest
from bangscore.storage import LocalStorage, StoredObject
from tests.hardening.conftest import ServerFactory, publish_into
from tests.support.factories import make_catalog, small_catalog
from tests.support.live import LOOPBACK, REPO, free_port, wait_for

pytestmark = pytest.mark.slow  # real builds and servers


def cli(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """Given a state folder and arguments, run ``bangscore`` there; return the finished run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    return subprocess.run(
        [sys.executable, "-m", "bangscore", "--state-dir", str(state), *argv],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def one_line_error(run: subprocess.CompletedProcess[str], code: int) -> str:
    """Given a finished run, assert it failed with ``code`` and one ``error:`` line and no
    traceback; return the error line."""
    assert run.returncode == code, run.stderr
    assert "Traceback" not in run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, run.stderr
    return errors[0]


def write(state: Path, records: list) -> None:  # type: ignore[type-arg]
    write_catalog(make_catalog(records), state / "catalog.json.gz")


# -- 6: bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda rs: [], "no game"),
        (lambda rs: [*rs, rs[0]], "twice"),
        (lambda rs: [rs[0].model_copy(update={"price_usd": 1e308}), *rs[1:]], "price_usd"),
    ],
    ids=["no-games", "duplicate-appid", "price-1e308"],
)
def test_a_bad_catalogue_is_refused_and_nothing_is_published(
    tmp_path: Path, change: object, reason: str
) -> None:
    write(tmp_path, change(small_catalog()))  # type: ignore[operator]
    line = one_line_error(cli(tmp_path, "build"), 1)
    assert reason in line and "unchanged" in line
    assert not (tmp_path / "snapshots" / "current").exists()


def test_a_shrinking_catalogue_publishes_only_when_allowed(tmp_path: Path) -> None:
    write(tmp_path, small_catalog())
    assert cli(tmp_path, "build").returncode == 0
    current = LocalStorage(tmp_path / "snapshots").read_pointer()
    write(tmp_path, small_catalog()[:30])
    line = one_line_error(cli(tmp_path, "build"), 1)
    assert "--allow-shrink" in line
    assert LocalStorage(tmp_path / "snapshots").read_pointer() == current
    assert cli(tmp_path, "build", "--allow-shrink").returncode == 0
    assert LocalStorage(tmp_path / "snapshots").read_pointer() != current


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("snapshots", "rollback", "../.."), 1),
        (("snapshots", "verify", "../x"), 1),
        (("keys", "create", "--account", "", "--plan", "free"), 2),
        (("keys", "create", "--account", "a@example.com\nforged", "--plan", "free"), 2),
        (("keys", "create", "--account", "a" * 100_000 + "@example.com", "--plan", "free"), 2),
        (("keys", "create", "--account", "\x1b[31mred@example.com", "--plan", "free"), 2),
    ],
    ids=["rollback-dotdot", "verify-dotdot", "empty-account", "newline-account",
         "100kb-account", "ansi-account"],
)  # fmt: skip
def test_bad_arguments_get_one_error_line(tmp_path: Path, argv: tuple[str, ...], code: int) -> None:
    one_line_error(cli(tmp_path, *argv), code)


def test_keys_list_escapes_what_the_store_holds(tmp_path: Path) -> None:
    from bangscore.stores.keystore import issue_key
    from tests.support.factories import sqlite_stores

    store = sqlite_stores(tmp_path / "bangscore.sqlite3")
    issue_key(store.keys, "\x1b]8;;http://evil\x07x@example.com", "free", None, int(time.time()))
    store.close()
    run = cli(tmp_path, "keys", "list")
    assert run.returncode == 0 and "\x1b" not in run.stdout and "\\x1b" in run.stdout


# -- 5: broken snapshots ----------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncate", "delete", "corrupt"])
def test_the_next_build_heals_a_damaged_object(tmp_path: Path, damage: str) -> None:
    write(tmp_path, small_catalog())
    assert cli(tmp_path, "build").returncode == 0
    storage = LocalStorage(tmp_path / "snapshots")
    first = storage.read_pointer()
    assert first is not None
    entry = next(iter(read_manifest(storage, first).entries.values()))
    key = object_key(entry.stored[0])
    body = storage.get(key)
    if damage == "truncate":
        storage.put_many([StoredObject(key, body[:-1])])
    elif damage == "delete":
        storage.delete_many([key])
    else:  # same size, other bytes: only --repair hashes what it reuses
        storage.put_many([StoredObject(key, bytes([body[0] ^ 1]) + body[1:])])
    assert cli(tmp_path, "snapshots", "verify", first).returncode == 1
    build = ["build", "--repair"] if damage == "corrupt" else ["build"]
    assert cli(tmp_path, *build).returncode == 0
    second = storage.read_pointer()
    assert second is not None and second != first
    assert cli(tmp_path, "snapshots", "verify", second).returncode == 0


def test_gc_removes_old_unreferenced_objects_only(tmp_path: Path) -> None:
    write(tmp_path, small_catalog())
    assert cli(tmp_path, "build").returncode == 0
    objects = tmp_path / "snapshots" / "objects"
    old, young = objects / "ab" / ("ab" + "0" * 62), objects / "cd" / ("cd" + "0" * 62)
    for orphan in (old, young):  # what a build killed halfway leaves
        orphan.parent.mkdir(parents=True, exist_ok=True)
        orphan.write_bytes(b"orphan")
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))
    run = cli(tmp_path, "snapshots", "gc")
    assert run.returncode == 0 and "deleted 1 unreferenced" in run.stdout
    assert not old.exists() and young.exists()
    sid = list_snapshots(LocalStorage(tmp_path / "snapshots"))[0]
    assert cli(tmp_path, "snapshots", "verify", sid).returncode == 0


# -- 7: a state folder removed while serving --------------------------------------------------


def test_serve_creates_no_state_of_its_own(tmp_path: Path) -> None:
    publish_into(tmp_path, small_catalog(), "s1")
    run = cli(tmp_path, "serve", "--port", str(free_port()))
    line = one_line_error(run, 1)
    assert "keys create" in line
    assert not (tmp_path / "bangscore.sqlite3").exists()
    assert not (tmp_path / "session_secret").exists()
    # `keys create` makes both; then serve starts (checked by the server tests).
    assert cli(tmp_path, "keys", "create", "--account", "a@example.com", "--plan", "free")
    assert (tmp_path / "bangscore.sqlite3").exists() and (tmp_path / "session_secret").exists()


def test_a_store_removed_while_serving_answers_503(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, small_catalog(), "s1")
    server = server_factory(tmp_path)
    assert LOOPBACK.get(f"{server.url}/api/v1").status_code == 200
    (tmp_path / "bangscore.sqlite3").unlink()
    wait_for(lambda: LOOPBACK.get(f"{server.url}/api/v1").status_code == 503, 5, "answering 503")
    answer = LOOPBACK.get(f"{server.url}/api/v1/games")
    assert answer.status_code == 503 and answer.json()["code"] == "unavailable"
    # The same voice as any key store outage (tests/shim/test_app.py), with its Retry-After.
    assert answer.json()["detail"] == "The key store is unreachable; retry shortly."
    assert answer.headers["Retry-After"] == "5"
    assert server.metrics()["bangscore_quota_store_vanished_total"] == 1
    wait_for(lambda: "removed or replaced while serving" in server.log(), 5, "logging it")


# -- 9: the abuse report groups by sign-up network --------------------------------------------


def test_the_abuse_report_groups_accounts_by_sign_up_network(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    import datetime as dt

    from bangscore.stores.keystore import issue_key
    from tests.support.factories import sqlite_stores
    from tests.support.signups import signed_up

    publish_into(tmp_path, small_catalog(), "s1")
    server = server_factory(tmp_path)
    emails = ["one@example.com", "two@example.com"]
    for email in emails:  # the form, then the email's link: the account's network is the link's
        client, _ = signed_up(server.url, tmp_path, email)
        client.close()
    store = sqlite_stores(tmp_path / "bangscore.sqlite3")
    now = int(time.time())
    day = dt.datetime.fromtimestamp(now, dt.UTC).date()
    for email in emails:  # one free key each, 600 requests each today: 1,200 > 1,000
        _, record = issue_key(store.keys, email, "free", None, now)
        store.counter.add(record.subject, day, 600, now)
    store.close()
    run = cli(tmp_path, "usage", "report")
    assert run.returncode == 0, run.stderr
    assert "no account's keys together exceed" in run.stdout  # one key per account
    line = next(x for x in run.stdout.splitlines() if x.startswith("127.0.0.0/24"))
    assert line.split()[:5] == ["127.0.0.0/24", "2", "1200", "1000", "200"]
    assert "one@example.com=600" in line and "two@example.com=600" in line
