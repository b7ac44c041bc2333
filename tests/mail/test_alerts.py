"""``bangscore watch`` and ``bangscore alerts send`` end to end: real builds into a folder, the
real SQLite store, a real SMTP server (aiosmtpd) whose received messages are read, and a real
``bangscore serve`` answering the unsubscribe link."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.cli.main import main
from bangscore.contract.objects import detail_key
from bangscore.ingest.catalog import write_catalog
from bangscore.mail.alerts import (
    LEASE_SECONDS,
    Connect,
    SnapshotDetails,
    alert_message,
    send_alerts,
)
from bangscore.mail.links import WatchLinks
from bangscore.mail.smtp import Mailer, SMTPServer
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import LocalStorage
from bangscore.stores import open_watch_store
from bangscore.stores.watchstore import Condition, WatchRecord
from tests.support import factories
from tests.support.live import LOOPBACK, ShimServer, free_port
from tests.support.raw_prices import raw_prices
from tests.support.smtp_server import SMTPServer as LiveSMTP
from tests.support.smtp_server import body_text

HOLLOW_KNIGHT = 367520
STARDEW_VALLEY = 413150
PLAYER = "player@example.com"


def alert_below(appid: int, below_usd: float, record: dict[str, Any]) -> EmailMessage:
    """Given a game, a below-price watch's bound (USD) and its detail record, return the alert
    mail snapshot s1 sends player@example.com for it."""
    watch = WatchRecord("w1", PLAYER, appid, Condition(below_usd=below_usd), 0)
    return alert_message(
        watch,
        record,
        from_address="BangScore <alerts@bangscore.test>",
        unsubscribe_url="http://bangscore.test/u",
        snapshot_id="s1",
    )


def hollow_knight(price: float) -> list[object]:
    """The small catalogue with Hollow Knight (list price $14.99) at ``price``."""
    discount = round(100 * (1 - price / 14.99))
    return [
        *factories.small_catalog()[:6],
        factories.make_record(
            appid=HOLLOW_KNIGHT,
            name="Hollow Knight",
            price_usd=price,
            list_price_usd=14.99,
            discount_percent=discount,
            main_story_hours=27.0,
            review_score=0.97,
            review_count=300_000,
        ),
    ]


@pytest.fixture
def bangscore(
    tmp_path: Path, smtp_server: LiveSMTP, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., int]:
    """Return a runner of the command line on this test's state folder and snapshot store,
    with the SMTP server configured."""
    for name in list(__import__("os").environ):
        if name.startswith("BANGSCORE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("BANGSCORE_SMTP_URL", smtp_server.url)
    monkeypatch.setenv("BANGSCORE_MAIL_FROM", "BangScore <alerts@bangscore.test>")

    def run(*args: str) -> int:
        return main(["--state-dir", str(tmp_path / "state"), *args])

    return run


def build(tmp_path: Path, run: Callable[..., int], price: float) -> None:
    """Build and publish the catalogue with Hollow Knight at ``price`` into tmp/snapshots."""
    path = tmp_path / f"catalog-{price}.json.gz"
    write_catalog(factories.make_catalog(hollow_knight(price)), path)  # type: ignore[arg-type]
    assert run("build", "--catalog", str(path), "--out", str(tmp_path / "snapshots")) == 0


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ShimServer]:
    """A ``bangscore serve`` on the test's state folder and snapshots (started on demand)."""
    server = ShimServer(tmp_path / "state", tmp_path / "shim.log", snapshot=tmp_path / "snapshots")
    yield server
    server.stop()


