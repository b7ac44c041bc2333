"""The compact index's binary layout: what the builder writes and a serving worker reads.

A worker composes any filter combination, lookup and search page from the compact index, so
it holds it for its whole life. Parsed from JSON it cost 421 MB of Python objects (a dict per
game, a str per tag) for 35 MB of text; in this layout it is one ``bytes`` object: numpy
columns are views into it (``numpy.frombuffer``, no copy) and each game's list item is a slice
of one blob, already serialized. Loading is a header parse and a few views: milliseconds.

Layout (little-endian)::

    b"BANGIDX1"                  8 bytes, the magic (the version is its last byte)
    header length                uint64
    header                       UTF-8 JSON, padded with spaces to a multiple of 8 bytes:
                                 {"prices_as_of", "count", "genre_names", "tag_names",
                                  "postings": {name: [value names]},
                                  "columns": {name: [dtype, offset, length]}}
    columns                      each at an 8-byte-aligned offset from the end of the header

Columns, in list order unless said: ``appid`` (i4), ``genre`` (i2, a code into
``genre_names``), ``year`` (i4, 0: unknown), ``on_sale``, ``adult`` (b1), ``bang_score`` (i4),
``cents`` (i8, the list price), ``series`` (i4, a code per series name, -1: none),
``tag_starts`` (i8, one more than ``tag_names``) with ``tag_positions`` (i8, each tag's games'
positions, ascending), the platform facets (``steam_deck``: u1, 0 null, 1 unsupported, 2
playable, 3 verified; ``controller``: u1, 0 null, 1 partial, 2 full; ``reviews``: i8, the review
count), for each of ``postings`` (``language``: the language tags of each game's interface or
subtitles; ``audio``: of its full audio) ``<name>_starts`` with ``<name>_positions`` as the
tags' are, and ``item_starts`` (i8, count + 1) with ``items`` (u1, the serialized list items end
to end). An index written before the facets (no such columns) reads as every game silent.

We write this format ourselves rather than Arrow IPC or ``.npz``: it is the serving hot path,
pyarrow is kept out of the server (the ``server-no-arrow`` import contract), and ``.npz``
copies every array on load.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from bangscore.contract.facets import CONTROLLER_CODES, DECK_CODES

MAGIC = b"BANGIDX1"
ALIGN = 8
# The only dtypes a header may name: a corrupt or hostile header cannot ask numpy for objects.
DTYPES = frozenset({"<i2", "<i4", "<i8", "|b1", "|u1"})
INDEX_TYPE = "application/octet-stream"


POSTINGS = ("language", "audio")
FACET_COLUMNS = {"steam_deck": "|u1", "controller": "|u1", "reviews": "<i8"}


def cents(price_usd: float) -> int:
    """Given a USD price (2 decimals), return it in whole cents."""
    return round(price_usd * 100)


@dataclass(frozen=True)
class DecodedIndex:
    """A decoded compact index: its header values and its columns (views into ``raw``)."""

    raw: bytes
    prices_as_of: str | None
    genre_names: list[str]
    tag_names: list[str]
    columns: dict[str, npt.NDArray[Any]]
    items_at: int  # where the items blob starts in ``raw``
    posting_names: dict[str, list[str]]  # each of POSTINGS: its value names, by code


def tag_postings(index: DecodedIndex) -> dict[str, npt.NDArray[Any]]:
    """Given a decoded index, return each tag's games' positions (ascending), views into it."""
    starts, positions = index.columns["tag_starts"], index.columns["tag_positions"]
    return {t: positions[starts[n] : starts[n + 1]] for n, t in enumerate(index.tag_names)}


def facet_postings(index: DecodedIndex) -> dict[str, dict[str, npt.NDArray[Any]]]:
    """Given a decoded index, return for each of :data:`POSTINGS` each value's games'
    positions (``{"language": {"de": positions}}``, ascending), views into it."""
    out: dict[str, dict[str, npt.NDArray[Any]]] = {}
    for name in POSTINGS:
        starts, positions = index.columns[f"{name}_starts"], index.columns[f"{name}_positions"]
        names = index.posting_names[name]
        out[name] = {v: positions[starts[n] : starts[n + 1]] for n, v in enumerate(names)}
    return out


@dataclass(frozen=True)
class IndexColumns:
    """A decoded index as the list filters' predicates read it
    (:class:`bangscore.contract.list_filter.FilterColumns`): every column by its layout name,
    the genre codes' names and each tag's postings. The builder selects its precomputed lists
    over the very bytes it publishes; the shim's ``CompactIndex`` offers the same three."""

    columns: dict[str, npt.NDArray[Any]]
    genre_names: list[str]
    tag_postings: dict[str, npt.NDArray[Any]]
    facet_postings: dict[str, dict[str, npt.NDArray[Any]]]

    @classmethod
    def of(cls, index: DecodedIndex) -> IndexColumns:
        """Given a decoded index, return its filter columns (views into it, nothing copied)."""
        return cls(index.columns, index.genre_names, tag_postings(index), facet_postings(index))


