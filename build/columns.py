"""The Bulk export's tables as columns: each column's Arrow type, unit and description, derived
from the detail record's JSON Schema (:data:`bangscore.build.openapi.DETAIL_PROPERTIES`, the
schema the OpenAPI document and the fuzzer check the records against).

This is the one place the export's schema is decided: the Parquet writer
(:mod:`bangscore.build.parquet`) types its columns from it and the manifest
(:class:`bangscore.contract.export.ExportManifest`) describes them from it, so the two cannot
disagree. Each column's description is its field's in the wire models
(:mod:`bangscore.contract.records`); a new wire field is a new column without a change here.

Types: integer -> int64; number -> float64, or decimal(10,2) for money (a name ending ``_usd``:
exact cents, unit ``USD``); string -> string, date-format -> date32, date-time -> timestamp
(milliseconds, UTC); arrays -> lists; objects with fixed members -> structs; an object keyed by
any name (``provenance``) -> a map. A column is nullable exactly when its schema allows null;
members of structs and lists are always nullable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from bangscore.build.openapi import DETAIL_PROPERTIES

MONEY = pa.decimal128(10, 2)  # up to 99,999,999.99 dollars, exact cents
FRACTION = "fraction (0-1)"


@dataclass(frozen=True, slots=True)
class Column:
    """One column of an exported table: name, Arrow type, nullable, unit (None: none) and
    description."""

    name: str
    type: pa.DataType
    nullable: bool
    unit: str | None
    description: str

    def field(self) -> pa.Field:
        """Return the column as an Arrow field, its unit and description in its metadata (a
        Parquet reader shows them: ``pyarrow.parquet.read_schema(...).field(name).metadata``)."""
        meta = {"description": self.description, **({"unit": self.unit} if self.unit else {})}
        return pa.field(self.name, self.type, nullable=self.nullable, metadata=meta)

    def to_json(self) -> dict[str, Any]:
        """Return the column as the manifest lists it: name, type (Arrow's name of it),
        nullable, unit, description."""
        return {
            "name": self.name,
            "type": str(self.type),
            "nullable": self.nullable,
            "unit": self.unit,
            "description": self.description,
        }


def _types(schema: Mapping[str, Any]) -> list[str]:
    kind = schema.get("type", "object")
    return [kind] if isinstance(kind, str) else list(kind)


def nullable(schema: Mapping[str, Any]) -> bool:
    """Given a JSON Schema, return True if it allows null."""
    return "null" in _types(schema)


def unit(name: str, schema: Mapping[str, Any]) -> str | None:
    """Given a field's name and JSON Schema, return its unit: ``USD`` for money (``*_usd``),
    ``hours``, ``percent``, ``fraction (0-1)`` for a number bounded by 0 and 1, else None."""
    if name.endswith("_usd"):
        return "USD"
    if name.endswith("_hours"):
        return "hours"
    if name.endswith("_percent"):
        return "percent"
    if "number" in _types(schema) and schema.get("minimum") == 0 and schema.get("maximum") == 1:
        return FRACTION
    return None


def arrow_type(name: str, schema: Mapping[str, Any], *, loose: bool = False) -> pa.DataType:
    """Given a field's name and JSON Schema, return its Arrow type (module docstring).

    ``loose`` gives the type the JSON value loads into before a cast: dates and times as
    strings, money as float64 (pyarrow casts string to date and float to decimal exactly; a
    value that does not fit raises ``pyarrow.ArrowInvalid``). Raises ValueError for a schema
    type it cannot map.
    """
    kinds = [t for t in _types(schema) if t != "null"]
    kind = kinds[0] if len(kinds) == 1 else None
    fmt = schema.get("format")
    if kind == "integer":
        return pa.int64()
    if kind == "number":
        return pa.float64() if loose or not name.endswith("_usd") else MONEY
    if kind == "boolean":
        return pa.bool_()
    if kind == "string":
        if loose or fmt not in ("date", "date-time"):
            return pa.string()
        # Milliseconds: Parquet has no timestamp in seconds (a reader would get ms anyway).
        return pa.date32() if fmt == "date" else pa.timestamp("ms", tz="UTC")
    if kind == "array":
        # "element": the item's name in Parquet's list layout, so the type a reader of the
        # file shows is the type the manifest names.
        return pa.list_(pa.field("element", arrow_type(name, schema.get("items", {}), loose=loose)))
    if kind == "object":
        members = schema.get("properties")
        if members:
            # Members are nullable whatever their schema: a null struct's members are null
            # (Arrow's writer refuses a null in a member that is not).
            return pa.struct(
                [pa.field(n, arrow_type(n, s, loose=loose)) for n, s in members.items()]
            )
        values = schema.get("additionalProperties")
        if isinstance(values, Mapping):
            return pa.map_(pa.string(), arrow_type(name, values, loose=loose))
    raise ValueError(f"{name}: no Arrow type for JSON Schema type {schema.get('type')!r}")


def _field(name: str, schema: Mapping[str, Any], loose: bool) -> pa.Field:
    return pa.field(name, arrow_type(name, schema, loose=loose), nullable=nullable(schema))


def describe(name: str, schema: Mapping[str, Any]) -> str:
    """Given a detail field's name and JSON Schema, return its description (the wire model's,
    :mod:`bangscore.contract.records`). Raises KeyError for a field the model leaves
    undescribed."""
    own = schema.get("description")
    if not own:
        raise KeyError(f"the detail record's {name!r} has no description")
    return str(own)


def detail_columns(properties: Mapping[str, Any] = DETAIL_PROPERTIES) -> tuple[Column, ...]:
    """Given the detail record's JSON Schema properties, return the games table's columns, one
    per detail field in schema order."""
    return tuple(
        Column(name, arrow_type(name, s), nullable(s), unit(name, s), describe(name, s))
        for name, s in properties.items()
    )


def loose_schema(properties: Mapping[str, Any] = DETAIL_PROPERTIES) -> pa.Schema:
    """Given the detail record's JSON Schema properties, return the Arrow schema its JSON
    values load into before the cast to :func:`detail_columns`' types."""
    return pa.schema([_field(name, s, True) for name, s in properties.items()])


