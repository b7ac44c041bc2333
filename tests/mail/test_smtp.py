"""The SMTP transport (bangscore.mail.smtp) against real aiosmtpd servers on loopback: plain,
STARTTLS offered, implicit TLS (smtps://) and AUTH, with a throwaway certificate from openssl."""

from __future__ import annotations

import gc
import ssl
import subprocess
import warnings
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from bangscore.errors import MailError, UnsafeMessage
from bangscore.mail.smtp import Mailer, SMTPServer, header_text, mailbox, new_message, render
from tests.support.live import free_port
from tests.support.smtp_server import Inbox, body_text
from tests.support.smtp_server import SMTPServer as LiveSMTP

USER, PASSWORD = "alerts", "s3cret:pass"


def send_one(server: SMTPServer, message: EmailMessage) -> None:
    """Given a server and a message, send it on a connection of its own; raise MailError."""
    with Mailer(server) as mailer:
        mailer.send(message)


def message(to: str = "player@example.com") -> EmailMessage:
    """A small complete message to ``to``."""
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "alerts@bangscore.test", to, "Hollow Knight"
    msg.set_content("Price: $7.49")
    return msg


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (PEM files), made once."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


def authenticate(
    server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
) -> AuthResult:
    """Accept only USER / PASSWORD."""
    ok = isinstance(data, LoginPassword) and (data.login, data.password) == (
        USER.encode(),
        PASSWORD.encode(),
    )
    return AuthResult(success=ok)


@pytest.fixture
def smtp_factory(certificate: tuple[Path, Path]) -> Iterator[Callable[..., tuple[int, Inbox]]]:
    """Return a factory of aiosmtpd servers on free loopback ports: given ``starttls`` (offer
    it), ``implicit`` (TLS from the first byte) and ``auth`` (require AUTH, offered only after
    STARTTLS), its port and inbox.
    Every server is stopped after the test."""
    started: list[Controller] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*certificate)

    def make(
        *, starttls: bool = False, implicit: bool = False, auth: bool = False
    ) -> tuple[int, Inbox]:
        inbox = Inbox()
        options: dict[str, Any] = {}
        if starttls:
            options["tls_context"] = context
        if implicit:
            options["ssl_context"] = context
        if auth:
            options.update(authenticator=authenticate, auth_required=True)
        controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), **options)
        controller.start()
        started.append(controller)
        return controller.port, inbox

    yield make
    for controller in started:
        controller.stop()


