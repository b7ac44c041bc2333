"""Sending email over SMTP (stdlib smtplib): the alerts' and the confirmations' transport.

The server is named by one URL (setting ``BANGSCORE_SMTP_URL``, docs/API.md#watches):
``smtp://[user:pass@]host[:port]`` (port 25 by default; STARTTLS when the server offers it)
or ``smtps://[user:pass@]host[:port]`` (TLS from the first byte, port 465 by default).

Headers are built here and nowhere else (docs/API.md#alerts):

- :func:`header_text` neutralises every value that comes from a catalogue, a form or an
  address: control and line-separator characters become spaces and the encoded-word opener
  ``=?`` is broken, so no value can smuggle a CR LF through RFC 2047 decoding. This is the
  fault of CPython's CVE-2024-6923 (fixed in 3.11.10, 3.12.5 and 3.13.0 by the policy flag
  ``verify_generated_headers``; see python/cpython#121650).
- :data:`POLICY` is ``email.policy.SMTP`` with ``List-Unsubscribe`` and
  ``List-Unsubscribe-Post`` written verbatim on one line, as RFC 2369 and RFC 8058 show them
  (the default folder RFC 2047-encodes any header line over 78 characters, and a mail client
  then finds no URI in it).
- :func:`render` serialises a message and re-reads its header block: a block whose header
  names are not exactly the ones set is refused (:class:`UnsafeMessage`), so the project stays
  safe on a Python without the fix.

Every failure is one :class:`MailError` whose message names the server and the reason but
never a recipient's address (addresses are never logged), and tells whether it is worth
retrying later.
"""

from __future__ import annotations

import contextlib
import re
import smtplib
import socket
import ssl
import threading
import time
import unicodedata
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.policy import EmailPolicy
from email.utils import parseaddr
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

from bangscore.contract.mailbox import plain_mailbox
from bangscore.errors import MailError, UnsafeMessage

TIMEOUT_SECONDS = 20.0
DEADLINE_SECONDS = 600.0
MAX_HEADER_TEXT = 200
HEADER_LINE_MAX = 998
# Whether this Python's email package checks its own output for injected headers
# (CVE-2024-6923's fix, or a distribution's backport of it).
PYTHON_CHECKS_HEADERS = hasattr(SMTP_POLICY, "verify_generated_headers")
_VERBATIM = frozenset({"list-unsubscribe", "list-unsubscribe-post"})
_PRINTABLE_ASCII = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*")
_HEADER_NAME = re.compile(rb"([\x21-\x39\x3b-\x7e]+):")


def header_text(value: object, limit: int = MAX_HEADER_TEXT) -> str:
    """Given any value for a header (a game's name, a price line), return it as inert text:
    control, format and line/paragraph-separator characters (CR, LF, NUL, U+0085, U+2028...)
    become one space, runs of spaces collapse, ``=?`` gets a word joiner so no MIME decoder
    reads an encoded word, and the result is cut to ``limit`` characters (with "...")."""
    text = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in str(value)
    )
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text.replace("=?", "=\u2060?")


def mailbox(address: str, *, utf8: bool = False) -> str:
    """Given a stored address, return it for a ``To`` header and the envelope when it is a
    plain mailbox (:func:`bangscore.contract.mailbox.plain_mailbox`); raise UnsafeMessage
    otherwise (such an address is refused at sign-up; one stored earlier is skipped)."""
    if not plain_mailbox(address, utf8=utf8):
        raise UnsafeMessage("the address cannot be written as a plain mailbox")
    return address


class _Policy(EmailPolicy):
    """``email.policy.SMTP`` that writes the RFC 2369/8058 list headers verbatim."""

    def header_store_parse(self, name: str, value: Any) -> tuple[str, Any]:
        if name.lower() in _VERBATIM:
            if not isinstance(value, str) or not _PRINTABLE_ASCII.fullmatch(value):
                raise UnsafeMessage(f"{name} must be one line of printable ASCII")
            return (name, value)
        return super().header_store_parse(name, value)

    def _unfolded(self, value: Any) -> _Policy:
        # A value needing no RFC 2047 encoded words (ASCII, or any text over SMTPUTF8) leaves
        # as the one line it was written as (RFC 5322 allows 998 characters; header_text cuts
        # every value to MAX_HEADER_TEXT); encoded words keep the 78-character folding.
        plain = self.utf8 or str(value).isascii()
        return self.clone(max_line_length=HEADER_LINE_MAX) if plain else self

    def fold(self, name: str, value: Any) -> str:
        if name.lower() in _VERBATIM:
            return f"{name}: {value}{self.linesep}"
        folded: str = super(_Policy, self._unfolded(value)).fold(name, value)
        return folded

    def fold_binary(self, name: str, value: Any) -> bytes:
        if name.lower() in _VERBATIM:
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super(_Policy, self._unfolded(value)).fold_binary(name, value)


