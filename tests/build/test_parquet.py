"""The export's Parquet tables (build.parquet): typed values that read back as the detail
records' JSON values, long tables, changes, refusals; and, over the real catalogue's export, the
files read as a customer reads them: DuckDB and polars count the manifest's rows, see its
schema, and join the price history to the games."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import re
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bangscore.build.export import export_records
from bangscore.build.parquet import (
    changes_table,
    games_table,
    parquet_bytes,
    price_history_table,
    score_history_table,
    tags_table,
)
from bangscore.build.score_history import extend, read_score_history
from bangscore.contract.export import FILES, ExportManifest
from bangscore.scoring.records import PriceObservation
from bangscore.scoring.tiers import tier
from tests.support import factories


def as_json(value: Any, field: str = "") -> Any:
    """Given a value read back from Parquet (of the detail field ``field``, if a member of a
    record), return it as the detail record's JSON has it."""
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: as_json(v, k) for k, v in value.items()}
    if field == "provenance" and value is not None:  # a map: (key, value) pairs
        return {k: as_json(v) for k, v in value}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    return value


def _points(list_price: float) -> tuple[PriceObservation, ...]:
    sale = round(list_price * 0.6, 2)
    return (
        PriceObservation(
            date=dt.date(2025, 1, 1),
            price_usd=sale,
            list_price_usd=list_price,
            discount_percent=40,
            source="steamspy_2025-01-01",
        ),
        PriceObservation(
            date=dt.date(2026, 7, 24),
            price_usd=list_price,
            list_price_usd=list_price,
            discount_percent=0,
            source="steam_prices_usd_2026-07",
        ),
    )


@pytest.fixture(scope="module")
def small() -> list[dict[str, Any]]:
    """The 45-game catalogue's detail records as the export holds them, with two builds'
    score history (so a game has several points) and a sampled early window."""
    records = [
        # every third game with a dated sale and its list price, as the price dumps give them
        r.model_copy(update={"price_history": _points(r.list_price_usd)}) if n % 3 == 0 else r
        for n, r in enumerate(factories.small_catalog())
    ]
    storage, games = factories.publish_catalog(records)
    history = read_score_history(storage)
    later = extend(
        history,
        ((g.record.appid, max(0, g.bang_score - 7), g.record.price_usd) for g in games),
        dt.date(2026, 8, 1),
    )
    return export_records(games, factories.SITE, factories.PRICES_AS_OF, later)


def test_games_read_back_as_the_detail_records(small: list[dict[str, Any]]) -> None:
    table = pq.read_table(io.BytesIO(parquet_bytes(games_table(small), 8)))
    assert table.num_rows == len(small)
    assert table.column("price_usd").type == pa.decimal128(10, 2)
    assert table.column("prices_as_of").type == pa.timestamp("ms", tz="UTC")
    assert pq.ParquetFile(io.BytesIO(parquet_bytes(games_table(small), 8))).num_row_groups == 6
    for row, record in zip(table.to_pylist(), small, strict=True):
        assert as_json(row) == record


def test_long_tables_hold_every_point(small: list[dict[str, Any]]) -> None:
    prices = price_history_table(small).to_pylist()
    scores = score_history_table(small).to_pylist()
    tags = tags_table(small).to_pylist()
    assert len(prices) == sum(len(r["price_history"]) for r in small) > 0
    assert len(scores) == sum(len(r["score_history"]) for r in small) > len(small)
    assert len(tags) == sum(len(r["tags"]) for r in small)
    for rows in (prices, scores, tags):
        assert [r["appid"] for r in rows] == sorted(r["appid"] for r in rows)
    by_appid = {r["appid"]: r for r in small}
    for row in scores:
        assert row["tier"] == tier(row["bang_score"])
        newest = by_appid[row["appid"]]["score_history"][-1]["date"] == row["date"].isoformat()
        assert row["score_version"] == (by_appid[row["appid"]]["score_version"] if newest else None)
    first = {(r["appid"], r["rank"]): r["tag"] for r in tags}
    assert all(first[(r["appid"], 1)] == r["tags"][0] for r in small if r["tags"])
    assert {r["estimated"] for r in prices} <= {None, True, False}