def test_an_operator_watch_alerts_once_and_unsubscribes_in_one_click(
    tmp_path: Path,
    bangscore: Callable[..., int],
    smtp_server: LiveSMTP,
    served: ShimServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshots = str(tmp_path / "snapshots")
    build(tmp_path, bangscore, 14.99)
    served.start()
    monkeypatch.setenv("BANGSCORE_SITE_URL", served.url)
    assert bangscore("watch", "add", "--account", "Player@Example.com", "--appid", "367520",
                     "--below", "10", "--snapshot", snapshots) == 0  # fmt: skip
    assert bangscore("alerts", "send", "--snapshot", snapshots) == 0
    assert smtp_server.inbox.messages == []

    build(tmp_path, bangscore, 7.49)
    capsys.readouterr()
    assert bangscore("alerts", "send", "--snapshot", snapshots) == 0
    out = capsys.readouterr()
    assert PLAYER not in out.out + out.err  # addresses are never printed by the sender
    assert len(smtp_server.inbox.messages) == 1
    message = smtp_server.inbox.messages[0]
    assert message["To"] == PLAYER
    assert "Hollow Knight" in message["Subject"] and "$7.49" in message["Subject"]
    text = body_text(message)
    assert "Price: $7.49 (50% off $14.99), price seen 1 Jan 2025" in text
    assert "Hollow Knight" in body_text(message, "html")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = str(message["List-Unsubscribe"]).strip("<>")
    assert unsubscribe.startswith(f"{served.url}/account/watches/unsubscribe?t=")
    assert unsubscribe in text

    assert bangscore("alerts", "send", "--snapshot", snapshots) == 0
    assert len(smtp_server.inbox.messages) == 1  # idempotent: nothing new

    store = open_watch_store(f"sqlite:///{tmp_path / 'state' / 'bangscore.sqlite3'}")
    [watch] = store.list_watches()
    [sent] = store.sent_alerts()
    assert (sent.watch_id, sent.price_usd, sent.message_id) == (
        watch.watch_id,
        7.49,
        message["Message-ID"],
    )
    # RFC 8058: the mail client POSTs the body below, with no cookie and no sign-in.
    answer = LOOPBACK.post(unsubscribe, data={"List-Unsubscribe": "One-Click"}, timeout=10)
    assert answer.status_code == 200
    assert "Watch removed" in answer.text
    assert store.list_watches() == []
    store.close()


def test_a_refused_or_unreachable_server_leaves_alerts_pending(
    tmp_path: Path,
    bangscore: Callable[..., int],
    smtp_server: LiveSMTP,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    snapshots = str(tmp_path / "snapshots")
    build(tmp_path, bangscore, 7.49)
    assert bangscore("watch", "add", "--account", PLAYER, "--appid", "367520",
                     "--tier", "worth_it", "--snapshot", snapshots) == 0  # fmt: skip
    capsys.readouterr()
    monkeypatch.setenv("BANGSCORE_SESSION_SECRET", "a secret shared with the servers")

    monkeypatch.setenv("BANGSCORE_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")
    assert bangscore("alerts", "send", "--snapshot", snapshots) == 1
    err = capsys.readouterr().err
    assert "cannot reach the SMTP server 127.0.0.1:" in err and "Connection refused" in err
    assert smtp_server.inbox.messages == []

    # a temporary refusal (4xx): skipped, logged by watch id, retried later with backoff
    monkeypatch.setenv("BANGSCORE_SMTP_URL", smtp_server.url)
    smtp_server.inbox.refuse, smtp_server.inbox.refuse_reply = True, "450 4.2.1 try later"
    assert bangscore("alerts", "send", "--snapshot", snapshots) == 1
    out, err = capsys.readouterr()
    assert "refused the recipient [450]" in err and "1 skipped (retried later): w_" in out
    assert PLAYER not in out + err
    assert smtp_server.inbox.messages == []


class Crash(BaseException):
    """A crash after the SMTP server accepted a message and before it was recorded."""


class CrashingMailer:
    """A real Mailer that dies right after its first message was accepted."""

    def __init__(self, mailer: Mailer) -> None:
        self.mailer = mailer

    def send(self, message: EmailMessage) -> None:
        self.mailer.send(message)
        raise Crash


def test_a_crash_mid_send_sends_again_with_the_same_message_id(
    tmp_path: Path, smtp_server: LiveSMTP
) -> None:
    storage = LocalStorage(tmp_path / "snapshots")
    factories.publish_catalog(hollow_knight(7.49), storage)  # type: ignore[arg-type]
    store = open_watch_store(f"sqlite:///{tmp_path / 'bangscore.sqlite3'}")
    store.add_watch(WatchRecord("w_1", PLAYER, HOLLOW_KNIGHT, Condition(below_usd=10.0), 1))
    store.confirm_address(PLAYER, 1)
    server = SMTPServer.from_url(smtp_server.url)
    links = WatchLinks("secret", "http://site.test")

    @contextlib.contextmanager
    def crashing() -> Iterator[CrashingMailer]:
        with Mailer(server) as mailer:
            yield CrashingMailer(mailer)

    clock = [time.time()]

    def run(connect: Connect) -> list[str]:
        details = SnapshotDetails(storage)
        result = send_alerts(
            store,
            details,
            connect,
            links=links,
            from_address="a@b.test",
            now=lambda: clock[0],
        )
        return result.sent

    with pytest.raises(Crash):
        run(crashing)
    assert store.sent_alerts() == []  # the crash came before the record
    assert run(lambda: Mailer(server)) == []  # still claimed by the crashed run
    clock[0] += LEASE_SECONDS + 1  # its claim lapses: at least once
    assert run(lambda: Mailer(server)) == ["w_1"]
    first, second = smtp_server.inbox.messages
    assert first["Message-ID"] == second["Message-ID"] == "<alert.w_1.s1@b.test>"
    assert run(lambda: Mailer(server)) == []
    store.close()


def test_unconfirmed_addresses_get_only_their_confirmation(
    tmp_path: Path, smtp_server: LiveSMTP
) -> None:
    storage = LocalStorage(tmp_path / "snapshots")
    factories.publish_catalog(hollow_knight(7.49), storage)  # type: ignore[arg-type]
    store = open_watch_store(f"sqlite:///{tmp_path / 'bangscore.sqlite3'}")
    store.add_watch(WatchRecord("w_1", PLAYER, HOLLOW_KNIGHT, Condition(below_usd=10.0), 1))
    pending = store.queue_confirmation(PLAYER, 1)
    assert pending is not None and store.queue_confirmation(PLAYER, 2) is None  # one at a time
    server = SMTPServer.from_url(smtp_server.url)
    links = WatchLinks("secret", "http://site.test")

    def run() -> tuple[int, int, int]:
        r = send_alerts(
            store,
            SnapshotDetails(storage),
            lambda: Mailer(server),
            links=links,
            from_address="a@b.test",
            now=time.time,
        )
        return len(r.sent), r.unconfirmed, r.confirmations

    assert run() == (0, 1, 1)  # the confirmation the site queued
    assert run() == (0, 1, 0)  # and only once
    [confirmation] = smtp_server.inbox.messages
    assert "Confirm" in confirmation["Subject"]
    [link] = [line for line in body_text(confirmation).splitlines() if "?t=" in line]
    token = link.split("t=", 1)[1]
    assert links.confirmation_id(token) == pending.confirm_id
    assert store.confirmation_email(pending.confirm_id) == PLAYER
    store.confirm_address(PLAYER, 2)
    assert run() == (1, 0, 0)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param("smtp://127.0.0.1:8025", SMTPServer("127.0.0.1", 8025), id="plain"),
        pytest.param("smtp://mail.test", SMTPServer("mail.test", 25), id="default-port"),
        pytest.param(
            "smtps://us%40er:p%3Ass@mail.test:465",
            SMTPServer("mail.test", 465, True, "us@er", "p:ss"),
            id="tls-credentials",
        ),
        pytest.param("smtps://mail.test", SMTPServer("mail.test", 465, True), id="tls-port"),
    ],
)
def test_smtp_urls(url: str, expected: SMTPServer) -> None:
    assert SMTPServer.from_url(url) == expected