POLICY = _Policy(**SMTP_POLICY.__dict__)


def new_message() -> EmailMessage:
    """Return an empty message under :data:`POLICY` (CR LF lines, verbatim list headers)."""
    return EmailMessage(policy=POLICY)


def render(message: EmailMessage, *, utf8: bool = False) -> bytes:
    """Given a complete message, return its bytes for SMTP DATA (CR LF lines).

    The header block is parsed back: every line must be a continuation or a header this
    message set, in the same order and number; otherwise UnsafeMessage (a value broke out of
    its header line). Raises UnsafeMessage too when the email package refuses a value.
    """
    policy = POLICY.clone(utf8=utf8)
    try:
        raw = message.as_bytes(policy=policy)
    except (ValueError, TypeError, UnicodeError) as exc:
        raise UnsafeMessage(f"the message cannot be written: {type(exc).__name__}") from None
    head, sep, _ = raw.partition(b"\r\n\r\n")
    names: list[str] = []
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t"):
            continue
        match = _HEADER_NAME.match(line)
        if match is None or b"\r" in line or b"\n" in line:
            raise UnsafeMessage("a header line of the message is not a header")
        names.append(match.group(1).decode("ascii").lower())
    if not sep or names != [k.lower() for k in message]:
        raise UnsafeMessage("the message's header block differs from the headers it was given")
    return raw


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


class _Deadline:
    """Shuts the connection's socket down when the run's total time is up, so a server that
    trickles its replies a byte at a time (each read within the per-read timeout) cannot hold
    a run past its deadline: the blocked read returns and the run ends with MailError."""

    def __init__(self, seconds: float) -> None:
        self.ends = time.monotonic() + seconds
        self.passed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            if self.passed:
                sock.close()
                raise TimeoutError("deadline passed")
            self._sockets.append(sock)
        return sock

    @property
    def expired(self) -> bool:
        """Return True once the deadline has come (whether the timer or a read's own
        timeout, cut to the time left, noticed first)."""
        return self.passed or time.monotonic() >= self.ends - 0.05

    def remaining(self, cap: float) -> float:
        return max(0.01, min(cap, self.ends - time.monotonic()))

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


# smtplib opens its socket in the undocumented but stable ``_get_socket`` (CPython 3.3+): the
# one place to hand the socket to the deadline before the greeting is read.
class _SMTP(smtplib.SMTP):
    def __init__(self, deadline: _Deadline, host: str, port: int, timeout: float) -> None:
        self.deadline = deadline
        super().__init__(host, port, timeout=timeout)

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        opened: socket.socket = super()._get_socket(host, port, timeout)  # type: ignore[misc]
        return self.deadline.watch(opened)


class _SMTPSSL(smtplib.SMTP_SSL):
    def __init__(self, deadline: _Deadline, host: str, port: int, timeout: float) -> None:
        self.deadline = deadline
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())

    def _get_socket(self, host: str, port: int, timeout: float) -> socket.socket:
        opened: socket.socket = super()._get_socket(host, port, timeout)  # type: ignore[misc]
        return self.deadline.watch(opened)


