"""The Bulk export's Parquet tables, written with pyarrow (the builder's alone: the server never
imports it, an import contract in pyproject.toml).

- ``games.parquet``: one row per game, a column per detail field, typed (:mod:`build.columns`).
- ``price_history.parquet``, ``score_history.parquet``, ``tags.parquet``: the detail records'
  lists as long tables, one row per point (tag), sorted by appid then date (rank), so a reader
  filtering on appid skips row groups by their statistics.
- ``forecasts.parquet``: a row per game with a sale forecast (``next_sale``), by appid.
- ``changes.parquet``: the rows of changes.jsonl.gz: appid, change and the record as a struct.

Files are zstd-compressed with statistics and a page index, in row groups of
:data:`GAMES_ROW_GROUP` games or :data:`LONG_ROW_GROUP` rows, up to about 1 MB each: a
reader ranging over a file (DuckDB or polars on an object store) fetches the footer, then only
the row groups and columns a query needs. Writing is deterministic: equal records give equal
bytes (for one pyarrow version, which the file's footer names).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bangscore.build.columns import (
    FORECASTS,
    PRICE_HISTORY,
    SCORE_HISTORY,
    TAGS,
    Column,
    changes_columns,
    detail_columns,
    loose_schema,
    schema_of,
)
from bangscore.scoring.tiers import tier

GAMES_ROW_GROUP = 8192  # games per row group: about 1 MB compressed (5 groups for 39,504 games)
LONG_ROW_GROUP = 131_072  # points per row group of the long tables: 0.2-0.5 MB compressed
ZSTD_LEVEL = 9  # games.parquet 5.10 MB, 0.46 s CPU; level 3: 5.37 MB, 0.34 s (26 Nov 2026)

Record = Mapping[str, Any]


def _loose(columns: Sequence[Column]) -> pa.Schema:
    """Return the schema the JSON values load into: money as float64, dates as strings."""
    loose = {pa.date32(): pa.string(), pa.decimal128(10, 2): pa.float64()}
    return pa.schema(
        [pa.field(c.name, loose.get(c.type, c.type), nullable=c.nullable) for c in columns]
    )


def cast_array(array: pa.Array, target: pa.DataType) -> pa.Array:
    """Given an array as loaded from JSON values and its column's type, return it cast.

    Arrow's own cast also parses the placeholder values under a null struct (empty strings,
    which are no date), so nested types are cast member by member: a struct's members with
    the struct's nulls merged in (``flatten``), a list's or map's values under their offsets.
    Raises pyarrow.ArrowInvalid for a value that does not fit (a bad date, a third decimal).
    """
    if pa.types.is_struct(target):
        members = [cast_array(m, f.type) for m, f in zip(array.flatten(), target, strict=True)]
        return pa.StructArray.from_arrays(members, fields=list(target), mask=array.is_null())
    if pa.types.is_map(target):
        items = cast_array(array.items, target.item_type)
        mask = array.is_null() if array.null_count else None
        return pa.MapArray.from_arrays(array.offsets, array.keys, items, type=target, mask=mask)
    if pa.types.is_list(target):
        values = cast_array(array.values, target.value_type)
        mask = array.is_null() if array.null_count else None
        return pa.ListArray.from_arrays(array.offsets, values, type=target, mask=mask)
    cast = array.cast(target)
    # Arrow rounds a float to the decimal's scale without a word: a price with a third
    # decimal would change. The wire rounds money to cents, so any difference is a bug.
    if pa.types.is_decimal(target):
        # (Compared within a millionth of a dollar: a decimal read back as a float need not be
        # the very float it came from.)
        off = pc.abs(pc.subtract(cast.cast(pa.float64()), array))
        if pc.any(pc.greater(off, 1e-6)).as_py():
            raise pa.ArrowInvalid(f"a value of {array.type} has more decimals than {target}")
    return cast


def typed(table: pa.Table, columns: Sequence[Column]) -> pa.Table:
    """Given a table as loaded from JSON values and its columns, return it cast to the columns'
    types, their units and descriptions in the schema (:func:`cast_array`)."""
    schema = schema_of(tuple(columns))
    arrays = [
        pa.chunked_array(
            [cast_array(chunk, field.type) for chunk in table.column(field.name).chunks],
            type=field.type,
        )
        for field in schema
    ]
    return _checked(pa.Table.from_arrays(arrays, schema=schema), columns)


def _checked(table: pa.Table, columns: Sequence[Column]) -> pa.Table:
    """Given a table cast to its columns' types, return it; raise ValueError if a column that
    is not nullable holds a null (a wire record breaking its schema)."""
    for column in columns:
        if not column.nullable and table.column(column.name).null_count:
            raise ValueError(f"{column.name}: null in a column that is never null")
    return table


def games_table(records: Sequence[Record]) -> pa.Table:
    """Given detail records in list order, return games.parquet's table: a row per record, a
    column per detail field in schema order. Raises ValueError or pyarrow.ArrowInvalid for a
    record its schema does not describe (a money value with more than 2 decimals, a bad date)."""
    columns = detail_columns()
    return typed(pa.Table.from_pylist(list(records), schema=loose_schema()), columns)


def _by_appid(records: Sequence[Record]) -> list[Record]:
    return sorted(records, key=lambda r: int(r["appid"]))


def _long_table(rows: dict[str, list[Any]], columns: Sequence[Column]) -> pa.Table:
    return typed(pa.table(rows, schema=_loose(columns)), columns)


def price_history_table(records: Sequence[Record]) -> pa.Table:
    """Given detail records, return price_history.parquet's table: a row per point of each
    record's ``price_history`` (``estimated`` null where the point has none)."""
    rows: dict[str, list[Any]] = {c.name: [] for c in PRICE_HISTORY}
    for record in _by_appid(records):
        for point in record["price_history"]:
            rows["appid"].append(record["appid"])
            rows["date"].append(point["date"])
            rows["price_usd"].append(point["price_usd"])
            rows["list_price_usd"].append(point["list_price_usd"])
            rows["discount_percent"].append(point["discount_percent"])
            rows["source"].append(point["source"])
            rows["estimated"].append(point.get("estimated"))
    return _long_table(rows, PRICE_HISTORY)