@pytest.mark.parametrize(
    "url", [pytest.param("http://mail.test", id="scheme"), pytest.param("smtp://", id="no-host")]
)
def test_bad_smtp_urls(url: str) -> None:
    with pytest.raises(ValueError):
        SMTPServer.from_url(url)


@pytest.mark.parametrize(
    ("reasons", "subject_words", "note"),
    [
        pytest.param([], "(price seen 24 Jul 2026)", False, id="fresh"),
        pytest.param(
            ["stale_price"], "(price last seen 1 Jan 2025)", True, id="stale-names-its-date"
        ),
    ],
)
def test_an_alert_names_a_stale_price_with_its_date(
    reasons: list[str], subject_words: str, note: bool
) -> None:
    seen = "2025-01-01T00:00:00Z" if reasons else "2026-07-24T14:13:40Z"
    record = {
        "appid": HOLLOW_KNIGHT,
        "name": "Hollow Knight",
        "price_usd": 7.49,
        "list_price_usd": 14.99,
        "discount_percent": 50,
        "price_observed_at": seen,
        "prices_as_of": "2026-07-24T14:13:40Z",
        "provisional_reasons": reasons,
        "bang_score": 91,
        "tier": "banger",
        "url": "http://bangscore.test/game/367520/hollow-knight",
    }
    message = alert_below(HOLLOW_KNIGHT, 10.0, record)
    assert str(message["Subject"]).endswith(subject_words)
    for part in ("plain", "html"):
        body = body_text(message, part)
        assert subject_words.strip("()") in body
        stale = (
            "stale: it was seen more than 180 days before the date of these prices (24 Jul 2026)"
        )
        assert (stale in body) is note


