"""The compact index's binary layout: a round trip keeps every value and item byte, and bytes
that are not a well-formed index fail at load with ValueError, never later on a request."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import numpy as np
import orjson
import pytest

from bangscore.contract.compact import (
    ALIGN,
    FACET_COLUMNS,
    MAGIC,
    POSTINGS,
    decode_index,
    encode_index,
    facet_postings,
)


def values(count: int = 3) -> dict[str, Any]:
    """Return an index's values for ``count`` games: two genres, tags, a series, one adult."""
    return {
        "prices_as_of": "2026-07-24T00:00:00Z",
        "appid": [10 + n for n in range(count)],
        "genre": ["rpg" if n % 2 else "action" for n in range(count)],
        "year": [2020 + n if n else None for n in range(count)],
        "discount": [50 if n == 1 else 0 for n in range(count)],
        "tags": [["indie", "rpg"][: n % 3] for n in range(count)],
        "adult": [n == 2 for n in range(count)],
        "review_count": [1000 * n for n in range(count)],
        "language": [["en", "de"][: n % 3] for n in range(count)],
        "audio": [["de"] if n == 1 else [] for n in range(count)],
        "items": [
            {
                "appid": 10 + n,
                "name": f"Game é {n}",
                "bang_score": 90 - n,
                "price_usd": 19.99 - n,
                "series": {"name": "Saga"} if n < 2 else None,
                "steam_deck": ("verified", None, "unsupported")[n % 3],
                "controller_support": ("full", "partial", None)[n % 3],
            }
            for n in range(count)
        ],
    }


def test_a_round_trip_keeps_every_column_and_item_byte() -> None:
    data = values()
    raw = encode_index(data)
    index = decode_index(raw)
    c = index.columns
    assert raw.startswith(MAGIC)
    assert index.prices_as_of == "2026-07-24T00:00:00Z"
    assert c["appid"].tolist() == [10, 11, 12]
    assert [index.genre_names[g] for g in c["genre"]] == ["action", "rpg", "action"]
    assert c["year"].tolist() == [0, 2021, 2022]  # 0: year unknown
    assert c["on_sale"].tolist() == [False, True, False]
    assert c["adult"].tolist() == [False, False, True]
    assert c["bang_score"].tolist() == [90, 89, 88]
    assert c["cents"].tolist() == [1999, 1899, 1799]
    assert c["series"].tolist() == [0, 0, -1]
    starts, positions = c["tag_starts"], c["tag_positions"]
    postings = {
        t: positions[starts[n] : starts[n + 1]].tolist() for n, t in enumerate(index.tag_names)
    }
    assert postings == {"indie": [1, 2], "rpg": [2]}
    assert c["steam_deck"].tolist() == [3, 0, 1]  # verified, silent, unsupported
    assert c["controller"].tolist() == [2, 1, 0]  # full, partial, silent
    assert c["reviews"].tolist() == [0, 1000, 2000]
    assert {k: {t: p.tolist() for t, p in v.items()} for k, v in facet_postings(index).items()} == {
        "language": {"de": [2], "en": [1, 2]},
        "audio": {"de": [1]},
    }
    blob = raw[index.items_at : index.items_at + int(c["item_starts"][-1])]
    assert blob == b"".join(orjson.dumps(i) for i in data["items"])


def test_columns_are_views_into_the_bytes_not_copies() -> None:
    raw = encode_index(values(200))
    index = decode_index(raw)
    assert all(not column.flags.owndata for column in index.columns.values())
    assert all(not column.flags.writeable for column in index.columns.values())


def test_serialized_items_given_are_stored_as_given() -> None:
    data = values()
    given = [orjson.dumps(i, option=orjson.OPT_SORT_KEYS) for i in data["items"]]
    index = decode_index(encode_index(data, given))
    assert index.raw[index.items_at :].startswith(b"".join(given))


def test_every_column_starts_aligned() -> None:
    index = decode_index(encode_index(values(5)))
    (length,) = struct.unpack_from("<Q", index.raw, len(MAGIC))
    base = len(MAGIC) + 8 + length
    assert base % ALIGN == 0
    assert all(
        (column.ctypes.data - np.frombuffer(index.raw, "|u1").ctypes.data) % ALIGN == 0
        for column in index.columns.values()
    )


