"""The export's columns (build.columns): Arrow types from the detail record's JSON Schema, units,
and a description for every column, equal to docs/API.md's where the schema has none."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from bangscore.build.columns import (
    MONEY,
    PRICE_HISTORY,
    SCORE_HISTORY,
    TAGS,
    arrow_type,
    changes_columns,
    describe,
    detail_columns,
    unit,
)
from bangscore.build.openapi import DETAIL_PROPERTIES


@pytest.mark.parametrize(
    ("name", "schema", "expected"),
    [
        ("appid", {"type": "integer"}, pa.int64()),
        ("release_year", {"type": ["integer", "null"]}, pa.int64()),
        ("review_score", {"type": ["number", "null"]}, pa.float64()),
        ("price_usd", {"type": "number"}, MONEY),
        ("adult", {"type": "boolean"}, pa.bool_()),
        ("name", {"type": "string"}, pa.string()),
        ("recent_low_at", {"type": ["string", "null"], "format": "date"}, pa.date32()),
        (
            "prices_as_of",
            {"type": ["string", "null"], "format": "date-time"},
            pa.timestamp("ms", tz="UTC"),
        ),
        (
            "tags",
            {"type": "array", "items": {"type": "string"}},
            pa.list_(pa.field("element", pa.string())),
        ),
        (
            "window",
            {"type": ["object", "null"], "properties": {"from": {"type": "string"}}},
            pa.struct([pa.field("from", pa.string())]),
        ),
        (
            "provenance",
            {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {"date": {"type": "string", "format": "date"}},
                },
            },
            pa.map_(pa.string(), pa.struct([pa.field("date", pa.date32())])),
        ),
    ],
    ids=[
        "int",
        "int-null",
        "number",
        "money",
        "bool",
        "string",
        "date",
        "time",
        "list",
        "struct",
        "map",
    ],
)
def test_arrow_types(name: str, schema: dict[str, Any], expected: pa.DataType) -> None:
    assert arrow_type(name, schema) == expected


def test_loose_types_load_json_values() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "date": {"type": "string", "format": "date"},
                "price_usd": {"type": "number"},
            },
        },
    }
    loose = arrow_type("price_history", schema, loose=True)
    item = pa.struct([("date", pa.string()), ("price_usd", pa.float64())])
    assert loose == pa.list_(pa.field("element", item))


@pytest.mark.parametrize(
    "schema",
    [{"type": ["string", "integer"]}, {"type": "object"}, {"type": "null"}],
    ids=["two-types", "free-object", "only-null"],
)
def test_a_schema_without_an_arrow_type_is_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="no Arrow type"):
        arrow_type("x", schema)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("price_usd", "USD"),
        ("historical_low_usd", "USD"),
        ("length_hours", "hours"),
        ("discount_percent", "percent"),
        ("review_score", "fraction (0-1)"),
        ("genre_percentile", "fraction (0-1)"),
        ("bang_score", None),
        ("release_year", None),
    ],
    ids=lambda v: str(v),
)
def test_units(name: str, expected: str | None) -> None:
    assert unit(name, DETAIL_PROPERTIES[name]) == expected


def test_every_games_column_is_a_detail_field_described_with_its_nullability() -> None:
    columns = detail_columns()
    assert [c.name for c in columns] == list(DETAIL_PROPERTIES)
    for column in columns:
        assert column.description, column.name
        schema_type = DETAIL_PROPERTIES[column.name].get("type")
        assert column.nullable == (
            "null" in schema_type if isinstance(schema_type, list) else False
        )
    field = next(c for c in columns if c.name == "price_usd").field()
    described = DETAIL_PROPERTIES["price_usd"]["description"]
    assert field.metadata == {b"description": described.encode(), b"unit": b"USD"}


def test_every_column_is_described_by_its_wire_model() -> None:
    assert all(column.description for column in detail_columns())
    with pytest.raises(KeyError, match="'made_up' has no description"):
        describe("made_up", {"type": "integer"})


@pytest.mark.parametrize(
    ("columns", "names"),
    [
        (
            PRICE_HISTORY,
            [
                "appid",
                "date",
                "price_usd",
                "list_price_usd",
                "discount_percent",
                "source",
                "estimated",
            ],
        ),
        (SCORE_HISTORY, ["appid", "date", "bang_score", "tier", "price_usd", "score_version"]),
        (TAGS, ["appid", "rank", "tag"]),
        (changes_columns(), ["appid", "change", "record"]),
    ],
    ids=["price_history", "score_history", "tags", "changes"],
)
def test_long_tables(columns: tuple[Any, ...], names: list[str]) -> None:
    assert [c.name for c in columns] == names
    assert all(c.description for c in columns)
    money = {c.name for c in columns if c.type == MONEY}
    assert money == {n for n in names if n.endswith("_usd")}
    assert all(c.unit == "USD" for c in columns if c.name in money)
