"""API key format: prefix, randomness, checksum, digest, id and redaction."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bangscore.stores.keys import (
    KEY_LENGTH,
    KEY_PATTERN,
    generate_key,
    is_well_formed,
    key_digest,
    key_id,
    redact,
)


def test_generated_keys_are_well_formed_and_distinct() -> None:
    keys = {generate_key() for _ in range(200)}
    assert len(keys) == 200
    for key in keys:
        assert key.startswith("bsk_") and len(key) == KEY_LENGTH == 37
        assert is_well_formed(key)
        assert KEY_PATTERN.fullmatch(key)


def flip(key: str, index: int) -> str:
    c = key[index]
    return key[:index] + ("A" if c != "A" else "B") + key[index + 1 :]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda k: k[:-1],
        lambda k: k + "x",
        lambda k: "bsx_" + k[4:],
        lambda k: flip(k, 10),  # a typo in the random part breaks the checksum
        lambda k: flip(k, len(k) - 1),  # and so does one in the checksum
        lambda k: k[:10] + "-" + k[11:],
    ],
    ids=["short", "long", "prefix", "random-typo", "checksum-typo", "alphabet"],
)
def test_malformed_keys_are_refused(mutate: object) -> None:
    key = generate_key()
    assert not is_well_formed(mutate(key))  # type: ignore[operator]


def test_digest_and_id() -> None:
    key = generate_key()
    assert len(key_digest(key)) == 64 and key_digest(key) != key
    assert key_id(key) == key[4:12]


def test_redact_replaces_keys_by_their_id() -> None:
    key = generate_key()
    line = f'127.0.0.1 - "GET /api/v1/games?api_key={key}&page=2 HTTP/1.1" 200'
    redacted = redact(line)
    assert key not in redacted
    assert f"api_key=bsk_{key_id(key)}…&page=2" in redacted


@pytest.mark.parametrize(
    "encode",
    [
        lambda k: k,
        lambda k: k.replace("_", "%5F"),
        lambda k: k.replace("_", "%5f"),
        lambda k: "".join(f"%{b:02X}" for b in k.encode()),
        lambda k: k.replace("_", "%255F"),
        lambda k: k.upper(),
        lambda k: k + "trailing",
    ],
    ids=["plain", "escaped-underscore", "lowercase-escape", "fully-escaped", "double-escaped",
         "upper-case", "glued-to-text"],
)  # fmt: skip
def test_redact_finds_keys_in_every_encoding(encode: Callable[[str], str]) -> None:
    key = generate_key()
    line = f'127.0.0.1:5 - "GET /api/v1/games?genre=rpg&api_key={encode(key)}&page=2 HTTP/1.1"'
    redacted = redact(line)
    assert key[4:12] in redacted or key[4:12].upper() in redacted
    assert key[12:] not in redacted and key[12:].upper() not in redacted
    assert redacted.startswith('127.0.0.1:5 - "GET /api/v1/games?genre=rpg&api_key=bsk_')
    assert redacted.endswith('…&page=2 HTTP/1.1"')


def test_redact_leaves_text_without_keys_alone() -> None:
    line = "GET /api/v1/search?q=bsk%5Fnot%20a%20key&page=2 HTTP/1.1 %ZZ %"
    assert redact(line) == line
