"""Sign-up by email against a real ``bangscore serve`` (bangscore.shim.account.signups): the
answer is the same, byte for byte, whether the address has an account; ``bangscore alerts
send`` mails the owner (read from a real SMTP server's raw bytes) or the new address its link;
the link creates the account once, by a POST carrying the session's CSRF token."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bangscore.cli.main import main
from bangscore.storage import LocalStorage
from bangscore.stores import open_stores, open_watch_store
from tests.support import factories, signups
from tests.support.live import LOOPBACK, ShimServer
from tests.support.smtp_server import SMTPServer as LiveSMTP
from tests.support.smtp_server import body_text

OWNER = "owner@example.com"
NEWER = "newer@example.com"  # as long as OWNER: the two pages are the same length
LINK = re.compile(r"(http://127\.0\.0\.1:\d+/account/signup/confirm\?t=[\w.\-]+)")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ShimServer]:
    """A server over the small catalogue that takes X-Forwarded-For from loopback (so each
    sign-up can come from its own network), no SMTP configured (the server never mails)."""
    folder = tmp_path / "state" / "snapshots"  # where `alerts send` reads it too
    factories.publish_catalog(factories.small_catalog()[:3], LocalStorage(folder))
    trusting = {"BANGSCORE_FORWARDED_ALLOW_IPS": "127.0.0.1"}
    shim = ShimServer(tmp_path / "state", tmp_path / "shim.log", env=trusting).start()
    yield shim
    shim.stop()


def sign_up(server: ShimServer, email: str, ip: str) -> tuple[httpx.Response, float, str]:
    """Given a server, an address and the client's IP (X-Forwarded-For), post a sign-up
    from a fresh session; return the answer, the seconds it took and the page's CSRF token."""
    headers = {"X-Forwarded-For": ip}
    with httpx.Client(base_url=server.url, timeout=30, headers=headers) as client:
        csrf = signups.CSRF.findall(client.get("/account").text)[0]
        form = {"csrf": csrf, "email": email, "password": "a long enough password"}
        started = time.perf_counter()
        answer = client.post("/account/signup", data=form)
        return answer, time.perf_counter() - started, csrf


def outside(answer: httpx.Response, email: str, csrf: str) -> tuple[int, list[str], bytes]:
    """Given a sign-up's answer, the address it named and its session's CSRF token, return
    what anyone sees of it with the per-request values (date, request id, the seconds left in
    the quota's day, the session cookie's signed value, the CSRF token) and the address itself
    masked."""
    masked = {"date", "x-request-id"}
    headers = []
    for name, value in answer.headers.multi_items():
        if name in masked:
            value = "<per request>"
        elif name == "ratelimit":  # seconds left in the day, as of this request
            value = re.sub(r";t=\d+", ";t=<per request>", value)
        elif name == "set-cookie":
            value = re.sub(r"=[^;]+;", "=<signed session>;", value, count=1)
        headers.append(f"{name}: {value}")
    body = answer.content.replace(csrf.encode(), b"<csrf>").replace(email.encode(), b"<email>")
    return answer.status_code, headers, body


