"""``bangscore webhooks add|list|remove|test`` and delivery by ``bangscore alerts send``
(cli/webhooks.py), over a real snapshot store and a real receiver on loopback: the events of
a build after the endpoint was added arrive signed (verified by ``standardwebhooks``), once;
a killed ``alerts send`` loses none of them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from bangscore.cli.main import main
from bangscore.stores import open_webhook_store
from bangscore.stores.secret import load_session_secret
from tests.support.factories import small_catalog
from tests.support.live import wait_for
from tests.support.push_builds import build, changed_records
from tests.support.receiver import Receiver, receiver

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder with the small catalogue published and a session secret; no
    BANGSCORE_* setting but loopback webhooks and a mail folder."""
    for name in list(os.environ):
        if name.startswith("BANGSCORE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("BANGSCORE_WEBHOOKS_ALLOW_LOOPBACK", "true")
    monkeypatch.setenv("BANGSCORE_MAIL_DIR", str(tmp_path / "mail"))
    folder = tmp_path / "state"
    build(folder / "snapshots", small_catalog())
    load_session_secret(None, folder, create=True)
    return folder


@pytest.fixture
def bangscore(state: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """A runner of the command line on the state folder: (exit status, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(["--state-dir", str(state), *argv])
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def add(bangscore: Run, url: str, *extra: str) -> tuple[str, str]:
    """Add an endpoint for the repriced games; return its id and secret."""
    appids = ",".join(str(r.appid) for r in small_catalog()[:8])
    code, out, err = bangscore(
        "webhooks", "add", "--account", "a@x.io", "--url", url, "--appids", appids, *extra
    )
    assert (code, err) == (0, ""), err
    endpoint, secret = out.splitlines()[0].split()
    return endpoint, secret


def test_add_list_test_and_remove(bangscore: Run) -> None:
    with receiver() as rx:
        endpoint, secret = add(bangscore, rx.url, "--events", "price.dropped")
        assert secret.startswith("whsec_")
        code, out, _ = bangscore("webhooks", "list")
        assert code == 0 and f"{endpoint}\ta@x.io\tactive\tprice.dropped\t" in out
        assert secret not in out
        assert bangscore("webhooks", "test", endpoint) == (0, f"{endpoint}: answered 200\n", "")
    (request,) = rx.received
    assert Webhook(secret).verify(request.body, request.headers)["type"] == "webhook.test"
    assert bangscore("webhooks", "remove", endpoint)[0] == 0
    assert bangscore("webhooks", "list")[1] == ""


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        pytest.param("https://127.0.0.1/x", "loopback", id="loopback-over-https"),
        pytest.param("https://10.0.0.1/x", "private", id="private"),
        pytest.param("https://169.254.169.254/x", "link-local", id="metadata"),
        pytest.param("https://[::ffff:127.0.0.1]/x", "IPv4-mapped", id="mapped"),
    ],
)
def test_add_refuses_an_address_it_would_never_post_to(
    bangscore: Run, monkeypatch: pytest.MonkeyPatch, url: str, reason: str
) -> None:
    monkeypatch.delenv("BANGSCORE_WEBHOOKS_ALLOW_LOOPBACK")
    code, out, err = bangscore("webhooks", "add", "--account", "a@x.io", "--url", url)
    assert (code, out) == (1, "") and reason in err


def test_alerts_send_delivers_the_next_builds_events_once(bangscore: Run, state: Path) -> None:
    with receiver() as rx:
        _, secret = add(bangscore, rx.url)
        build(state / "snapshots", changed_records(small_catalog()))
        code, out, err = bangscore("alerts", "send")
        assert code == 0, err
        assert bangscore("alerts", "send")[0] == 0  # nothing new: nothing more sent
    payloads = [Webhook(secret).verify(r.body, r.headers) for r in rx.received]
    assert payloads and f"webhooks: {len(payloads)} delivered, 0 failed" in out
    kinds = {(p["type"], p["data"]["appid"]) for p in payloads}
    assert len(kinds) == len(payloads)  # each event of each game once
    assert {t for t, _ in kinds} <= {"price.dropped", "tier.changed", "verdict.changed"}
    assert "price.dropped" in {t for t, _ in kinds}
    code, listed, _ = bangscore("webhooks", "list", "--deliveries", "100")
    assert listed.count("\tdelivered\t1\t") == len(payloads)


def _send(state: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "BANGSCORE_WEBHOOKS_CLAIM_SECONDS": "5"}
    return subprocess.Popen(
        [sys.executable, "-m", "bangscore", "--state-dir", str(state), "alerts", "send"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


# It starts real `bangscore alerts send` processes, whose clock (the claims' times) is the real
# one: `server`, so `make check` and `make test-clock` leave it to `make test`.
@pytest.mark.server
def test_a_killed_alerts_send_loses_no_delivery_and_sends_none_twice(
    bangscore: Run, state: Path
) -> None:
    with receiver(held=True) as rx:
        endpoint, secret = add(bangscore, rx.url)
        build(state / "snapshots", changed_records(small_catalog()))
        killed = _send(state)
        wait_for(lambda: len(rx.received) == 1, 60, "the first delivery posted")
        killed.send_signal(signal.SIGKILL)
        killed.wait(10)
        rx.open.set()
        # The killed run's delivery is claimed: a run within the claim sends the others only.
        first = rx.received[0].headers["webhook-id"]
        bangscore("alerts", "send")
        held = [r.headers["webhook-id"] for r in rx.received[1:]]
        assert first not in held
        # Once the claim lapses it is sent again, once, under the same id.
        wait_for(lambda: _resent(bangscore, rx, first), 30, "the killed run's delivery resent")
    ids = [r.headers["webhook-id"] for r in rx.received]
    assert ids.count(first) == 2 and all(ids.count(i) == 1 for i in set(ids) - {first})
    for request in rx.received:
        Webhook(secret).verify(request.body, request.headers)
    store = open_webhook_store(f"sqlite:///{state / 'bangscore.sqlite3'}")
    try:
        assert {d.state for d in store.deliveries(endpoint)} == {"delivered"}
    finally:
        store.close()


def _resent(bangscore: Run, rx: Receiver, message_id: str) -> bool:
    bangscore("alerts", "send")
    return [r.headers["webhook-id"] for r in rx.received].count(message_id) == 2


def test_a_redis_store_holds_webhooks(bangscore: Run, redis_url: str) -> None:
    with receiver() as rx:
        code, out, err = bangscore(
            "--store", redis_url, "webhooks", "add", "--account", "a@x.io", "--url", rx.url
        )
        assert (code, err) == (0, ""), err
        endpoint, secret = out.splitlines()[0].split()
        code, out, _ = bangscore("--store", redis_url, "webhooks", "list")
        assert code == 0 and f"{endpoint}\ta@x.io\tactive\t" in out
        tested = bangscore("--store", redis_url, "webhooks", "test", endpoint)
        assert tested == (0, f"{endpoint}: answered 200\n", "")
    (request,) = rx.received
    assert Webhook(secret).verify(request.body, request.headers)["type"] == "webhook.test"
    assert bangscore("--store", redis_url, "webhooks", "remove", endpoint)[0] == 0
    assert open_webhook_store(redis_url).endpoints() == []


def test_a_store_of_no_known_kind_is_refused(bangscore: Run) -> None:
    code, out, err = bangscore("--store", "postgres://x/y", "webhooks", "list")
    assert code != 0 and out == "" and "postgres://x/y" in err
