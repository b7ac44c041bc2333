"""``bangscore watch add|list|remove``, ``bangscore alerts sent`` and ``alerts send``'s
refusals, through the real command line on a real SQLite store in the test's state folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest

from bangscore.cli.main import main
from bangscore.mail.links import WatchLinks
from bangscore.storage import LocalStorage
from bangscore.stores import open_watch_store
from bangscore.stores.secret import load_session_secret
from bangscore.stores.watchstore import Condition, PendingSignup, SentAlert, WatchRecord
from tests.support import factories
from tests.support.live import free_port

Run = Callable[..., tuple[int, str, str]]
RATED = {620: "Portal 2", 367520: "Hollow Knight"}


@pytest.fixture
def bangscore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Run:
    """Return a runner of the command line on this test's state folder (no BANGSCORE_*
    setting from the environment): given arguments, its exit status, stdout and stderr."""
    for name in list(os.environ):
        if name.startswith("BANGSCORE_"):
            monkeypatch.delenv(name)
    # The served snapshot rates Portal 2 and Hollow Knight: `watch add` checks the appid there.
    records = [factories.make_record(appid=a, name=n) for a, n in RATED.items()]
    factories.publish_catalog(records, LocalStorage(tmp_path / "state" / "snapshots"))

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            code = main(["--state-dir", str(tmp_path / "state"), *argv])
        except SystemExit as exc:  # argparse refuses a bad option value with exit status 2
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def add(run: Run, account: str, appid: int, *condition: str) -> str:
    """Add a watch through the command line; return its id."""
    code, out, err = run("watch", "add", "--account", account, "--appid", str(appid), *condition)
    assert (code, err) == (0, ""), err
    assert out.startswith("watch w")
    return out.split()[1].rstrip(":")


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        pytest.param(["--tier", "fair"], "argument --tier: invalid choice: 'fair'", id="tier"),
        pytest.param(
            ["--below", "cheap"],
            "argument --below: must be a USD amount such as 9.99",
            id="below-not-a-number",
        ),
        pytest.param(
            ["--below", "-1"], "argument --below: a price must be from 0 to 10,000 USD", id="neg"
        ),
        pytest.param(
            ["--below", "10000.01"],
            "argument --below: a price must be from 0 to 10,000 USD",
            id="too-high",
        ),
        pytest.param(
            ["--below", "nan"], "argument --below: a price must be from 0 to 10,000 USD", id="nan"
        ),
        pytest.param(
            ["--tier", "banger", "--below", "5"],
            "argument --below: not allowed with argument --tier",
            id="both",
        ),
        pytest.param([], "one of the arguments --tier --below --event is required", id="none"),
    ],
)
def test_watch_add_refuses_a_bad_condition(
    bangscore: Run, tmp_path: Path, condition: list[str], message: str
) -> None:
    code, out, err = bangscore(
        "watch", "add", "--account", "a@example.com", "--appid", "367520", *condition
    )
    assert (code, out) == (2, "")
    assert message in err
    assert not (tmp_path / "state" / "bangscore.sqlite3").exists()  # nothing stored


def test_watch_add_refuses_an_address_that_is_not_one(bangscore: Run, tmp_path: Path) -> None:
    code, out, err = bangscore("watch", "add", "--account", "not-an-address", "--appid", "1",
                               "--tier", "banger")  # fmt: skip
    assert (code, out) == (2, "")
    assert err == "error: --account must be an email address\n"
    assert not (tmp_path / "state" / "bangscore.sqlite3").exists()


def test_watch_add_prints_the_condition_and_rounds_the_price(bangscore: Run) -> None:
    code, out, _ = bangscore("watch", "add", "--account", "A@Example.com", "--appid", "620",
                             "--below", "9.999")  # fmt: skip
    assert code == 0
    assert out.endswith(": appid 620, $10.00 or less\n")
    code, out, _ = bangscore("watch", "add", "--account", "a@example.com", "--appid", "620",
                             "--tier", "worth_it")  # fmt: skip
    assert out.endswith(": appid 620, becomes worth it\n")


def test_watch_list_shows_every_watch_or_one_accounts(bangscore: Run, tmp_path: Path) -> None:
    first = add(bangscore, "Ann@Example.com", 620, "--tier", "banger")
    second = add(bangscore, "bob@example.com", 367520, "--below", "7.5")
    # a watch added on the site by an address that has not confirmed it yet
    store = open_watch_store(f"sqlite:///{tmp_path / 'state' / 'bangscore.sqlite3'}")
    store.add_watch(
        WatchRecord("w_unconfirmed", "cy@example.com", 70, Condition(tier="worth_it"), 1)
    )
    store.close()

    code, out, err = bangscore("watch", "list")
    assert (code, err) == (0, "")
    header, *rows = out.splitlines()
    assert header.split() == ["id", "account", "appid", "condition", "state", "last", "alert"]
    by_id = {row.split()[0]: row for row in rows}
    assert set(by_id) == {first, second, "w_unconfirmed"}
    assert by_id[first].split()[1:] == ["ann@example.com", "620", "becomes", "a", "banger",
                                        "waiting", "never"]  # fmt: skip
    assert by_id[second].split()[1:] == ["bob@example.com", "367520", "$7.50", "or", "less",
                                         "waiting", "never"]  # fmt: skip
    assert by_id["w_unconfirmed"].split()[-2:] == ["unconfirmed", "never"]

    code, out, _ = bangscore("watch", "list", "--account", " BOB@example.com ")
    assert code == 0
    assert [row.split()[0] for row in out.splitlines()[1:]] == [second]

    code, out, _ = bangscore("watch", "list", "--account", "nobody@example.com")
    assert (code, len(out.splitlines())) == (0, 1)  # the header only


def test_watch_remove_removes_one_and_refuses_an_unknown_id(bangscore: Run) -> None:
    kept = add(bangscore, "ann@example.com", 620, "--tier", "banger")
    gone = add(bangscore, "ann@example.com", 367520, "--below", "5")

    assert bangscore("watch", "remove", gone) == (0, f"removed watch {gone} (appid 367520)\n", "")
    assert bangscore("watch", "remove", gone) == (1, "", f"error: no watch with id {gone}\n")
    assert bangscore("watch", "remove", "w_nosuch") == (1, "", "error: no watch with id w_nosuch\n")
    _, out, _ = bangscore("watch", "list")
    assert [row.split()[0] for row in out.splitlines()[1:]] == [kept]


@pytest.mark.parametrize(
    ("appid", "reason"),
    [
        pytest.param("999999", "appid 999999 is not a rated game in snapshot s1", id="unknown"),
        pytest.param("70", "appid 70 is not a rated game in snapshot s1", id="not-rated"),
    ],
)
def test_watch_add_refuses_an_appid_the_snapshot_does_not_rate(
    bangscore: Run, appid: str, reason: str, tmp_path: Path
) -> None:
    code, out, err = bangscore("watch", "add", "--account", "a@example.com", "--appid", appid,
                               "--tier", "banger")  # fmt: skip
    assert (code, out, err) == (1, "", f"error: {reason}\n")
    store = open_watch_store(f"sqlite:///{tmp_path / 'state' / 'bangscore.sqlite3'}")
    assert store.list_watches() == []
    store.close()


def test_alerts_send_without_a_session_secret_refuses_in_one_line(
    bangscore: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BANGSCORE_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")
    code, out, err = bangscore("alerts", "send")
    assert (code, out) == (2, "")
    assert err.startswith("error: no session secret at ") and err.count("\n") == 1
    assert not (tmp_path / "state" / "session_secret").exists()  # never invented


def test_alerts_send_without_an_smtp_url_sends_nothing(bangscore: Run) -> None:
    assert bangscore("alerts", "send") == (
        2,
        "",
        "error: BANGSCORE_SMTP_URL is not set: no alert can be sent (for local development, "
        "BANGSCORE_MAIL_DIR=var/mail keeps the mail as .eml files)\n",
    )


def test_alerts_send_refuses_both_an_smtp_url_and_a_mail_folder(
    bangscore: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BANGSCORE_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")
    monkeypatch.setenv("BANGSCORE_MAIL_DIR", str(tmp_path / "mail"))
    code, out, err = bangscore("alerts", "send")
    assert (code, out) == (2, "")
    assert err.startswith("error: BANGSCORE_SMTP_URL and BANGSCORE_MAIL_DIR are both set")
    assert not (tmp_path / "mail").exists()


def test_alerts_send_into_a_mail_folder_keeps_each_message_and_prints_its_links(
    bangscore: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    secret = load_session_secret(None, state)
    store = open_watch_store(f"sqlite:///{state / 'bangscore.sqlite3'}")
    store.queue_signup(PendingSignup("s_new", "new@example.com", "$a2$h", 1_790_000_000), 10**9)
    store.close()
    watch = add(bangscore, "ann@example.com", 620, "--below", "9999")  # true at once
    monkeypatch.setenv("BANGSCORE_MAIL_DIR", str(tmp_path / "mail"))
    code, out, err = bangscore("alerts", "send")
    assert code == 0 and "error" not in err
    kept = sorted((tmp_path / "mail").glob("*.eml"))
    assert len(kept) == 2
    signup, alert = (BytesParser(policy=policy.default).parsebytes(p.read_bytes()) for p in kept)
    assert signup["Subject"] == "Finish creating your BangScore account"
    assert signup["To"] == "new@example.com" and alert["To"] == "ann@example.com"
    site = WatchLinks(secret, "http://127.0.0.1:8000")  # the snapshot records no site
    lines = out.splitlines()
    assert lines[0] == f"mail kept: {signup['Subject']} -> {kept[0]}"
    # The sign-up token is timed (it carries the second it was made): check it, not its text.
    link, token = lines[1].split("?t=")
    assert link == f"  {site.site_url}/account/signup/confirm" and site.signup_id(token) == "s_new"
    assert lines[2] == f"mail kept: {alert['Subject'].strip()} -> {kept[1]}"
    assert f"  {site.unsubscribe_url(watch)}" in lines[3:]
    assert f"sent {watch}" in lines and "new@example.com" not in out
    assert bangscore("alerts", "send")[0] == 0  # nothing new: nothing more kept
    assert len(list((tmp_path / "mail").glob("*.eml"))) == 2


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        pytest.param(
            "http://mail.test", "the SMTP URL must start with smtp:// or smtps://", id="scheme"
        ),
        pytest.param("smtp://", "the SMTP URL names no host", id="no-host"),
        pytest.param("smtp://mail.test:99999", "the SMTP URL has an invalid port", id="port"),
    ],
)
def test_alerts_send_refuses_a_bad_smtp_url(
    bangscore: Run, monkeypatch: pytest.MonkeyPatch, url: str, reason: str
) -> None:
    monkeypatch.setenv("BANGSCORE_SMTP_URL", url)
    assert bangscore("alerts", "send") == (2, "", f"error: BANGSCORE_SMTP_URL: {reason}\n")


def test_alerts_send_without_a_snapshot_fails_before_mailing(
    bangscore: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # nothing listens there: reaching this far without a snapshot must not try to connect
    monkeypatch.setenv("BANGSCORE_SMTP_URL", f"smtp://127.0.0.1:{free_port()}")
    code, out, err = bangscore("alerts", "send", "--snapshot", str(tmp_path / "empty"))
    assert (code, out) == (1, "")
    assert err.startswith("error: no snapshot to compare the watches with: ")


def test_alerts_sent_lists_what_the_smtp_server_accepted_without_addresses(
    bangscore: Run, tmp_path: Path
) -> None:
    first = add(bangscore, "ann@example.com", 620, "--tier", "banger")
    second = add(bangscore, "bob@example.com", 367520, "--below", "7.5")
    store = open_watch_store(f"sqlite:///{tmp_path / 'state' / 'bangscore.sqlite3'}")
    store.record_alert(SentAlert(second, 1_785_000_000, "s20260724", 7.49, "worth_it", "<b@x>"))
    store.record_alert(SentAlert(first, 1_784_000_000, "s20260701", 9.99, "banger", "<a@x>"))
    store.close()

    code, out, err = bangscore("alerts", "sent")
    assert (code, err) == (0, "")
    header, *rows = out.splitlines()
    assert header.split() == ["sent", "(UTC)", "watch", "snapshot", "price", "tier",
                              "message", "id"]  # fmt: skip
    assert [row.split() for row in rows] == [
        ["2026-07-14", "03:33", first, "s20260701", "$9.99", "banger", "<a@x>"],
        ["2026-07-25", "17:20", second, "s20260724", "$7.49", "worth_it", "<b@x>"],
    ]
    assert "@example.com" not in out

    code, out, _ = bangscore("alerts", "sent", "--watch", second)
    assert (code, [row.split()[2] for row in out.splitlines()[1:]]) == (0, [second])


@pytest.mark.parametrize(
    ("configured", "site"),
    [
        pytest.param(None, "http://127.0.0.1:9123", id="the-snapshots-site"),
        pytest.param("https://bangscore.example", "https://bangscore.example", id="configured"),
    ],
)
def test_alerts_signups_links_name_the_served_site_not_this_commands_default_port(
    bangscore: Run,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    configured: str | None,
    site: str,
) -> None:
    # Issue 48: with `make run PORT=N` (the snapshot built for N), the link said :8000.
    records = [factories.make_record(appid=a, name=n) for a, n in RATED.items()]
    snapshots = LocalStorage(tmp_path / "state" / "snapshots")
    factories.publish_catalog(records, snapshots, "s2", site_url="http://127.0.0.1:9123")
    if configured:
        monkeypatch.setenv("BANGSCORE_SITE_URL", configured)
    state = tmp_path / "state"
    load_session_secret(None, state)
    store = open_watch_store(f"sqlite:///{state / 'bangscore.sqlite3'}")
    store.queue_signup(PendingSignup("s_new", "new@example.com", "$a2$h", 1_790_000_000), 10**9)
    store.close()
    code, out, _ = bangscore("alerts", "signups")
    assert code == 0
    assert out.splitlines()[1].split()[-1].startswith(f"{site}/account/signup/confirm?t=")


def test_alerts_signups_lists_the_waiting_emails_with_their_links(
    bangscore: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BANGSCORE_SITE_URL", "http://127.0.0.1:8000")
    state = tmp_path / "state"
    secret = load_session_secret(None, state)  # as `serve` makes it
    store = open_watch_store(f"sqlite:///{state / 'bangscore.sqlite3'}")
    keep = 10 * 365 * 86_400  # kept however late the test runs
    store.queue_signup(PendingSignup("s_new", "new@example.com", "$a2$h", 1_790_000_000), keep)
    store.queue_signup(PendingSignup("s_taken", "owner@example.com", None, 1_790_000_060), keep)
    store.close()
    code, out, err = bangscore("alerts", "signups")
    assert (code, err) == (0, "")
    header, new, taken = out.splitlines()
    assert header.split() == ["queued", "(UTC)", "address", "link"]
    assert new.split()[:3] == ["2026-09-21", "14:13", "new@example.com"]
    link = new.split()[-1]
    links = WatchLinks(secret, "http://127.0.0.1:8000")
    assert link.startswith("http://127.0.0.1:8000/account/signup/confirm?t=")
    assert links.signup_id(link.split("t=", 1)[1]) == "s_new"
    assert taken.split()[-2:] == ["owner@example.com", "-"]  # word to the owner: no link
