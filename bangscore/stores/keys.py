"""API key format (docs/API.md#api-keys): ``bsk_`` + 27 base62 characters of randomness (160 bits) +
a 6-character base62 CRC32 checksum of the random part.

A malformed key is refused without a store lookup; secret scanners can match the format
(regex :data:`KEY_PATTERN`). Keys are stored only as their SHA-256 digest; the key id, the
first 8 characters after the prefix, names a key in lists and logs.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import zlib
from urllib.parse import unquote

PREFIX = "bsk_"
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
RANDOM_CHARS = 27  # 62**27 > 2**160
CHECK_CHARS = 6  # 62**6 > 2**32
KEY_ID_CHARS = 8
KEY_LENGTH = len(PREFIX) + RANDOM_CHARS + CHECK_CHARS
KEY_PATTERN = re.compile(rf"\b{PREFIX}[0-9A-Za-z]{{{RANDOM_CHARS + CHECK_CHARS}}}\b")
# A run of characters that could spell a key once percent-decoded (once or more): letters,
# digits, underscores and %XX escapes. Logged URLs are raw, so keys are found decoded.
# A run of key characters and percent-escapes long enough to hold a key: every escape stands for
# one character, so a shorter run cannot, and most of a log line's words are passed over by the
# regular expression alone, never by the Python callback (the access log calls this per request).
# Anything spelled like a key, even one character short or with a typo, is redacted: the
# prefix and at least NEAR_KEY_CHARS key characters (a mistyped key is still most of a secret).
NEAR_KEY_CHARS = 16
_ENCODED_RUN = re.compile(rf"(?:[0-9A-Za-z_]|%[0-9A-Fa-f]{{2}}){{{len(PREFIX) + NEAR_KEY_CHARS},}}")
_KEY_INSIDE = re.compile(rf"{PREFIX}[0-9A-Za-z]{{{NEAR_KEY_CHARS},}}", re.IGNORECASE)
_DECODE_ROUNDS = 3
_INDEX = {c: i for i, c in enumerate(ALPHABET)}


def _base62(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, rem = divmod(number, 62)
        chars.append(ALPHABET[rem])
    return "".join(reversed(chars))


def checksum(random_part: str) -> str:
    """Given the random part of a key, return its 6-character base62 CRC32 checksum."""
    return _base62(zlib.crc32(random_part.encode()), CHECK_CHARS)


def generate_key() -> str:
    """Return a new random API key (``bsk_`` + 27 random base62 chars + 6 checksum chars)."""
    random_part = "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_CHARS))
    return PREFIX + random_part + checksum(random_part)


def is_well_formed(key: str) -> bool:
    """Given a candidate key, return True if prefix, length, alphabet and checksum are right."""
    if len(key) != KEY_LENGTH or not key.startswith(PREFIX):
        return False
    body = key[len(PREFIX) :]
    if any(c not in _INDEX for c in body):
        return False
    return checksum(body[:RANDOM_CHARS]) == body[RANDOM_CHARS:]


def key_digest(key: str) -> str:
    """Given a key, return the SHA-256 hex digest under which it is stored."""
    return hashlib.sha256(key.encode()).hexdigest()


def key_id(key: str) -> str:
    """Given a key, return its short public id: the first 8 characters after the prefix."""
    return key[len(PREFIX) : len(PREFIX) + KEY_ID_CHARS]


def _redact_run(match: re.Match[str]) -> str:
    run = match.group(0)
    decoded = run
    for _ in range(_DECODE_ROUNDS):  # %255F is %5F is _: a key encoded twice is still a key
        found = _KEY_INSIDE.search(decoded)
        if found is not None:
            key = found.group(0)
            return f"{PREFIX}{key[len(PREFIX) : len(PREFIX) + KEY_ID_CHARS]}…"
        if "%" not in decoded:
            break
        decoded = unquote(decoded, errors="replace")
    return run


def redact(text: str) -> str:
    """Given text (a log line, a URL), return it with every API key replaced by its id.

    A near key (``bsk_`` and at least :data:`NEAR_KEY_CHARS` key characters: one character
    short, one too many, mistyped) is replaced the same way.

    Keys are matched after percent-decoding (up to three times), so ``bsk%5F...``, a fully
    escaped key or a doubly escaped one are redacted like the plain form; the whole run of
    characters that held the key (the key and anything glued to it) is replaced.
    """
    return _ENCODED_RUN.sub(_redact_run, text)
