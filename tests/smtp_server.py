"""A real SMTP server for tests: aiosmtpd on a free loopback port, keeping every message it
accepts (parsed) so tests read what was delivered, and able to refuse recipients on demand.
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.live import free_port


@dataclass
class Inbox:
    """The messages an SMTP server accepted, and whether it refuses every recipient now."""

    messages: list[EmailMessage] = field(default_factory=list)
    refuse: bool = False

    async def handle_RCPT(  # noqa: N802 -- aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # noqa: N802 -- aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        raw = envelope.original_content or b""
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        """Given an address, return the messages sent to it."""
        return [m for m in self.messages if m["To"] == address]


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
    """A fresh SMTP server on a free loopback port, stopped after the test."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield SMTPServer(controller, inbox)
    controller.stop()


def body_text(message: EmailMessage, subtype: str = "plain") -> str:
    """Given a received message, return its text/<subtype> part's content."""
    part = message.get_body(preferencelist=(subtype,))
    assert part is not None, f"no text/{subtype} part"
    return str(part.get_content())