class Mailer:
    """One SMTP connection for a batch of messages: ``with Mailer(server) as m: m.send(msg)``.

    ``timeout`` bounds each read; ``deadline`` the whole connection, from connecting to QUIT.
    Connecting raises MailError when the server is unreachable or refuses the credentials.
    ``smtputf8`` tells, once connected, whether the server takes non-ASCII addresses.
    """

    def __init__(
        self,
        server: SMTPServer,
        *,
        timeout: float = TIMEOUT_SECONDS,
        deadline: float = DEADLINE_SECONDS,
    ) -> None:
        self.server = server
        self.timeout = timeout
        self.deadline_seconds = deadline
        self._deadline: _Deadline | None = None
        self._smtp: smtplib.SMTP | None = None
        self.smtputf8 = False

    def __enter__(self) -> Mailer:
        s = self.server
        deadline = self._deadline = _Deadline(self.deadline_seconds)
        timeout = deadline.remaining(self.timeout)
        smtp: smtplib.SMTP | None = None
        try:
            if s.tls:
                smtp = _SMTPSSL(deadline, s.host, s.port, timeout)
                smtp.ehlo()
            else:
                smtp = _SMTP(deadline, s.host, s.port, timeout)
                smtp.ehlo()
                if smtp.has_extn("starttls"):
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
            if s.username:
                smtp.login(s.username, s.password or "")
        except smtplib.SMTPAuthenticationError as exc:
            self._abandon(smtp)
            raise MailError(
                f"the SMTP server {s.name} refused the credentials ({exc.smtp_code})"
            ) from None
        except (TimeoutError, smtplib.SMTPException, OSError) as exc:
            self._abandon(smtp)
            raise MailError(f"cannot reach the SMTP server {s.name}: {self._reason(exc)}") from None
        self._smtp = smtp
        self.smtputf8 = smtp.has_extn("smtputf8")
        return self

    def send(self, message: EmailMessage) -> None:
        """Given a complete message (From, To, Subject...), hand it to the server.

        The bytes sent are :func:`render`'s; the envelope sender is the From address and the
        recipient the To address. Raises UnsafeMessage for a message that cannot be written
        safely and MailError(lost=False) for an address this server cannot take (non-ASCII
        without SMTPUTF8), both before anything is sent; MailError if the server refuses it
        (``bounced`` for a 5xx on RCPT) or the connection fails. The recipient is then known
        not to have been sent this message by us.
        """
        if self._smtp is None:
            raise MailError("not connected: use the Mailer as a context manager")
        recipient = str(message.get("To", ""))
        utf8 = not recipient.isascii()
        mailbox(recipient, utf8=True)
        if utf8 and not self.smtputf8:
            raise MailError(
                f"the SMTP server {self.server.name} does not offer SMTPUTF8: it cannot take "
                "a non-ASCII address",
                lost=False,
            )
        raw = render(message, utf8=utf8)
        sender = parseaddr(str(message.get("From", "")))[1]
        options = ["SMTPUTF8", "BODY=8BITMIME"] if utf8 else []
        try:
            self._smtp.sendmail(sender, [recipient], raw, mail_options=options)
        except smtplib.SMTPRecipientsRefused as exc:
            codes = sorted({code for code, _ in exc.recipients.values()})
            raise MailError(
                f"the SMTP server {self.server.name} refused the recipient {codes}",
                lost=False,
                bounced=all(500 <= c < 600 for c in codes),
            ) from None
        except smtplib.SMTPResponseException as exc:
            raise MailError(
                f"the SMTP server {self.server.name} refused the message ({exc.smtp_code})",
                lost=exc.smtp_code in (421,),
            ) from None
        except (smtplib.SMTPException, OSError) as exc:
            raise MailError(
                f"lost the SMTP server {self.server.name}: {self._reason(exc)}"
            ) from None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        if self._smtp is not None:
            try:
                self._smtp.quit()
            except (smtplib.SMTPException, OSError):
                self._smtp.close()
            self._smtp = None
        if self._deadline is not None:
            self._deadline.cancel()

    def _abandon(self, smtp: smtplib.SMTP | None) -> None:
        # A connection that failed half-way (greeting, STARTTLS, login) is dropped, not left
        # to the garbage collector with its socket open.
        if smtp is not None:
            smtp.close()
        if self._deadline is not None:
            self._deadline.cancel()

    def _reason(self, exc: BaseException) -> str:
        # OSError's strerror ("Connection refused"), never the exception's repr, which for
        # some smtplib errors quotes the SMTP conversation (and with it an address).
        if self._deadline is not None and self._deadline.expired:
            return f"the run passed its deadline of {self.deadline_seconds:g} s"
        if isinstance(exc, OSError) and exc.strerror:
            return exc.strerror
        if isinstance(exc, socket.timeout | TimeoutError):
            return "timed out"
        return type(exc).__name__