@pytest.fixture
def trust(certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the test certificate the one trusted root (ssl.create_default_context reads it)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        pytest.param("http://mail.test", "must start with smtp:// or smtps://", id="scheme"),
        pytest.param("mail.test:25", "must start with smtp:// or smtps://", id="no-scheme"),
        pytest.param("smtp://", "names no host", id="no-host"),
        pytest.param("smtps://user:pw@:465", "names no host", id="credentials-no-host"),
        pytest.param("smtp://mail.test:99999", "has an invalid port", id="port-range"),
        pytest.param("smtp://mail.test:smtp", "has an invalid port", id="port-name"),
    ],
)
def test_bad_smtp_urls_say_why(url: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        SMTPServer.from_url(url)


def test_the_server_name_carries_no_credentials() -> None:
    assert SMTPServer.from_url("smtps://alerts:hunter2@mail.test:2465").name == "mail.test:2465"


def test_send_one_delivers_over_plain_smtp(smtp_server: LiveSMTP) -> None:
    send_one(SMTPServer.from_url(smtp_server.url), message())
    [received] = smtp_server.inbox.messages
    assert (received["To"], received["Subject"]) == ("player@example.com", "Hollow Knight")
    assert body_text(received).strip() == "Price: $7.49"


def test_sending_outside_the_context_manager_is_refused() -> None:
    with pytest.raises(MailError, match="not connected") as caught:
        Mailer(SMTPServer("127.0.0.1", free_port())).send(message())
    assert caught.value.lost


@pytest.mark.server  # starts its own aiosmtpd
def test_starttls_is_used_when_offered(
    smtp_factory: Callable[..., tuple[int, Inbox]], trust: None
) -> None:
    # AUTH is only offered after STARTTLS here: logging in proves the session was encrypted
    port, inbox = smtp_factory(starttls=True, auth=True)
    send_one(SMTPServer.from_url(f"smtp://{USER}:s3cret%3Apass@127.0.0.1:{port}"), message())
    assert [m["To"] for m in inbox.messages] == ["player@example.com"]


@pytest.mark.server  # starts its own aiosmtpd
def test_an_untrusted_starttls_certificate_sends_nothing(
    smtp_factory: Callable[..., tuple[int, Inbox]],
) -> None:
    port, inbox = smtp_factory(starttls=True)
    with pytest.raises(MailError, match=f"cannot reach the SMTP server 127.0.0.1:{port}: ") as e:
        send_one(SMTPServer("127.0.0.1", port), message())
    assert "certificate verify failed" in str(e.value)
    assert e.value.lost
    assert inbox.messages == []


@pytest.mark.server  # starts its own aiosmtpd
def test_smtps_speaks_tls_from_the_first_byte(
    smtp_factory: Callable[..., tuple[int, Inbox]], trust: None
) -> None:
    port, inbox = smtp_factory(implicit=True)
    send_one(SMTPServer.from_url(f"smtps://127.0.0.1:{port}"), message())
    assert [m["Subject"] for m in inbox.messages] == ["Hollow Knight"]


def test_smtps_to_a_plain_server_sends_nothing(smtp_server: LiveSMTP) -> None:
    port = smtp_server.controller.port
    with pytest.raises(MailError, match=f"cannot reach the SMTP server 127.0.0.1:{port}: "):
        send_one(SMTPServer("127.0.0.1", port, tls=True), message())
    assert smtp_server.inbox.messages == []


def test_credentials_for_a_server_without_auth_are_an_error(smtp_server: LiveSMTP) -> None:
    port = smtp_server.controller.port
    server = SMTPServer("127.0.0.1", port, username=USER, password=PASSWORD)
    with pytest.raises(MailError) as caught:
        send_one(server, message())
    assert str(caught.value) == (
        f"cannot reach the SMTP server 127.0.0.1:{port}: SMTPNotSupportedError"
    )
    assert smtp_server.inbox.messages == []


def test_a_refused_recipient_keeps_the_connection(smtp_server: LiveSMTP) -> None:
    with Mailer(SMTPServer.from_url(smtp_server.url)) as mailer:
        smtp_server.inbox.refuse = True
        with pytest.raises(MailError) as caught:
            mailer.send(message("gone@example.com"))
        assert not caught.value.lost
        assert "gone@example.com" not in str(caught.value)
        smtp_server.inbox.refuse = False
        mailer.send(message())  # the same connection still works
    assert [m["To"] for m in smtp_server.inbox.messages] == ["player@example.com"]


def test_a_connection_that_fails_half_way_is_closed(smtp_server: LiveSMTP) -> None:
    # login fails after connecting: the socket must be closed then, not left to the collector
    server = SMTPServer("127.0.0.1", smtp_server.controller.port, username=USER, password="x")
    error = ""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            send_one(server, message())
        except MailError as exc:
            error = str(exc)
        gc.collect()
    assert error.endswith("SMTPNotSupportedError")
    assert [w.message for w in seen if issubclass(w.category, ResourceWarning)] == []


@pytest.mark.parametrize(
    ("reply", "lost"),
    [
        pytest.param("554 5.7.1 rejected as spam", False, id="554-refused-for-good"),
        pytest.param("421 4.3.2 shutting down", True, id="421-try-again-later"),
    ],
)
def test_a_message_refused_at_data_is_an_error_that_says_whether_to_retry(
    smtp_server: LiveSMTP, reply: str, lost: bool
) -> None:
    smtp_server.inbox.data_reply = reply
    code = reply.split()[0]
    with pytest.raises(MailError) as caught:
        send_one(SMTPServer.from_url(smtp_server.url), message())
    assert str(caught.value) == (
        f"the SMTP server 127.0.0.1:{smtp_server.controller.port} refused the message ({code})"
    )
    assert caught.value.lost is lost and not caught.value.bounced
    assert smtp_server.inbox.messages == []


@pytest.mark.parametrize(
    ("value", "limit", "expected"),
    [
        pytest.param("Hollow Knight", 200, "Hollow Knight", id="plain"),
        pytest.param("A\r\nBcc: x@y.io", 200, "A Bcc: x@y.io", id="crlf"),
        pytest.param("A\u2028B\x00C\u0085D", 200, "A B C D", id="separators-nul-nel"),
        pytest.param("  many   spaces  ", 200, "many spaces", id="spaces"),
        pytest.param("=?utf-8?q?hi?=", 200, "=\u2060?utf-8?q?hi?=", id="encoded-word"),
        pytest.param("Hollow Knight Silksong", 10, "Hollow...", id="cut-at-a-space"),
        pytest.param("x" * 250, 200, "x" * 197 + "...", id="cut-to-200"),
        pytest.param(7.49, 200, "7.49", id="a-number"),
    ],
)
def test_header_text_is_inert_one_line_text(value: object, limit: int, expected: str) -> None:
    assert header_text(value, limit) == expected
    assert len(header_text(value, limit)) <= limit


@pytest.mark.parametrize(
    "address",
    [
        pytest.param("player@example.com\r\nBcc: x@y.io", id="crlf"),
        pytest.param("Player <player@example.com>", id="display-name"),
        pytest.param("a@b.io, c@d.io", id="two-addresses"),
        pytest.param("", id="empty"),
    ],
)
def test_mailbox_refuses_anything_but_one_plain_address(address: str) -> None:
    with pytest.raises(UnsafeMessage, match="cannot be written as a plain mailbox"):
        mailbox(address)


def test_mailbox_returns_a_plain_address_as_it_is() -> None:
    assert mailbox("player@example.com") == "player@example.com"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        pytest.param("List-Unsubscribe", "<https://x.test/u>\r\nBcc: a@b.io", id="crlf"),
        pytest.param("List-Unsubscribe", "<https://x.test/u/\u00e9>", id="non-ascii"),
        pytest.param("List-Unsubscribe-Post", "List-Unsubscribe=One-Click\n", id="trailing-lf"),
        pytest.param("List-Unsubscribe", "", id="empty"),
    ],
)
def test_the_list_headers_are_one_line_of_printable_ascii(name: str, value: str) -> None:
    msg = new_message()
    with pytest.raises(UnsafeMessage, match=f"^{name} must be one line of printable ASCII$"):
        msg[name] = value


