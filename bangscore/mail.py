"""Sending email over SMTP (stdlib smtplib): the alerts' and the confirmations' transport.

The server is named by one URL (setting ``BANGSCORE_SMTP_URL``, docs/API.md#watches):
``smtp://[user:pass@]host[:port]`` (port 25 by default; STARTTLS when the server offers it)
or ``smtps://[user:pass@]host[:port]`` (TLS from the first byte, port 465 by default).

Every failure is one :class:`MailError` whose message names the server and the reason but
never a recipient's address (addresses are never logged), and tells whether it is worth
retrying later.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from types import TracebackType
from urllib.parse import unquote, urlsplit

from bangscore.errors import MailError as MailError

TIMEOUT_SECONDS = 20.0


@dataclass(frozen=True, slots=True)
class SMTPServer:
    """Where and how to reach an SMTP server: host, port, implicit TLS or not, credentials."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None

    @classmethod
    def from_url(cls, url: str) -> SMTPServer:
        """Given ``smtp://[user:pass@]host[:port]`` or ``smtps://...``, return the server.
        Raises ValueError for another scheme or a URL without a host."""
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps"):
            raise ValueError("the SMTP URL must start with smtp:// or smtps://")
        if not parts.hostname:
            raise ValueError("the SMTP URL names no host")
        tls = parts.scheme == "smtps"
        try:
            port = parts.port or (465 if tls else 25)
        except ValueError as exc:
            raise ValueError("the SMTP URL has an invalid port") from exc
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port, tls, user, password)

    @property
    def name(self) -> str:
        """Return ``host:port`` (no credentials), for messages."""
        return f"{self.host}:{self.port}"


class Mailer:
    """One SMTP connection for a batch of messages: ``with Mailer(server) as m: m.send(msg)``.

    Connecting raises MailError when the server is unreachable or refuses the credentials.
    """

    def __init__(self, server: SMTPServer, *, timeout: float = TIMEOUT_SECONDS) -> None:
        self.server = server
        self.timeout = timeout
        self._smtp: smtplib.SMTP | None = None

    def __enter__(self) -> Mailer:
        s = self.server
        smtp: smtplib.SMTP | None = None
        try:
            if s.tls:
                smtp = smtplib.SMTP_SSL(
                    s.host, s.port, timeout=self.timeout, context=ssl.create_default_context()
                )
            else:
                smtp = smtplib.SMTP(s.host, s.port, timeout=self.timeout)
                smtp.ehlo()
                if smtp.has_extn("starttls"):
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
            if s.username:
                smtp.login(s.username, s.password or "")
        except smtplib.SMTPAuthenticationError as exc:
            _close(smtp)
            raise MailError(
                f"the SMTP server {s.name} refused the credentials ({exc.smtp_code})"
            ) from None
        except (TimeoutError, smtplib.SMTPException, OSError) as exc:
            _close(smtp)
            raise MailError(f"cannot reach the SMTP server {s.name}: {_reason(exc)}") from None
        self._smtp = smtp
        return self

    def send(self, message: EmailMessage) -> None:
        """Given a complete message (From, To, Subject...), hand it to the server.

        Raises MailError if the server refuses it or the connection fails; the recipient is
        then known not to have been sent this message by us.
        """
        if self._smtp is None:
            raise MailError("not connected: use the Mailer as a context manager")
        try:
            self._smtp.send_message(message)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = sorted({code for code, _ in exc.recipients.values()})
            raise MailError(
                f"the SMTP server {self.server.name} refused the recipient {codes}", lost=False
            ) from None
        except smtplib.SMTPResponseException as exc:
            raise MailError(
                f"the SMTP server {self.server.name} refused the message ({exc.smtp_code})",
                lost=exc.smtp_code in (421,),
            ) from None
        except (smtplib.SMTPException, OSError) as exc:
            raise MailError(f"lost the SMTP server {self.server.name}: {_reason(exc)}") from None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                self._smtp.close()
            self._smtp = None


def send_one(server: SMTPServer, message: EmailMessage) -> None:
    """Given a server and a message, send it on a connection of its own; raise MailError."""
    with Mailer(server) as mailer:
        mailer.send(message)


def _close(smtp: smtplib.SMTP | None) -> None:
    # A connection that failed half-way (STARTTLS, login) is dropped, not left to the garbage
    # collector with its socket open.
    if smtp is not None:
        smtp.close()


def _reason(exc: BaseException) -> str:
    # OSError's strerror ("Connection refused"), never the exception's repr, which for some
    # smtplib errors quotes the SMTP conversation (and with it an address).
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out"
    return type(exc).__name__
