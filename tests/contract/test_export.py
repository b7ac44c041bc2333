"""The Bulk export's manifest format (bangscore/contract/export.py): what a reader refuses."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import jsonschema_rs
import orjson
import pytest

from bangscore.contract.export import (
    LATEST_KEY,
    ExportFile,
    ExportManifest,
    SourceLicence,
    licence_terms,
    manifest_schema,
    read_latest,
)
from bangscore.errors import ExportError
from bangscore.storage import MemoryStorage, StoredObject

T0 = dt.datetime(2026, 11, 24, tzinfo=dt.UTC)
SCHEMA_FILE = "export-manifest.schema.json"
MANIFEST = ExportManifest(
    snapshot="20261124T000000Z-abc",
    created_at=T0,
    previous=None,
    files=(
        ExportFile(
            "games.jsonl.gz",
            "jsonl",
            120,
            "ab" * 32,
            3,
            T0,
            "https://api.example/export/20261124T000000Z-abc/games.jsonl.gz",
        ),
    ),
    tables={
        "tags": (
            {
                "name": "tag",
                "type": "string",
                "nullable": False,
                "unit": None,
                "description": "a storefront user tag",
            },
        )
    },
    licence=licence_terms("https://bangscore.example"),
    sources=(SourceLicence("steam_players_2018", "woctezuma/steam-reviews-to-sales", "MIT"),),
)


def _with(**changes: object) -> bytes:
    data = orjson.loads(MANIFEST.to_bytes())
    data.update(changes)
    return orjson.dumps(data)


def _without(name: str) -> bytes:
    data = orjson.loads(MANIFEST.to_bytes())
    del data[name]
    return orjson.dumps(data)


def test_a_manifest_reads_back_as_written() -> None:
    assert ExportManifest.from_bytes(MANIFEST.to_bytes()) == MANIFEST


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(MANIFEST.to_bytes()[:40], id="truncated"),
        pytest.param(b"", id="empty"),
        pytest.param(b"[]", id="a-list"),
        pytest.param(_without("files"), id="no-files"),
        pytest.param(_without("snapshot"), id="no-snapshot"),
        pytest.param(_with(files=5), id="files-not-a-list"),
        pytest.param(_with(files=[{"name": "games.jsonl.gz"}]), id="file-without-fields"),
        pytest.param(_with(created_at="yesterday"), id="created-at-not-iso"),
        pytest.param(_with(tables={"tags": {"rows": 1}}), id="table-without-columns"),
        pytest.param(_with(sources=[{"folder": "x"}]), id="source-without-licence"),
        pytest.param(_with(licence=[]), id="licence-not-an-object"),
        pytest.param(
            _with(files=[{**MANIFEST.files[0].to_json(), "rows": "many"}]), id="rows-not-a-number"
        ),
    ],
)
def test_a_corrupt_manifest_is_an_export_error(raw: bytes) -> None:
    with pytest.raises(ExportError, match=r"^corrupt export manifest: "):
        ExportManifest.from_bytes(raw)


def test_read_latest_refuses_a_corrupt_latest_json() -> None:
    storage = MemoryStorage()
    assert read_latest(storage) is None
    storage.put_many([StoredObject(LATEST_KEY, MANIFEST.to_bytes()[:-1])])
    with pytest.raises(ExportError, match="corrupt export manifest"):
        read_latest(storage)
    storage.put_many([StoredObject(LATEST_KEY, MANIFEST.to_bytes())])
    assert read_latest(storage) == MANIFEST


def test_the_repos_json_schema_is_the_manifest_schema() -> None:
    # docs/export-manifest.schema.json is manifest_schema() written out: `make docs` writes it
    # (bench/generated.py) and `make lint` fails while it differs.
    written = orjson.loads((Path(__file__).parents[2] / "docs" / SCHEMA_FILE).read_bytes())
    assert written == manifest_schema()
    # MANIFEST lists one table of the five an export has: the schema names what is missing.
    errors = jsonschema_rs.validator_for(written).iter_errors(orjson.loads(MANIFEST.to_bytes()))
    missing = ("changes", "games", "price_history", "score_history")
    assert {e.message for e in errors} == {f'"{t}" is a required property' for t in missing}
