"""Real SMTP servers for tests: aiosmtpd on a free loopback port, keeping every message it
accepts (parsed, and the raw bytes of DATA) so tests read what was delivered, counting its
sessions, and able to refuse recipients on demand; by default without SMTPUTF8 (as Amazon SES),
``smtputf8_server`` with it; and ``silent_smtp``, a TCP server that accepts and never answers
(or trickles its greeting a byte at a time).
"""

from __future__ import annotations

import email
import email.policy
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.live import free_port


@dataclass
class Inbox:
    """The messages an SMTP server accepted, and whether it refuses every recipient now."""

    messages: list[EmailMessage] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)
    refuse: bool = False
    refuse_reply: str = "550 5.1.1 mailbox unavailable"
    # A reply to DATA instead of accepting the message (e.g. "554 5.7.1 rejected as spam").
    data_reply: str | None = None
    sessions: int = 0

    async def handle_EHLO(  # noqa: N802 -- aiosmtpd's hook name
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        hostname: str,
        responses: list[str],
    ) -> list[str]:
        self.sessions += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(  # noqa: N802 -- aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if self.refuse:
            return self.refuse_reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802 -- aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        if self.data_reply is not None:
            return self.data_reply
        raw = envelope.original_content or b""
        self.raw.append(raw)
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        """Given an address, return the messages sent to it."""
        return [m for m in self.messages if m["To"] == address]

    def raw_to(self, address: str) -> list[bytes]:
        """Given an address, return the raw bytes of each message sent to it, in the order
        received; the order among different recipients is the sender's and not asserted."""
        return [raw for raw, m in zip(self.raw, self.messages, strict=True) if m["To"] == address]


@dataclass
class SMTPServer:
    """A running aiosmtpd server and its inbox."""

    controller: Controller
    inbox: Inbox

    @property
    def url(self) -> str:
        """Return ``smtp://127.0.0.1:<port>`` (the BANGSCORE_SMTP_URL form)."""
        return f"smtp://127.0.0.1:{self.controller.port}"


@pytest.fixture
def smtp_server() -> Iterator[SMTPServer]:
    """A fresh SMTP server on a free loopback port (no SMTPUTF8), stopped after the test."""
    inbox = Inbox()
    # aiosmtpd's Controller offers SMTPUTF8 unless told not to.
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), enable_SMTPUTF8=False)
    controller.start()
    yield SMTPServer(controller, inbox)
    controller.stop()


@pytest.fixture
def smtputf8_server() -> Iterator[SMTPServer]:
    """A fresh SMTP server that offers SMTPUTF8, stopped after the test."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(), enable_SMTPUTF8=True)
    controller.start()
    yield SMTPServer(controller, inbox)
    controller.stop()


class SilentServer:
    """A TCP server on loopback that accepts every connection and never answers, or with
    ``trickle`` sends the greeting one byte per ``trickle`` seconds (never finishing it)."""

    def __init__(self, trickle: float | None = None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.trickle = trickle
        self.accepted = 0
        self.stopped = threading.Event()
        self.clients: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        """Return ``smtp://127.0.0.1:<port>``."""
        return f"smtp://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self.clients.append(client)
            if self.trickle is not None:
                threading.Thread(target=self._drip, args=(client,), daemon=True).start()

    def _drip(self, client: socket.socket) -> None:
        for byte in b"220 slow.example ESMTP " * 100:
            if self.stopped.wait(self.trickle):
                return
            try:
                client.sendall(bytes([byte]))
            except OSError:
                return

    def stop(self) -> None:
        """Stop accepting and close every connection."""
        self.stopped.set()
        self.listener.close()
        for client in self.clients:
            client.close()
        self.thread.join(timeout=5)


@pytest.fixture
def silent_smtp() -> Iterator[SilentServer]:
    """A server that accepts TCP connections and never answers, stopped after the test."""
    server = SilentServer()
    yield server
    server.stop()


@pytest.fixture
def trickling_smtp() -> Iterator[SilentServer]:
    """A server that trickles its greeting at one byte per 0.5 s, stopped after the test."""
    server = SilentServer(trickle=0.5)
    yield server
    server.stop()


def body_text(message: EmailMessage, subtype: str = "plain") -> str:
    """Given a received message, return its text/<subtype> part's content."""
    part = message.get_body(preferencelist=(subtype,))
    assert part is not None, f"no text/{subtype} part"
    return str(part.get_content())
