"""Issue 26, mail round 4, black-box: real ``bangscore serve`` processes, the real command line
``bangscore alerts send``, and real SMTP servers (aiosmtpd without SMTPUTF8 as Amazon SES,
one with it, one that accepts TCP and never answers, one that trickles its greeting). Every
assertion on mail reads the raw bytes the SMTP server received."""

from __future__ import annotations

import base64
import datetime as dt
import os
import re
import threading
import xml.dom.minidom
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from bangscore.build.publish import publish as build_publish
from bangscore.build.snapshot import snapshot_objects
from bangscore.cli.main import main
from bangscore.errors import MailError
from bangscore.mail.alerts import SnapshotDetails, send_alerts
from bangscore.mail.links import WatchLinks
from bangscore.mail.smtp import Mailer, SMTPServer
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import GameRecord
from bangscore.storage import LocalStorage
from bangscore.stores import open_watch_store
from bangscore.stores.secret import load_session_secret
from bangscore.stores.watchstore import Condition, WatchRecord, WatchStore
from tests.hardening.conftest import ServerFactory
from tests.support import factories, signups
from tests.support.live import LOOPBACK, ShimServer
from tests.support.smtp_server import SilentServer, body_text
from tests.support.smtp_server import SMTPServer as LiveSMTP

pytestmark = [pytest.mark.server]
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
INJECTION = (
    "=?utf-8?q?Big_Sale=0D=0AReply-To:_attacker=40evil.example=0D=0A"
    "X-Injected:_1=0D=0A=0D=0APhishing?="
)
HEADERS = [
    "subject", "from", "to", "date", "message-id", "list-unsubscribe", "list-unsubscribe-post",
    "auto-submitted", "mime-version", "content-type",
]  # fmt: skip
PASSWORD = "long enough pw!"


def header_names(raw: bytes) -> list[str]:
    """Given a message's raw bytes, return the names of its top-level header lines, in order
    (continuation lines skipped)."""
    head = raw.split(b"\r\n\r\n", 1)[0]
    return [
        line.split(b":", 1)[0].decode().lower()
        for line in head.split(b"\r\n")
        if line[:1] not in (b" ", b"\t")
    ]


def game(appid: int, name: str, price: float = 4.99) -> GameRecord:
    """A banger at ``price`` (a game a below-$10 or worth_it watch fires on)."""
    return factories.make_record(
        appid=appid, name=name, price_usd=price, list_price_usd=price, review_score=0.97,
        review_count=300_000, main_story_hours=27.0,
    )  # fmt: skip


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder with a session secret and a SQLite store; no BANGSCORE_* setting from
    the environment."""
    for name in list(os.environ):
        if name.startswith("BANGSCORE_"):
            monkeypatch.delenv(name)
    folder = tmp_path / "state"
    load_session_secret(None, folder)
    open_watch_store(f"sqlite:///{folder / 'bangscore.sqlite3'}").close()
    monkeypatch.setenv("BANGSCORE_MAIL_FROM", "BangScore <alerts@bangscore.test>")
    return folder


def publish(state: Path, records: list[GameRecord]) -> None:
    """Publish ``records`` as the state folder's current snapshot."""
    factories.publish_catalog(records, LocalStorage(state / "snapshots"))


def store_of(state: Path) -> WatchStore:
    """The state folder's watch store."""
    return open_watch_store(f"sqlite:///{state / 'bangscore.sqlite3'}")


def confirmed_watch(state: Path, watch_id: str, email: str, appid: int) -> None:
    """Store a confirmed below-$10 watch."""
    store = store_of(state)
    store.add_watch(WatchRecord(watch_id, email, appid, Condition(below_usd=10.0), 1))
    store.confirm_address(email, 1)
    store.close()


Send = Callable[..., tuple[int, str]]


