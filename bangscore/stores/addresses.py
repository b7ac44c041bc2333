"""Account identity (docs/API.md#website): an account is named by its email address, kept
normalized so that one person has one account whatever the case or form they type. The
account site, ``keys create`` and ``watch add`` all normalize through :func:`normalize_email`
before they reach a store.
"""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

MAX_EMAIL = 254  # RFC 5321 4.5.3.1.3: a path holds at most 256 octets, brackets included


def normalize_email(raw: str) -> str | None:
    """Given a typed email, return it normalized (``email-validator``) and lowercased, or None
    if it is not a valid address (including any control character or escape sequence)."""
    text = raw.strip()
    if not text or len(text) > MAX_EMAIL:
        return None
    try:
        checked = validate_email(text, check_deliverability=False)
    except EmailNotValidError:
        return None
    email = checked.normalized.lower()
    return email if len(email) <= MAX_EMAIL else None