def score_history_table(records: Sequence[Record]) -> pa.Table:
    """Given detail records, return score_history.parquet's table: a row per point of each
    record's ``score_history``, its tier, and the record's ``score_version`` on its newest
    point only (older points may come from an older model: the history does not say)."""
    rows: dict[str, list[Any]] = {c.name: [] for c in SCORE_HISTORY}
    for record in _by_appid(records):
        points = record["score_history"]
        for n, point in enumerate(points):
            rows["appid"].append(record["appid"])
            rows["date"].append(point["date"])
            rows["bang_score"].append(point["bang_score"])
            rows["tier"].append(tier(point["bang_score"]))
            rows["price_usd"].append(point["price_usd"])
            newest = n == len(points) - 1
            rows["score_version"].append(record["score_version"] if newest else None)
    return _long_table(rows, SCORE_HISTORY)


def tags_table(records: Sequence[Record]) -> pa.Table:
    """Given detail records, return tags.parquet's table: a row per tag, ranked from 1 (the
    most voted) in the record's order."""
    rows: dict[str, list[Any]] = {c.name: [] for c in TAGS}
    for record in _by_appid(records):
        for rank, tag in enumerate(record["tags"], start=1):
            rows["appid"].append(record["appid"])
            rows["rank"].append(rank)
            rows["tag"].append(tag)
    return _long_table(rows, TAGS)


def forecasts_table(records: Sequence[Record]) -> pa.Table:
    """Given detail records, return forecasts.parquet's table: a row per record whose
    ``next_sale`` is not null (docs/API.md#next-sale), by appid."""
    rows: dict[str, list[Any]] = {c.name: [] for c in FORECASTS}
    for record in _by_appid(records):
        sale = record["next_sale"]
        if sale is None:
            continue
        rows["appid"].append(record["appid"])
        rows["sale"].append(sale["name"])
        for name in ("starts", "ends", "expected", "expected_price_usd"):
            rows[name].append(sale[name])
        rows["discounted_likelihood"].append(sale["discounted_likelihood"])
        rows["confidence"].append(sale["confidence"])
        rows["basis"].append(sale["basis"])
    return _long_table(rows, FORECASTS)


def changes_table(delta: Iterable[tuple[int, str]], games: pa.Table) -> pa.Table:
    """Given the changes as (appid, change) in changes.jsonl.gz's order and the new export's
    games table (:func:`games_table`), return changes.parquet's table: the record is the
    game's row of the games table as a struct (taken, not loaded again), null for a
    removal."""
    columns = changes_columns()
    row_of = {appid: n for n, appid in enumerate(games.column("appid").to_pylist())}
    pairs = list(delta)
    rows = pa.array(
        [None if change == "removed" else row_of[appid] for appid, change in pairs], pa.int64()
    )
    records = games.combine_chunks().to_struct_array().take(rows).cast(columns[2].type)
    table = pa.table(
        {
            "appid": pa.array([appid for appid, _ in pairs], pa.int64()),
            "change": pa.array([change for _, change in pairs], pa.string()),
            "record": records,
        },
        schema=schema_of(columns),
    )
    return _checked(table, columns)


def parquet_bytes(table: pa.Table, row_group_rows: int) -> bytes:
    """Given a table and the rows per row group, return it as Parquet file bytes: zstd,
    dictionary-encoded where it pays, column statistics and a page index."""
    sink = pa.BufferOutputStream()
    pq.write_table(
        table,
        sink,
        row_group_size=row_group_rows,
        compression="zstd",
        compression_level=ZSTD_LEVEL,
        write_statistics=True,
        write_page_index=True,
    )
    return bytes(sink.getvalue().to_pybytes())