def test_an_empty_catalogue_round_trips() -> None:
    index = decode_index(encode_index(values(0)))
    assert index.columns["appid"].size == 0 and index.tag_names == []


def _before_facets(header: dict[str, Any]) -> None:
    # An index as builds before the platform facets wrote it: no postings, no facet columns.
    del header["postings"]
    for name in [
        *FACET_COLUMNS,
        *(f"{p}_{part}" for p in POSTINGS for part in ("starts", "positions")),
    ]:
        del header["columns"][name]


def test_an_index_written_before_the_facets_reads_as_every_game_silent() -> None:
    index = decode_index(_with_header(encode_index(values()), _before_facets))
    assert index.columns["steam_deck"].tolist() == [0, 0, 0]
    assert index.columns["reviews"].tolist() == [0, 0, 0]
    assert facet_postings(index) == {"language": {}, "audio": {}}
    assert index.columns["bang_score"].tolist() == [90, 89, 88]


def test_columns_of_different_lengths_are_refused() -> None:
    data = values()
    data["genre"] = data["genre"][:2]
    with pytest.raises(ValueError, match="differ in length"):
        encode_index(data)


def _header(raw: bytes) -> dict[str, Any]:
    (length,) = struct.unpack_from("<Q", raw, len(MAGIC))
    return dict(orjson.loads(raw[len(MAGIC) + 8 : len(MAGIC) + 8 + length]))


def _with_header(raw: bytes, change: Callable[[dict[str, Any]], None]) -> bytes:
    """Given an index's bytes, return them with the header changed (columns' offsets are from
    the header's end, so they still point at the same bytes)."""
    (length,) = struct.unpack_from("<Q", raw, len(MAGIC))
    header = _header(raw)
    change(header)
    text = orjson.dumps(header)
    text += b" " * (-len(text) % ALIGN)
    return MAGIC + struct.pack("<Q", len(text)) + text + raw[len(MAGIC) + 8 + length :]


def _column(name: str, slot: int, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(header: dict[str, Any]) -> None:
        header["columns"][name][slot] = value

    return change


def _drop(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda header: header["columns"].pop(name)


def _write(name: str, at: int, value: int) -> Callable[[bytes], bytes]:
    """Return a change writing ``value`` into column ``name``'s element ``at``."""

    def change(raw: bytes) -> bytes:
        index = decode_index(raw)
        column = index.columns[name]
        where = column.ctypes.data - np.frombuffer(raw, "|u1").ctypes.data + at * column.itemsize
        packed = np.array([value], dtype=column.dtype).tobytes()
        return raw[:where] + packed + raw[where + len(packed) :]

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param(lambda raw: b"{}" + raw, "bad magic", id="json-not-layout"),
        pytest.param(lambda raw: raw[:10], "bad magic|corrupt", id="truncated-header"),
        pytest.param(lambda raw: raw[: len(raw) - 40], "outside", id="truncated-columns"),
        pytest.param(
            lambda raw: _with_header(raw, _column("appid", 0, "|O")), "dtype", id="object-dtype"
        ),
        pytest.param(
            lambda raw: _with_header(raw, _column("year", 1, 10**9)), "outside", id="far-offset"
        ),
        pytest.param(
            lambda raw: _with_header(raw, _column("adult", 2, 2)), "length", id="short-column"
        ),
        pytest.param(lambda raw: _with_header(raw, _drop("cents")), "cents", id="missing-column"),
        pytest.param(_write("genre", 1, 7), "genre codes", id="genre-code-out-of-range"),
        pytest.param(_write("tag_positions", 0, 99), "tag positions", id="tag-position-too-big"),
        pytest.param(
            _write("audio_positions", 0, 99), "audio positions", id="audio-position-too-big"
        ),
        pytest.param(
            lambda raw: _with_header(raw, _drop("steam_deck")), "steam_deck", id="missing-facet"
        ),
        pytest.param(_write("item_starts", 1, 10**6), "ascending|match", id="item-start-too-big"),
    ],
)
def test_malformed_bytes_fail_at_load(change: Callable[[bytes], bytes], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_index(change(encode_index(values())))