@pytest.mark.parametrize(
    ("likelihood", "line"),
    [
        pytest.param(
            0.9,
            "Next sale: likely $5.99 in the Autumn Sale from 1 Oct 2026 (medium confidence)",
            id="likely",
        ),
        pytest.param(0.3, None, id="a-discount-unlikely-is-not-named"),
    ],
)
def test_an_alert_names_the_sale_forecast(likelihood: float, line: str | None) -> None:
    record = {
        "appid": HOLLOW_KNIGHT,
        "name": "Hollow Knight",
        "price_usd": 7.49,
        "list_price_usd": 14.99,
        "discount_percent": 50,
        "price_observed_at": "2026-07-24T14:13:40Z",
        "prices_as_of": "2026-07-24T14:13:40Z",
        "provisional_reasons": [],
        "bang_score": 91,
        "tier": "banger",
        "url": "http://bangscore.test/game/367520/hollow-knight",
        "next_sale": {
            "name": "Autumn Sale",
            "starts": "2026-10-01",
            "ends": "2026-10-08",
            "expected": False,
            "expected_price_usd": 5.99,
            "discounted_likelihood": likelihood,
            "confidence": "medium",
            "basis": "sold at $5.99 in the last 2 of 2 seasonal sales seen",
        },
    }
    message = alert_below(HOLLOW_KNIGHT, 10.0, record)
    text, html = body_text(message, "plain"), body_text(message, "html")
    if line is None:
        assert "Next sale" not in text and "Next sale" not in html
    else:
        assert line in text
        assert "likely $5.99 in the Autumn Sale from 1 Oct 2026" in html


@pytest.mark.slow
def test_the_alert_says_the_verdict_once_on_a_real_record(
    real_snapshot: tuple[LocalStorage, list[Any]],
) -> None:
    """Issue 56: "Verdict: wait for sale. Wait for a sale: ...". The verdict's sentence names
    the verdict itself; the mail quotes it once, on Baldur's Gate 3's real record."""
    storage = real_snapshot[0]
    entry = read_manifest(storage, "s1").entries[detail_key(1086940)]
    record = orjson.loads(read_body(storage, entry))
    message = alert_below(1086940, 60.0, record)
    text, html = body_text(message, "plain"), body_text(message, "html")
    assert "Verdict: Wait for a sale. Baldur's Gate 3 is a banger at list price $59.99" in text
    assert "<strong>Wait for a sale</strong>. Baldur&#39;s Gate 3 is a banger" in html
    for body in (text, html):
        assert body.count("Wait for a sale") == 1 and "wait for sale" not in body
        assert "Wait for a sale:" not in body


@pytest.mark.slow
def test_the_alert_names_the_forecast_once_on_a_real_record(
    real_snapshot: tuple[LocalStorage, list[Any]],
) -> None:
    """Read on 2 Dec 2026: Stardew Valley's alert said "...; likely $8.99 in the Winter Sale
    from ..." in its verdict and again on its "Next sale" line. Its real record: said once, at
    the price its forecast names, the Summer Sale price the raw dumps saw (899 cents)."""
    storage = real_snapshot[0]
    entry = read_manifest(storage, "s1").entries[detail_key(STARDEW_VALLEY)]
    record = orjson.loads(read_body(storage, entry))
    assert record["verdict"] == "wait_for_sale" and record["next_sale"] is not None
    price = record["next_sale"]["expected_price_usd"]
    assert round(price * 100) in {cents for _, cents in raw_prices()[STARDEW_VALLEY]}
    message = alert_below(STARDEW_VALLEY, 20.0, record)
    said = f"likely ${price:.2f} in the {record['next_sale']['name']} from "
    for body in (body_text(message, "plain"), body_text(message, "html")):
        assert body.count(said) == 1 and "Next sale" not in body
