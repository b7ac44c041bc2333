"""The serve command's hand-off of settings to its workers: a file of mode 0600 that only its
path names, so no secret sits in a worker's environment (issue 35)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from pydantic import SecretStr

from bangscore.cli.serve import SETTINGS_FILE_VARIABLE, worker_settings, write_worker_settings
from bangscore.settings import Settings
from bangscore.storage import LocalStorage
from tests.support import factories
from tests.support.live import LOOPBACK, ShimServer

SESSION = "session-secret-" + "s" * 40
STEAM = "steam-key-" + "k" * 22
SMTP = "smtps://alerts:smtp-password-xyz@mail.example:465"


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        state_dir=tmp_path / "state",
        port=9123,
        workers=2,
        session_secret=SecretStr(SESSION),
        steam_api_key=SecretStr(STEAM),
        itad_api_key=SecretStr("itad-key"),
        smtp_url=SecretStr(SMTP),
    )


def test_the_settings_file_is_private_and_holds_only_what_workers_use(tmp_path: Path) -> None:
    path = write_worker_settings(_settings(tmp_path), tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    text = path.read_text()
    assert SESSION in text  # the workers sign sessions with it
    for unused in (STEAM, "itad-key", "smtp-password-xyz"):
        assert unused not in text


def test_a_worker_reads_exactly_the_handed_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_worker_settings(_settings(tmp_path), tmp_path)
    monkeypatch.setenv("BANGSCORE_PORT", "9999")  # ignored: the file is the serve command's
    read = worker_settings({SETTINGS_FILE_VARIABLE: str(path)})
    assert read.port == 9123
    assert read.workers == 2
    assert read.state_dir == tmp_path / "state"
    assert read.session_secret is not None
    assert read.session_secret.get_secret_value() == SESSION
    assert read.steam_api_key is None and read.smtp_url is None


def test_without_a_handed_file_a_worker_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BANGSCORE_PORT", "9321")
    assert worker_settings({}).port == 9321


def test_the_settings_file_is_never_overwritten(tmp_path: Path) -> None:
    write_worker_settings(_settings(tmp_path), tmp_path)
    with pytest.raises(FileExistsError):
        write_worker_settings(_settings(tmp_path), tmp_path)


@pytest.mark.server
def test_no_secret_in_any_worker_environment(tmp_path: Path) -> None:
    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog(), LocalStorage(folder), snapshot_id="s1")
    server = ShimServer(
        tmp_path / "state",
        tmp_path / "shim.log",
        snapshot=folder,
        workers=2,
        env={"BANGSCORE_SESSION_SECRET": SESSION, "BANGSCORE_STEAM_API_KEY": STEAM},
    ).start()
    try:
        assert server.process is not None
        # The supervisor keeps the environment it was started with (the operator's own); every
        # process it starts (the workers) inherits only what it hands on.
        workers = psutil.Process(server.process.pid).children(recursive=True)
        assert len(workers) >= 2
        handed = set()
        for process in workers:
            environ = process.environ()
            assert SESSION not in "\0".join(f"{k}={v}" for k, v in environ.items())
            assert STEAM not in "\0".join(environ.values())
            if SETTINGS_FILE_VARIABLE in environ:
                handed.add(environ[SETTINGS_FILE_VARIABLE])
        (path,) = handed
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        server.stop()
    assert not Path(path).exists()  # removed when the server stops


def test_serve_refuses_a_host_name_in_metrics_allow_ips_at_start(tmp_path: Path) -> None:
    """Issue 45 finding 10: ``BANGSCORE_METRICS_ALLOW_IPS=prometheus.internal`` started, and
    every scrape was then a 500 with a traceback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BANGSCORE_")}
    env["BANGSCORE_METRICS_ALLOW_IPS"] = "127.0.0.1, prometheus.internal"
    args = [sys.executable, "-m", "bangscore", "--state-dir", str(tmp_path), "serve"]
    ran = subprocess.run(
        [*args, "--port", "1"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert ran.returncode == 2
    assert ran.stderr.startswith("error: invalid configuration: metrics_allow_ips: ")
    assert "'prometheus.internal' is not an IP address or network" in ran.stderr
    assert ran.stderr.count("\n") == 1 and "Traceback" not in ran.stderr


@pytest.mark.server
def test_no_secret_in_a_one_worker_server_s_environment_and_a_killed_one_s_file_goes(
    tmp_path: Path,
) -> None:
    """Issue 45 finding 9: with ``--workers 1`` (the systemd unit's default) the session
    secret and the SMTP password stayed in ``/proc/<pid>/environ``, and after ``kill -9`` the
    settings file handed to workers stayed in ``$TMPDIR``."""
    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog(), LocalStorage(folder), snapshot_id="s1")
    state = tmp_path / "state"
    env = {"BANGSCORE_SESSION_SECRET": SESSION, "BANGSCORE_SMTP_URL": SMTP}

    def started() -> tuple[ShimServer, Path]:
        server = ShimServer(state, tmp_path / "shim.log", snapshot=folder, env=env).start()
        assert server.process is not None
        serving = psutil.Process(server.process.pid)
        processes = [serving, *serving.children(recursive=True)]
        for process in processes:  # psutil reads /proc/<pid>/environ
            environ = "\0".join(f"{k}={v}" for k, v in process.environ().items())
            assert SESSION not in environ and "smtp-password-xyz" not in environ
        handed = Path(serving.environ()[SETTINGS_FILE_VARIABLE])
        assert handed.parent == state / "run" and handed.name == f"serve-{serving.pid}.json"
        assert stat.S_IMODE(os.stat(handed).st_mode) == 0o600
        assert SESSION in handed.read_text() and "smtp-password" not in handed.read_text()
        assert LOOPBACK.get(f"{server.url}/api/v1").status_code == 200
        return server, handed

    first, first_file = started()
    first.kill()  # kill -9: nothing runs to remove the file
    assert first_file.exists()
    second, second_file = started()
    try:
        assert not first_file.exists()  # the next start removed the dead server's file
        assert sorted((state / "run").iterdir()) == [second_file]
    finally:
        second.stop()
    assert not second_file.exists()  # a server that stops removes its own