def test_the_list_headers_stay_verbatim_on_one_line_as_bytes_and_as_text() -> None:
    # Longer than the 78 columns the SMTP policy folds other headers at.
    url = "<https://bangscore.test/watch/unsubscribe?token=" + "a" * 80 + ">"
    msg = new_message()
    msg["From"], msg["To"], msg["Subject"] = "alerts@bangscore.test", "player@example.com", "Hi"
    msg["List-Unsubscribe"] = url
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content("Price: $7.49")
    lines = (f"List-Unsubscribe: {url}", "List-Unsubscribe-Post: List-Unsubscribe=One-Click")
    for line in lines:
        assert line.encode("ascii") + b"\r\n" in msg.as_bytes()
        assert line + "\r\n" in msg.as_string()


@pytest.mark.parametrize(
    ("subject", "utf8", "one_line"),
    [
        pytest.param(
            "Hollow Knight: $14.99, within your $20.00 " + "x" * 150, False, True, id="ascii"
        ),
        pytest.param(
            "東方夜雀食堂 - Touhou Mystia's Izakaya: $5.99 " * 3, False, False, id="encoded-words"
        ),
        pytest.param(
            "東方夜雀食堂 - Touhou Mystia's Izakaya: $5.99 " * 3, True, True, id="smtputf8"
        ),
    ],
)
def test_a_header_leaves_as_one_line_unless_it_needs_encoded_words(
    subject: str, utf8: bool, one_line: bool
) -> None:
    message = new_message()
    message["Subject"] = header_text(subject)
    message["To"] = "player@example.com"
    message["Content-Type"] = (
        'multipart/alternative; boundary="===============7270404539720691358=="'
    )
    head = render(message, utf8=utf8).partition(b"\r\n\r\n")[0].split(b"\r\n")
    folded = [line for line in head if line.startswith((b" ", b"\t"))]
    assert (folded == []) is one_line, head
    # Encoded words keep the email package's folding at 78 characters.
    assert all(len(line) <= 78 for line in head if b"=?" in line)