def _codes(values: Sequence[str]) -> tuple[list[str], list[int]]:
    """Given strings, return (the distinct ones sorted, each value's code into them)."""
    names = sorted(set(values))
    code = {n: i for i, n in enumerate(names)}
    return names, [code[v] for v in values]


def _series_codes(items: Sequence[dict[str, Any]]) -> list[int]:
    """Given list items, return each one's series as a code (-1: none), in order of first
    appearance."""
    names: dict[str, int] = {}
    return [
        names.setdefault(str(i["series"]["name"]), len(names)) if i.get("series") else -1
        for i in items
    ]


def _tag_columns(tags: Sequence[Sequence[str]]) -> tuple[list[str], list[int], list[int]]:
    """Given each game's tags, return (tag names sorted, starts, positions): tag ``t``'s games
    are ``positions[starts[t]:starts[t + 1]]``, ascending."""
    postings: dict[str, list[int]] = {}
    for pos, names in enumerate(tags):
        for tag in names:
            postings.setdefault(tag, []).append(pos)
    tag_names = sorted(postings)
    starts, positions = [0], []
    for tag in tag_names:
        positions.extend(postings[tag])
        starts.append(len(positions))
    return tag_names, starts, positions


def _facet_columns(data: dict[str, Any], count: int) -> dict[str, npt.NDArray[Any]]:
    """Given the index's values, return the facets' per-game columns (the items' ``steam_deck``
    and ``controller_support``, ``review_count``), 0 where a value is missing."""
    items: list[dict[str, Any]] = data["items"]
    return {
        "steam_deck": np.array(
            [DECK_CODES.get(i.get("steam_deck") or "", 0) for i in items], dtype="|u1"
        ),
        "controller": np.array(
            [CONTROLLER_CODES.get(i.get("controller_support") or "", 0) for i in items],
            dtype="|u1",
        ),
        "reviews": np.array(data.get("review_count") or [0] * count, dtype="<i8"),
    }


def encode_index(data: dict[str, Any], item_bytes: Sequence[bytes] | None = None) -> bytes:
    """Given the index's values as parallel lists in list order (``{"prices_as_of",
    "appid", "genre", "year", "discount", "tags", "adult", "items"}``: the items as dicts;
    optional: ``adult``, ``review_count``, and ``language`` and ``audio``, each game's
    language tags) and the items already serialized (None: serialize them here), return
    the layout's bytes. ValueError if the columns differ in length."""
    items: list[dict[str, Any]] = data["items"]
    count = len(data["appid"])
    serialized = list(item_bytes) if item_bytes is not None else [orjson.dumps(i) for i in items]
    if not count == len(items) == len(serialized) == len(data["genre"]) == len(data["tags"]):
        raise ValueError("compact index columns differ in length")
    genre_names, genres = _codes(data["genre"])
    tag_names, tag_starts, tag_positions = _tag_columns(data["tags"])
    postings: dict[str, list[str]] = {}
    posting_columns: dict[str, npt.NDArray[Any]] = {}
    for name in POSTINGS:
        values = data.get(name) or [()] * count
        if len(values) != count:
            raise ValueError("compact index columns differ in length")
        names, starts, positions = _tag_columns(values)
        postings[name] = names
        posting_columns[f"{name}_starts"] = np.array(starts, dtype="<i8")
        posting_columns[f"{name}_positions"] = np.array(positions, dtype="<i8")
    item_starts = np.zeros(count + 1, dtype="<i8")
    np.cumsum([len(b) for b in serialized], out=item_starts[1:])
    columns: dict[str, npt.NDArray[Any]] = {
        "appid": np.array(data["appid"], dtype="<i4"),
        "genre": np.array(genres, dtype="<i2"),
        "year": np.array([y or 0 for y in data["year"]], dtype="<i4"),
        "on_sale": np.array([d > 0 for d in data["discount"]], dtype="|b1"),
        "adult": np.array(data.get("adult") or [False] * count, dtype="|b1"),
        "bang_score": np.array([int(i["bang_score"]) for i in items], dtype="<i4"),
        "cents": np.array([cents(float(i["price_usd"])) for i in items], dtype="<i8"),
        "series": np.array(_series_codes(items), dtype="<i4"),
        "tag_starts": np.array(tag_starts, dtype="<i8"),
        "tag_positions": np.array(tag_positions, dtype="<i8"),
        **_facet_columns(data, count),
        **posting_columns,
        "item_starts": item_starts,
    }
    blob = b"".join(serialized)
    table: dict[str, list[Any]] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, column in [*columns.items(), ("items", np.frombuffer(blob, dtype="|u1"))]:
        table[name] = [column.dtype.str, offset, int(column.size)]
        chunk = column.tobytes()
        chunks += [chunk, b"\0" * (-len(chunk) % ALIGN)]
        offset += len(chunk) + (-len(chunk) % ALIGN)
    header = orjson.dumps(
        {
            "prices_as_of": data.get("prices_as_of"),
            "count": count,
            "genre_names": genre_names,
            "tag_names": tag_names,
            "postings": postings,
            "columns": table,
        }
    )
    header += b" " * (-len(header) % ALIGN)
    return b"".join([MAGIC, struct.pack("<Q", len(header)), header, *chunks])