def test_changes_take_the_records_from_the_games_table(small: list[dict[str, Any]]) -> None:
    games = games_table(small)
    delta = [(small[0]["appid"], "changed"), (1, "removed"), (small[2]["appid"], "added")]
    rows = changes_table(delta, games).to_pylist()
    assert [(r["appid"], r["change"]) for r in rows] == delta
    assert rows[1]["record"] is None
    assert as_json(rows[0]["record"]) == small[0]
    assert as_json(rows[2]["record"]) == small[2]


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("price_usd", 19.999, pa.ArrowInvalid),
        ("recent_low_at", "24 July 2026", pa.ArrowInvalid),
        ("verdict", None, ValueError),
    ],
    ids=["third-decimal", "not-a-date", "null-verdict"],
)
def test_a_value_its_schema_does_not_allow_is_refused(
    small: list[dict[str, Any]], field: str, value: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        games_table([{**small[0], field: value}])


def test_equal_records_give_equal_bytes(small: list[dict[str, Any]]) -> None:
    assert parquet_bytes(games_table(small), 8) == parquet_bytes(games_table(list(small)), 8)


# -- the real catalogue's export, read as a customer reads it ---------------------------------
# (``real_export``: the session's, written once by tests/support/real_builds.py.)


PARQUET = [name for name, kind in FILES.items() if kind.format == "parquet"]


@pytest.mark.slow
@pytest.mark.parametrize("name", PARQUET)
def test_duckdb_and_polars_count_the_manifest_rows(
    real_export: tuple[Path, ExportManifest, list[dict[str, Any]]], name: str
) -> None:
    # Imported here: the slow tests alone read with them, and every pytest process collects this
    # module (make check's workers imported both for nothing, 0.15-0.2 s each).
    import duckdb
    import polars as pl

    folder, manifest, _ = real_export
    entry = next(f for f in manifest.files if f.name == name)
    path = str(folder / name)
    con = duckdb.connect()
    count = con.execute(f"select count(*) from '{path}'").fetchone()
    assert count == (entry.rows,)
    assert pl.scan_parquet(path).select(pl.len()).collect().item() == entry.rows
    columns = manifest.tables[FILES[name].table]
    described = con.execute(f"describe select * from '{path}'").fetchall()
    assert [d[0] for d in described] == [c["name"] for c in columns]
    assert pl.scan_parquet(path).collect_schema().names() == [c["name"] for c in columns]
    schema = pq.read_schema(path)
    # (A map read back names its entries after its column: "map<...> ('provenance')".)
    shown = [(f.name, re.sub(r" \('\w+'\)", "", str(f.type)), f.nullable) for f in schema]
    assert shown == [(c["name"], c["type"], c["nullable"]) for c in columns]
    for field, column in zip(schema, columns, strict=True):
        meta = field.metadata or {}
        assert meta[b"description"].decode() == column["description"]
        assert meta.get(b"unit", b"").decode() == (column["unit"] or "")


@pytest.mark.slow
def test_price_history_joins_to_every_rated_game(
    real_export: tuple[Path, ExportManifest, list[dict[str, Any]]],
) -> None:
    import duckdb
    import polars as pl

    folder, manifest, records = real_export
    con = duckdb.connect()
    games, prices = folder / "games.parquet", folder / "price_history.parquet"
    joined = con.execute(
        f"select g.appid, count(*) from '{games}' g join '{prices}' p using (appid) "
        "group by g.appid"
    ).fetchall()
    expected = {r["appid"]: len(r["price_history"]) for r in records if r["price_history"]}
    assert dict(joined) == expected
    assert len(expected) > 30_000  # the rated games with a dated price
    orphans = con.execute(
        f"select count(*) from '{prices}' p anti join '{games}' g using (appid)"
    ).fetchone()
    assert orphans == (0,)
    # polars, lazily: the same join
    lazy = pl.scan_parquet(games).join(pl.scan_parquet(prices), on="appid")
    assert lazy.select(pl.len()).collect().item() == sum(expected.values())
    rows = next(f.rows for f in manifest.files if f.name == "price_history.parquet")
    assert rows == sum(expected.values())


@pytest.mark.slow
def test_parquet_holds_the_jsonl_values(
    real_export: tuple[Path, ExportManifest, list[dict[str, Any]]],
) -> None:
    folder, _, records = real_export
    rows = pq.read_table(folder / "games.parquet").to_pylist()
    assert len(rows) == len(records)
    step = 97  # a sample across the list: every field of every 97th game
    for row, record in zip(rows[::step], records[::step], strict=True):
        assert as_json(row) == orjson.loads(orjson.dumps(record))
    sources = Counter(p["source"] for r in records for p in r["price_history"])
    table_sources = Counter(pq.read_table(folder / "price_history.parquet")["source"].to_pylist())
    assert table_sources == sources
