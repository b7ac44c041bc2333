"""Which addresses mail can carry (docs/API.md#watches): the rule the account site applies at
sign-up and the mailer applies before it writes a ``To`` header or an SMTP envelope, so an
address accepted at sign-up is one the alerts can reach.
"""

from __future__ import annotations

import unicodedata


def plain_mailbox(address: str, *, utf8: bool) -> bool:
    """Given a normalized address, return whether it can be written as a plain mailbox in a
    ``To`` header and an SMTP envelope: ``local@domain`` with no space, control character,
    quote, bracket, comment or RFC 2047 encoded-word (``=?``), and printable ASCII unless
    ``utf8`` (the relay offers SMTPUTF8). email-validator accepts some addresses that fail
    this, such as ``=?utf-8?q?z=0D=0A?=@example.com`` (docs/API.md#watches)."""
    local, at, domain = address.rpartition("@")
    bad = set(' "(),:;<>[\\]') | {"\x7f"}
    return not (
        not at
        or not local
        or not domain
        or "=?" in address
        or any(ch in bad or unicodedata.category(ch)[0] in "CZ" for ch in address)
        or (not utf8 and not address.isascii())
    )