@pytest.fixture
def alerts_send(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Send:
    """Return a runner of ``bangscore alerts send`` on the state folder: given the SMTP URL
    (and the site URL the links use), its exit status and output."""

    def run(smtp_url: str, site_url: str | None = None) -> tuple[int, str]:
        monkeypatch.setenv("BANGSCORE_SMTP_URL", smtp_url)
        if site_url is not None:
            monkeypatch.setenv("BANGSCORE_SITE_URL", site_url)
        capsys.readouterr()
        code = main(["--state-dir", str(state), "alerts", "send"])
        out, err = capsys.readouterr()
        return code, out + err

    return run


def signed_up(
    server: ShimServer, state: Path, email: str, **headers: str
) -> tuple[httpx.Client, str]:
    """Given a server, its state folder and an address, return a client signed up as it (the
    form, then the email's link) and its CSRF token."""
    return signups.signed_up(server.url, state, email, PASSWORD, headers)


# -- 1. header injection through a game name ----------------------------------------------------


def test_an_encoded_word_in_a_game_name_injects_no_header(
    state: Path, smtp_server: LiveSMTP, alerts_send: Send
) -> None:
    publish(state, [game(367520, INJECTION)])
    confirmed_watch(state, "w_inject", "player@example.com", 367520)
    code, output = alerts_send(smtp_server.url)
    assert code == 0, output
    [raw] = smtp_server.inbox.raw
    assert header_names(raw) == HEADERS
    _head, body = raw.split(b"\r\n\r\n", 1)
    assert b"\r\nReply-To:" not in raw and b"\r\nX-Injected:" not in raw
    assert not body.startswith(b"Phishing")
    # the name is data: its decoded subject still reads the attacker's text, on one line
    [message] = smtp_server.inbox.messages
    assert "Reply-To:_attacker" in str(message["Subject"])


# -- 2. one bad record or address never stops a batch -------------------------------------------


def test_bad_records_are_skipped_by_watch_id_and_the_rest_go_out(
    state: Path, smtp_server: LiveSMTP, alerts_send: Send
) -> None:
    names = {1: "Carriage\rReturn", 2: "Line\nFeed", 3: "Line\u2028Separator", 4: "Next\x85Line"}
    publish(state, [game(367520, "Hollow Knight"), *(game(a, n) for a, n in names.items())])
    confirmed_watch(state, "w_bad_addr", "=?utf-8?q?z=0D=0A?=@example.com", 367520)
    confirmed_watch(state, "w_utf8", "üser@example.com", 367520)
    for appid in names:
        confirmed_watch(state, f"w_name{appid}", f"p{appid}@example.com", appid)
    confirmed_watch(state, "w_good", "good@example.com", 367520)
    code, output = alerts_send(smtp_server.url)
    assert code == 1
    assert "2 skipped (retried later): w_bad_addr w_utf8" in output
    assert "skipped watch w_bad_addr: the address cannot be written as a plain mailbox" in output
    assert "skipped watch w_utf8: the SMTP server 127.0.0.1:" in output
    assert "does not offer SMTPUTF8" in output
    assert "example.com" not in output  # watch ids, never addresses
    recipients = sorted(m["To"] for m in smtp_server.inbox.messages)
    assert recipients == ["good@example.com", "p1@example.com", "p2@example.com",
                          "p3@example.com", "p4@example.com"]  # fmt: skip
    for raw in smtp_server.inbox.raw:
        assert header_names(raw) == HEADERS


def test_a_non_ascii_address_goes_out_when_the_relay_offers_smtputf8(
    state: Path, smtputf8_server: LiveSMTP, alerts_send: Send
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    confirmed_watch(state, "w_utf8", "üser@example.com", 367520)
    code, output = alerts_send(smtputf8_server.url)
    assert code == 0, output
    [raw] = smtputf8_server.inbox.raw
    assert "To: üser@example.com\r\n".encode() in raw


@pytest.mark.parametrize(
    "email",
    [
        pytest.param("=?utf-8?q?z=0D=0A?=@example.com", id="encoded-word"),
        pytest.param("üser@example.com", id="non-ascii-without-smtputf8"),
    ],
)
def test_sign_up_refuses_addresses_the_relay_cannot_take(
    state: Path, server_factory: ServerFactory, email: str
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    server = server_factory(state, site_url=None)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        token = CSRF.findall(client.get("/account").text)[0]
        answer = client.post(
            "/account/signup", data={"csrf": token, "email": email, "password": PASSWORD}
        )
    assert answer.status_code == 400
    assert "Enter a valid email address." in answer.text


# -- 3. one-click unsubscribe on the wire -------------------------------------------------------


def test_list_unsubscribe_is_sent_verbatim_on_one_line(
    state: Path, smtp_server: LiveSMTP, alerts_send: Send
) -> None:
    site = "https://bangscore.example.com"
    publish(state, [game(367520, "Hollow Knight")])
    confirmed_watch(state, "w_list", "player@example.com", 367520)
    code, output = alerts_send(smtp_server.url, site)
    assert code == 0, output
    [raw] = smtp_server.inbox.raw
    match = re.search(rb"\r\nList-Unsubscribe: <(https://[^>\r\n]+)>\r\n", raw)
    assert match is not None
    assert len(match.group(0)) > 78  # longer than the folding width, and still one line
    link = match.group(1).decode()
    assert link.startswith(f"{site}/account/watches/unsubscribe?t=")
    assert b"\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in raw
    assert b"=?utf-8?" not in raw.split(b"\r\n\r\n", 1)[0]


# -- 4. a mail outage never touches the serving threads -----------------------------------------


def test_watch_adds_during_a_mail_outage_never_open_smtp(
    state: Path, server_factory: ServerFactory, silent_smtp: SilentServer
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    server = server_factory(state, site_url=None, env={"BANGSCORE_SMTP_URL": silent_smtp.url})
    # An account made before sign-up went by email: its first watch queues a confirmation.
    store_url = f"sqlite:///{state / 'bangscore.sqlite3'}"
    owner, csrf = signups.signed_in_old_account(server.url, store_url, "owner@example.com")
    form = {"appid": "367520", "condition": "banger", "csrf": csrf}
    assert owner.post("/account/watches", data=form).status_code == 303
    assert owner.post("/account/watches", data={**form, "condition": "worth_it"}).status_code == 303
    # another client is answered meanwhile, and nothing ever connected to the SMTP server
    assert LOOPBACK.get(f"{server.url}/api/v1", timeout=30).status_code == 200
    assert silent_smtp.accepted == 0
    store = store_of(state)
    [pending] = store.pending_confirmations()  # queued for `alerts send`, once
    assert pending.email == "owner@example.com"
    store.close()
    owner.close()


@pytest.mark.parametrize("fixture", ["silent_smtp", "trickling_smtp"])
def test_an_smtp_run_ends_at_its_deadline(fixture: str, request: pytest.FixtureRequest) -> None:
    server: SilentServer = request.getfixturevalue(fixture)
    mailer = Mailer(SMTPServer("127.0.0.1", server.port), timeout=20, deadline=1.5)
    with pytest.raises(MailError) as caught:
        mailer.__enter__()
    assert str(caught.value) == (
        f"cannot reach the SMTP server 127.0.0.1:{server.port}: "
        "the run passed its deadline of 1.5 s"
    )


# -- 5. floods ----------------------------------------------------------------------------------


def test_watch_adds_are_rate_limited_and_one_confirmation_is_queued(
    state: Path, server_factory: ServerFactory
) -> None:
    publish(state, [game(a, f"Game {a}") for a in range(1000, 1040)])
    server = server_factory(state, site_url=None)
    store_url = f"sqlite:///{state / 'bangscore.sqlite3'}"
    owner, csrf = signups.signed_in_old_account(server.url, store_url, "flood@example.com")
    statuses = []

    def add(appid: int) -> None:
        answer = owner.post(
            "/account/watches", data={"appid": str(appid), "condition": "banger", "csrf": csrf}
        )
        statuses.append(answer.status_code)

    threads = [threading.Thread(target=add, args=(a,)) for a in range(1000, 1040)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [303] * 30 + [429] * 10
    store = store_of(state)
    assert len(store.list_watches("flood@example.com")) == 30
    assert [p.email for p in store.pending_confirmations()] == ["flood@example.com"]
    store.close()
    owner.close()


def test_a_hard_bounce_suppresses_the_address(
    state: Path, smtp_server: LiveSMTP, alerts_send: Send
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    confirmed_watch(state, "w_gone", "gone@example.com", 367520)
    smtp_server.inbox.refuse = True  # 550 5.1.1
    code, output = alerts_send(smtp_server.url)
    assert code == 1 and "1 addresses suppressed after a hard bounce" in output
    sessions = smtp_server.inbox.sessions
    store = store_of(state)
    assert store.address("gone@example.com").suppressed
    assert store.queue_confirmation("gone@example.com", 2) is None
    store.close()
    smtp_server.inbox.refuse = False
    code, output = alerts_send(smtp_server.url)
    assert code == 0 and smtp_server.inbox.raw == []
    assert smtp_server.inbox.sessions == sessions  # nothing left to send: no session at all


# -- 6. two runs never double-send --------------------------------------------------------------


def test_two_concurrent_runs_mail_each_due_watch_once(state: Path, smtp_server: LiveSMTP) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    store = store_of(state)
    for i in range(200):
        store.add_watch(
            WatchRecord(f"w_{i:03}", f"p{i}@example.com", 367520, Condition(below_usd=10.0), 1)
        )
        store.confirm_address(f"p{i}@example.com", 1)
    store.close()
    links = WatchLinks("secret", "http://site.test")
    server = SMTPServer.from_url(smtp_server.url)
    start = threading.Barrier(2)
    results: list[object] = []

    def run() -> None:
        own = store_of(state)
        details = SnapshotDetails(LocalStorage(state / "snapshots"))
        start.wait()
        results.append(
            send_alerts(
                own,
                details,
                lambda: Mailer(server),
                links=links,
                from_address="a@bangscore.test",
                now=lambda: 1_000_000.0,
            )
        )
        own.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recipients = [m["To"] for m in smtp_server.inbox.messages]
    assert len(recipients) == 200 and len(set(recipients)) == 200


# -- 7. tokens carry opaque ids; a GET never acts -----------------------------------------------


def test_the_confirmation_link_names_no_address_and_only_a_post_confirms(
    state: Path,
    server_factory: ServerFactory,
    smtp_server: LiveSMTP,
    alerts_send: Send,
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    server = server_factory(state, site_url=None, access_log=True)
    store_url = f"sqlite:///{state / 'bangscore.sqlite3'}"
    owner, csrf = signups.signed_in_old_account(server.url, store_url, "owner@example.com")
    form = {"appid": "367520", "condition": "banger", "csrf": csrf}
    assert owner.post("/account/watches", data=form).status_code == 303
    code, output = alerts_send(smtp_server.url, server.url)
    assert code == 0, output
    [raw] = smtp_server.inbox.raw
    assert b"owner@example.com" not in raw.split(b"\r\n\r\n", 1)[1]  # the body never names it
    [message] = smtp_server.inbox.messages
    link = re.search(
        r"(http://127\.0\.0\.1:\d+/account/watches/confirm\?t=[\w.\-]+)", body_text(message)
    )
    assert link is not None
    url = link.group(1)
    token = url.split("t=", 1)[1]
    decoded = base64.urlsafe_b64decode(token.split(".")[0] + "==")
    assert b"owner" not in decoded and b"example.com" not in decoded
    scanner = LOOPBACK.get(url, timeout=30)  # a mail gateway's link scanner
    assert scanner.status_code == 200 and 'id="confirm"' in scanner.text
    store = store_of(state)
    assert not store.address("owner@example.com").confirmed
    confirmed = LOOPBACK.post(url, timeout=30)
    assert confirmed.status_code == 200, confirmed.text
    assert store.address("owner@example.com").confirmed
    store.close()
    server.stop()
    assert "owner@example.com" not in server.log_path.read_text()
    owner.close()


# -- 9. every page showing a game's data counts ---------------------------------------------------


def test_the_watch_form_counts_against_the_page_allowance(
    state: Path, server_factory: ServerFactory
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    server = server_factory(state, site_url=None, env={"BANGSCORE_PAGE_DAILY_LIMIT": "3"})
    owner, _ = signed_up(server, state, "owner@example.com")
    statuses = [owner.get("/account/watch?appid=367520").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    refused = owner.get("/account/watch?appid=367520")
    assert "367520" not in refused.text.replace("appid=367520", "")
    assert "$4.99" not in refused.text
    owner.close()


# -- issue 25 item 7: signing up from "Watch this game" returns to that game's form -------------


def test_signing_up_from_a_watch_link_returns_to_its_form(
    state: Path, server_factory: ServerFactory
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    server = server_factory(state, site_url=None)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        page = client.get("/account/watch?appid=367520")
        assert "Sign in or create an account to watch Hollow Knight" in page.text
        token = CSRF.findall(page.text)[0]
        answer = client.post(
            "/account/signup",
            data={"csrf": token, "email": "new@example.com", "password": PASSWORD},
        )
        assert answer.status_code == 200 and "Check your inbox" in answer.text
        # The email's link, opened in the same browser, creates the account and returns
        # there: root-relative, so it works from any origin the server answers on (issue 33).
        link = signups.signup_link(state, server.url, "new@example.com")
        created = signups.follow_signup_link(client, link)
        assert created.status_code == 303
        assert created.headers["location"] == "/account/watch?appid=367520"


# -- issue 27 item 6: an alert's subject dates its price ----------------------------------------


def test_the_subject_gives_the_price_date_and_never_now(
    state: Path, smtp_server: LiveSMTP, alerts_send: Send
) -> None:
    publish(state, [game(367520, "Hollow Knight", 7.49)])
    confirmed_watch(state, "w_date", "player@example.com", 367520)
    code, output = alerts_send(smtp_server.url)
    assert code == 0, output
    [raw] = smtp_server.inbox.raw
    subject = re.search(rb"\r\nSubject: (.*?)\r\n(?! )", b"\r\n" + raw, re.S)
    assert subject is not None
    text = subject.group(1).replace(b"\r\n ", b" ").decode()
    assert text == "Hollow Knight: $7.49, within your $10.00 or less watch (price seen 1 Jan 2025)"
    assert " now " not in text


def test_the_badge_sends_one_allow_origin_and_stays_well_formed(
    state: Path, server_factory: ServerFactory
) -> None:
    publish(state, [game(367520, "Nul\x00Vt\x0bEsc\x1b")])
    server = server_factory(state, site_url=None)
    answer = LOOPBACK.get(f"{server.url}/badge/367520.svg", timeout=30)
    assert answer.status_code == 200
    assert answer.headers.get_list("access-control-allow-origin") == ["*"]
    xml.dom.minidom.parseString(answer.content)  # raises on a character XML forbids


def test_game_pages_name_a_raster_open_graph_card(
    state: Path, server_factory: ServerFactory
) -> None:
    publish(state, [game(367520, "Hollow Knight")])
    server = server_factory(state, site_url=None)
    moved = LOOPBACK.get(f"{server.url}/game/367520", timeout=30)
    assert moved.status_code == 301
    page = LOOPBACK.get(server.url + httpx.URL(moved.headers["location"]).path, timeout=30)
    assert page.status_code == 200
    match = re.search(r'<meta property="og:image" content="([^"]+)">', page.text)
    assert match is not None and match.group(1).endswith("/og-card.png")
    assert '<meta name="twitter:card" content="summary_large_image">' in page.text
    card = LOOPBACK.get(f"{server.url}/og-card.png", timeout=30)
    assert card.status_code == 200 and card.headers["content-type"] == "image/png"
    assert card.content.startswith(b"\x89PNG\r\n\x1a\n")
    assert card.content[16:24] == (1200).to_bytes(4, "big") + (630).to_bytes(4, "big")


# -- issue 36: one origin per mail without BANGSCORE_SITE_URL -------------------------------------


def test_without_a_site_url_the_links_take_the_snapshots_origin(
    state: Path, smtp_server: LiveSMTP, alerts_send: Send
) -> None:
    # Published as `bangscore build` does it: the manifest records the site URL it built with.
    games = score_catalog([game(367520, "Hollow Knight")])
    created = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    objects = snapshot_objects(
        games, site_url=factories.SITE, base_url=factories.SITE, created_at=created
    )
    meta = {"games": 1, "site_url": factories.SITE, "base_url": factories.SITE}
    snapshots = LocalStorage(state / "snapshots")
    build_publish(snapshots, "s1", objects, created_at=created, meta=meta, keep=7)
    confirmed_watch(state, "w_origin", "player@example.com", 367520)
    code, output = alerts_send(smtp_server.url)  # no BANGSCORE_SITE_URL
    assert code == 0, output
    [raw] = smtp_server.inbox.raw
    origins = {
        m.group(1) for m in re.finditer(rb"(https?://[A-Za-z0-9.:-]+)/(?:game|account)/", raw)
    }
    assert origins == {factories.SITE.encode()}, origins  # the game's link and the unsubscribe