def _long(name: str, kind: pa.DataType, unit_: str | None, text: str, null: bool = False) -> Column:
    return Column(name, kind, null, unit_, text)


APPID = _long("appid", pa.int64(), None, "storefront application id: games.appid")
DATE = pa.date32()

PRICE_HISTORY: tuple[Column, ...] = (
    APPID,
    _long("date", DATE, None, "the day the price was observed"),
    _long("price_usd", MONEY, "USD", "the price paid that day"),
    _long("list_price_usd", MONEY, "USD", "the undiscounted price that day"),
    _long("discount_percent", pa.int64(), "percent", "the discount that day; 0 when none"),
    _long("source", pa.string(), None, "the dump or live adapter the observation came from"),
    _long(
        "estimated",
        pa.bool_(),
        None,
        "true for a price estimated from a non-USD source (null: the point does not say)",
        null=True,
    ),
)
SCORE_HISTORY: tuple[Column, ...] = (
    APPID,
    _long("date", DATE, None, "the snapshot's prices_as_of day the point describes"),
    _long("bang_score", pa.int64(), None, "the score (0-100) from that day"),
    _long("tier", pa.string(), None, "the score's tier: banger, worth_it, fair or skip"),
    _long("price_usd", MONEY, "USD", "the price the score was computed at"),
    _long(
        "score_version",
        pa.string(),
        None,
        "the scoring model of the point: the export's own for each game's newest point, null "
        "for older points (the history does not record it; scores of two versions are not "
        "comparable)",
        null=True,
    ),
)
TAGS: tuple[Column, ...] = (
    APPID,
    _long("rank", pa.int64(), None, "the tag's place, 1 = most voted"),
    _long("tag", pa.string(), None, "a storefront user tag"),
)

FORECASTS: tuple[Column, ...] = (
    APPID,
    _long("sale", pa.string(), None, "the next seasonal sale ending on or after the snapshot day"),
    _long("starts", DATE, None, "its first day (UTC)"),
    _long("ends", DATE, None, "its last day (UTC)"),
    _long("expected", pa.bool_(), None, "true: dates projected from past years; false: published"),
    _long("expected_price_usd", MONEY, "USD", "the price expected in it"),
    _long("discounted_likelihood", pa.float64(), "fraction", "how likely it is discounted (0-1)"),
    _long("confidence", pa.string(), None, "high, medium or low: its stratum's measured accuracy"),
    _long("basis", pa.string(), None, "why, in words (docs/API.md#next-sale)"),
)


def changes_columns() -> tuple[Column, ...]:
    """Return the columns of changes.parquet: appid, change, and the record (the games
    table's columns as one struct, null for a removal)."""
    record = pa.struct([c.field().with_nullable(True) for c in detail_columns()])
    return (
        APPID,
        _long("change", pa.string(), None, "added, changed or removed since the previous export"),
        _long(
            "record",
            record,
            None,
            "the game's detail record (the columns of games.parquet); null for a removal",
            null=True,
        ),
    )


def schema_of(columns: tuple[Column, ...]) -> pa.Schema:
    """Given columns, return their Arrow schema (units and descriptions in field metadata)."""
    return pa.schema([c.field() for c in columns])


__all__ = [
    "FORECASTS",
    "PRICE_HISTORY",
    "SCORE_HISTORY",
    "TAGS",
    "Column",
    "changes_columns",
    "detail_columns",
    "loose_schema",
    "schema_of",
]