@pytest.mark.server
def test_sign_up_answers_the_same_whether_the_address_has_an_account(
    server: ShimServer, smtp_server: LiveSMTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    ip = {"X-Forwarded-For": "10.0.1.1"}
    owner, _ = signups.signed_up(server.url, server.state_dir, OWNER, headers=ip)
    owner.close()
    taken, _, taken_csrf = sign_up(server, OWNER, "10.0.2.1")
    new, _, new_csrf = sign_up(server, NEWER, "10.0.3.1")
    assert taken.status_code == 200 and "Check your inbox" in taken.text
    assert outside(taken, OWNER, taken_csrf) == outside(new, NEWER, new_csrf)
    accounts = open_stores(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
    assert accounts.accounts.find_account(NEWER) is None  # not until its link is used
    accounts.close()

    for name in [n for n in os.environ if n.startswith("BANGSCORE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("BANGSCORE_SMTP_URL", smtp_server.url)
    monkeypatch.setenv("BANGSCORE_SITE_URL", server.url)
    monkeypatch.setenv("BANGSCORE_MAIL_FROM", "BangScore <accounts@bangscore.test>")
    assert main(["--state-dir", str(server.state_dir), "alerts", "send"]) == 0
    assert len(smtp_server.inbox.raw) == 2
    # Found by recipient: the two queued mails may be sent in either order.
    [to_owner] = smtp_server.inbox.raw_to(OWNER)
    [to_new] = smtp_server.inbox.raw_to(NEWER)
    head, body = (b"\r\n" + to_owner).split(b"\r\n\r\n", 1)
    assert b"\r\nTo: owner@example.com\r\n" in head
    assert b"\r\nSubject: Someone tried to sign up to BangScore with this address\r\n" in head
    assert b"?t=" not in body  # no link: nothing to create, nothing to confirm
    [owner_mail] = smtp_server.inbox.to(OWNER)  # the raw bytes parsed, its parts decoded
    text = body_text(owner_mail)
    assert "Someone tried to create a BangScore account with this address" in text
    assert f"If it was you, sign in instead: {server.url}/account" in text
    assert "no account was made" in body_text(owner_mail, "html")
    new_head = (b"\r\n" + to_new).split(b"\r\n\r\n", 1)[0]
    assert b"\r\nTo: newer@example.com\r\n" in new_head
    assert b"\r\nSubject: Finish creating your BangScore account\r\n" in new_head
    [new_mail] = smtp_server.inbox.to(NEWER)
    parts = body_text(new_mail) + body_text(new_mail, "html")
    links = {m.group(1) for m in LINK.finditer(parts)}
    assert len(links) == 1  # the text and the HTML part carry the same link
    assert main(["--state-dir", str(server.state_dir), "alerts", "send"]) == 0
    assert len(smtp_server.inbox.raw) == 2  # each sent once

    [link] = links
    with httpx.Client(base_url=server.url, timeout=30) as visitor:
        assert signups.follow_signup_link(visitor, link).headers["location"] == "/account"
        assert f'id="who">{NEWER}<' in visitor.get("/account").text
    with httpx.Client(base_url=server.url, timeout=30) as again:
        assert signups.follow_signup_link(again, link).status_code == 400  # once
    watches = open_watch_store(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
    assert watches.address(NEWER).confirmed  # the link proved the address
    watches.close()


@pytest.mark.server
def test_sign_up_takes_as_long_whether_the_address_has_an_account(server: ShimServer) -> None:
    owner, _ = signups.signed_up(
        server.url, server.state_dir, OWNER, headers={"X-Forwarded-For": "10.0.1.1"}
    )
    owner.close()
    taken, new = [], []
    for n in range(3):  # alternated, each from its own network; the quickest of each compared
        taken.append(sign_up(server, OWNER, f"10.1.{n}.1")[1])
        new.append(sign_up(server, f"new{n}@example.com", f"10.2.{n}.1")[1])
    # Both hash the password (argon2id) and make the same store calls.
    assert 0.5 < min(taken) / min(new) < 2.0, (taken, new)


@pytest.mark.server
def test_the_link_creates_nothing_on_a_get_or_a_forged_post(server: ShimServer) -> None:
    form = LOOPBACK.get(f"{server.url}/account", timeout=30).text
    assert "We email you a link: the account is made when you open it." in form
    answer, _, _ = sign_up(server, NEWER, "10.0.4.1")
    assert answer.status_code == 200
    [(earlier, link)] = signups.signup_links(server.state_dir, server.url, NEWER).items()
    accounts = open_stores(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
    with httpx.Client(base_url=server.url, timeout=30) as scanner:
        page = scanner.get(link)  # a mail gateway's link scanner
        assert page.status_code == 200 and 'id="create-account"' in page.text
        assert scanner.post(link, data={"csrf": "forged"}).status_code == 403
        assert scanner.get(link[:-3] + "abc").status_code == 400
    assert accounts.accounts.find_account(NEWER) is None
    # Two sign-ups for one address: the first link used makes the account, the other is told.
    sign_up(server, NEWER, "10.0.5.1")
    queued = signups.signup_links(server.state_dir, server.url, NEWER)
    [first] = [url for signup_id, url in queued.items() if signup_id != earlier]
    second = link
    with httpx.Client(base_url=server.url, timeout=30) as owner:
        assert signups.follow_signup_link(owner, first).status_code == 303
    with httpx.Client(base_url=server.url, timeout=30) as late:
        answer = signups.follow_signup_link(late, second)
        assert answer.status_code == 409 and "already exists" in answer.text
    assert accounts.accounts.find_account(NEWER) is not None
    accounts.close()


@pytest.mark.server
def test_sign_up_emails_are_limited_per_address_and_the_answer_does_not_change(
    server: ShimServer,
) -> None:
    answers = [sign_up(server, NEWER, f"10.0.{10 + n}.1")[0] for n in range(5)]
    assert {a.status_code for a in answers} == {200}
    assert {"Check your inbox" in a.text for a in answers} == {True}
    store = open_watch_store(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
    assert len([s for s in store.pending_signups() if s.email == NEWER]) == 3  # per hour
    store.close()