PER_GAME = (
    "appid", "genre", "year", "on_sale", "adult", "bang_score", "cents", "series", *FACET_COLUMNS
)  # fmt: skip


def _silent_facets(
    columns: dict[str, npt.NDArray[Any]], postings: dict[str, list[str]], count: int
) -> None:
    """Given the columns of an index written before the facets, add them: every game silent
    (zeros, no postings)."""
    for name, dtype in FACET_COLUMNS.items():
        columns[name] = np.zeros(count, dtype=dtype)
    for name in POSTINGS:
        columns[f"{name}_starts"] = np.zeros(1, dtype="<i8")
        columns[f"{name}_positions"] = np.zeros(0, dtype="<i8")
        postings[name] = []


def _check(
    columns: dict[str, npt.NDArray[Any]],
    count: int,
    genres: int,
    sizes: dict[str, int],
) -> None:
    """Raise ValueError unless the columns agree with each other: one value per game, codes
    and positions in range, starts ascending within their blob (a corrupt index fails at load,
    not as a 500 on the request that reads the bad row)."""
    if any(columns[name].size != count for name in PER_GAME):
        raise ValueError("compact index columns differ in length")
    code = columns["genre"]
    if count and (int(code.min()) < 0 or int(code.max()) >= genres):
        raise ValueError("compact index genre codes out of range")
    starred = [(f"{name}_starts", f"{name}_positions", size + 1) for name, size in sizes.items()]
    for starts_name, values_name, size in [*starred, ("item_starts", "items", count + 1)]:
        starts, values = columns[starts_name], columns[values_name]
        if starts.size != size or int(starts[0]) != 0 or int(starts[-1]) != values.size:
            raise ValueError("compact index starts do not match their values")
        if np.any(np.diff(starts) < 0):
            raise ValueError("compact index starts are not ascending")
    for name in sizes:
        positions = columns[f"{name}_positions"]
        if positions.size and (int(positions.min()) < 0 or int(positions.max()) >= count):
            raise ValueError(f"compact index {name} positions out of range")


def decode_index(raw: bytes) -> DecodedIndex:
    """Given the layout's bytes, return its header values and columns, each a read-only view
    into ``raw`` (nothing is copied). ValueError if the bytes are not this layout or a column
    lies outside them."""
    if raw[: len(MAGIC)] != MAGIC or len(raw) < len(MAGIC) + 8:
        raise ValueError("not a compact index (bad magic)")
    (length,) = struct.unpack_from("<Q", raw, len(MAGIC))
    base = len(MAGIC) + 8 + length
    try:
        header = orjson.loads(raw[len(MAGIC) + 8 : base])
        count = int(header["count"])
        columns: dict[str, npt.NDArray[Any]] = {}
        for name, (dtype, offset, size) in header["columns"].items():
            if dtype not in DTYPES:
                raise ValueError(f"column {name!r} has dtype {dtype!r}")
            width = np.dtype(dtype).itemsize
            if offset < 0 or size < 0 or base + offset + size * width > len(raw):
                raise ValueError(f"column {name!r} lies outside the index")
            columns[name] = np.frombuffer(raw, dtype=dtype, count=size, offset=base + offset)
        items_at = base + int(header["columns"]["items"][1])
        prices_as_of = header["prices_as_of"]
        genre_names = [str(g) for g in header["genre_names"]]
        tag_names = [str(t) for t in header["tag_names"]]
        postings = {k: [str(v) for v in header.get("postings", {}).get(k, [])] for k in POSTINGS}
        if "postings" not in header:  # written before the facets
            _silent_facets(columns, postings, count)
        sizes = {"tag": len(tag_names), **{k: len(v) for k, v in postings.items()}}
        _check(columns, count, len(genre_names), sizes)
    except (KeyError, TypeError, AttributeError, orjson.JSONDecodeError) as exc:
        raise ValueError(f"corrupt compact index: {exc}") from exc
    return DecodedIndex(raw, prices_as_of, genre_names, tag_names, columns, items_at, postings)
