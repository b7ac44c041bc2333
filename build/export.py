"""The Bulk export: the whole catalog as downloadable files, written by each build.

The layout of the export store and the manifest are :mod:`bangscore.contract.export`'s: per
snapshot id the detail records as gzip JSON lines, gzip CSV (columns below) and Parquet
(:mod:`build.parquet`: games, and the price history, score history and tags as long tables),
the changes since the previous export as JSON lines and Parquet, and the manifest, which gives
each file's format, content type, bytes, sha256, rows, ``updated_at`` and permanent address,
each table's columns (:mod:`build.columns`), the licence terms and the bundled sources'
licences (:mod:`build.licences`).

Files are gzip with mtime 0 and no file name in the header, and Parquet written the same way
each time, so equal content gives equal bytes and an equal sha256: a customer can skip a
download whose digest they already hold. A file under a snapshot id is never written twice
(:func:`write_export`): its address keeps its bytes.
A change is decided per appid by comparing the SHA-256 of the compact JSON detail record
with the previous export's; with no previous export, every game is ``added``.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from bangscore.build.buyer import buyer_fields
from bangscore.build.buyer import prices_as_of as newest_price_day
from bangscore.build.columns import (
    FORECASTS,
    PRICE_HISTORY,
    SCORE_HISTORY,
    TAGS,
    changes_columns,
    detail_columns,
)
from bangscore.build.openapi import DETAIL_PROPERTIES
from bangscore.build.parquet import (
    GAMES_ROW_GROUP,
    LONG_ROW_GROUP,
    changes_table,
    forecasts_table,
    games_table,
    parquet_bytes,
    price_history_table,
    score_history_table,
    tags_table,
)
from bangscore.build.score_history import ScorePoint, wire
from bangscore.build.wire import detail_record, dumps
from bangscore.contract.export import (
    CHANGES_JSONL,
    CHANGES_PARQUET,
    FILES,
    FORECASTS_PARQUET,
    GAMES_CSV,
    GAMES_JSONL,
    GAMES_PARQUET,
    LATEST_KEY,
    PREFIX,
    PRICE_HISTORY_PARQUET,
    SCORE_HISTORY_PARQUET,
    TAGS_PARQUET,
    ExportFile,
    ExportManifest,
    SourceLicence,
    download_type,
    export_manifest_key,
    file_address,
    file_key,
    licence_terms,
    read_latest,
)
from bangscore.errors import ExportError, ObjectNotFound
from bangscore.manifest import digest
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import ObjectStorage, StoredObject

_CHUNK_ROWS = 2000  # rows rendered per write into the compressor: bounds peak memory


# -- rendering (pure) -------------------------------------------------------------------------


def gzip_bytes(chunks: Iterable[bytes], level: int = 6) -> bytes:
    """Given byte chunks, return them gzip-compressed with mtime 0 and no file name, so the
    same input always gives the same output bytes."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=level, fileobj=out, mtime=0) as gz:
        for chunk in chunks:
            gz.write(chunk)
    return out.getvalue()


def csv_columns() -> tuple[str, ...]:
    """Return the CSV header: every detail field in schema order, objects flattened to
    ``parent.child`` columns (``sources.storefront``, ``refunded_review_window.from``, ...)."""
    columns: list[str] = []
    for name, schema in DETAIL_PROPERTIES.items():
        children = schema.get("properties")
        if children:
            columns.extend(f"{name}.{child}" for child in children)
        else:
            columns.append(name)
    return tuple(columns)


CSV_COLUMNS = csv_columns()


# What a spreadsheet may read as the start of a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(text: str) -> str:
    """Given a text cell, return it safe to open in a spreadsheet: one beginning with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``, as OWASP advises, so
    that a name such as ``=HYPERLINK(...)`` is shown, never run. Numbers never pass here."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_cell(value: Any) -> str:
    """Given a JSON value, return its CSV cell: "" for null, a number or a boolean as its text
    (a negative number stays a number), lists joined by ``|``, an object with no fixed members
    (``provenance``) as compact JSON, a string as it is; every text cell through
    :func:`text_cell`."""
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    if isinstance(value, list):
        if any(isinstance(v, dict) for v in value):  # price_history, score_history
            return dumps(value).decode()
        return text_cell("|".join(str(v) for v in value))
    if isinstance(value, dict):
        return dumps(value).decode()  # str() would give a Python repr no CSV reader can parse
    return text_cell(str(value))


def csv_row(record: dict[str, Any]) -> list[str]:
    """Given a detail record, return its CSV cells in CSV_COLUMNS order."""
    row = []
    for column in CSV_COLUMNS:
        parent, _, child = column.partition(".")
        value = record.get(parent)
        if child:
            value = value.get(child) if isinstance(value, dict) else None
        row.append(csv_cell(value))
    return row


def _csv_text(rows: Iterable[Sequence[str]]) -> bytes:
    kept = list(rows)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(kept)
    text = buffer.getvalue()
    if "\r" in text:
        # The writer quotes a cell holding its line terminator (\n) but not a lone \r, which
        # every reader takes for a line end: a row with one is written with every cell quoted.
        buffer = io.StringIO()
        plain = csv.writer(buffer, lineterminator="\n")
        quoted = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL)
        for row in kept:
            (quoted if any("\r" in cell for cell in row) else plain).writerow(row)
        text = buffer.getvalue()
    return text.encode()


def _csv_chunks(records: Sequence[dict[str, Any]]) -> Iterator[bytes]:
    yield _csv_text([CSV_COLUMNS])
    for start in range(0, len(records), _CHUNK_ROWS):
        yield _csv_text(csv_row(r) for r in records[start : start + _CHUNK_ROWS])


def _jsonl_chunks(lines: Sequence[bytes]) -> Iterator[bytes]:
    for start in range(0, len(lines), _CHUNK_ROWS):
        yield b"".join(line + b"\n" for line in lines[start : start + _CHUNK_ROWS])


def jsonl_body(lines: Sequence[bytes]) -> bytes:
    """Given compact JSON lines (no newline), return the gzip JSON lines file of them."""
    return gzip_bytes(_jsonl_chunks(lines))


def csv_body(records: Sequence[dict[str, Any]]) -> bytes:
    """Given detail records, return the gzip CSV file of them (:data:`CSV_COLUMNS`)."""
    return gzip_bytes(_csv_chunks(records))


def jsonl_digests(jsonl_gz: bytes) -> dict[int, str]:
    """Given a games.jsonl.gz body, return each record's appid -> SHA-256 of its line."""
    found: dict[int, str] = {}
    with gzip.GzipFile(fileobj=io.BytesIO(jsonl_gz)) as gz:
        for line in gz:
            line = line.rstrip(b"\n")
            if line:
                found[int(orjson.loads(line)["appid"])] = digest(line)
    return found


def delta(
    previous: dict[int, str] | None, lines: Sequence[tuple[int, bytes]]
) -> list[tuple[int, str, bytes]]:
    """Given the previous export's appid -> line digest (None if there is none) and the new
    (appid, JSON line) pairs, return (appid, change kind, change line) sorted by appid: the
    line ``{"appid", "change", "record"}`` with change ``added``/``changed``/``removed``
    (record null for removals)."""
    before = previous or {}
    out: list[tuple[int, str, bytes]] = []
    for appid, line in lines:
        old = before.get(appid)
        if old == digest(line):
            continue
        change = "added" if old is None else "changed"
        entry = {"appid": appid, "change": change, "record": orjson.Fragment(line)}
        out.append((appid, change, dumps(entry)))
    for appid in sorted(set(before) - {appid for appid, _ in lines}):
        removal = {"appid": appid, "change": "removed", "record": None}
        out.append((appid, "removed", dumps(removal)))
    return sorted(out)


def changes(
    previous: dict[int, str] | None, lines: Sequence[tuple[int, bytes]]
) -> list[tuple[str, bytes]]:
    """Given what :func:`delta` takes, return its change lines sorted by appid, each paired
    with its change kind."""
    return [(change, line) for _, change, line in delta(previous, lines)]


@dataclass(frozen=True)
class Export:
    """A rendered export: its manifest, its file bodies by name, and the change counts."""

    manifest: ExportManifest
    bodies: dict[str, bytes]
    counts: dict[str, int]

    def objects(self) -> list[StoredObject]:
        """Return the objects to write, files first, then the manifest, then latest.json."""
        snap = self.manifest.snapshot
        files = [
            StoredObject(file_key(snap, name), body, download_type(name))
            for name, body in self.bodies.items()
        ]
        raw = self.manifest.to_bytes()
        return [*files, StoredObject(export_manifest_key(snap), raw), StoredObject(LATEST_KEY, raw)]


def export_tables() -> dict[str, tuple[dict[str, Any], ...]]:
    """Return the columns of every exported table, as the manifest lists them
    (:mod:`build.columns`: name, type, nullable, unit, description)."""
    tables = {
        "games": detail_columns(),
        "price_history": PRICE_HISTORY,
        "score_history": SCORE_HISTORY,
        "tags": TAGS,
        "forecasts": FORECASTS,
        "changes": changes_columns(),
    }
    return {name: tuple(c.to_json() for c in columns) for name, columns in tables.items()}


def parquet_bodies(
    records: Sequence[dict[str, Any]], kinds: Sequence[tuple[int, str]]
) -> tuple[dict[str, bytes], dict[str, int]]:
    """Given detail records and the changes as (appid, kind), return the Parquet files' bodies
    and data rows by name."""
    games = games_table(records)
    tables = {
        GAMES_PARQUET: (games, GAMES_ROW_GROUP),
        PRICE_HISTORY_PARQUET: (price_history_table(records), LONG_ROW_GROUP),
        SCORE_HISTORY_PARQUET: (score_history_table(records), LONG_ROW_GROUP),
        TAGS_PARQUET: (tags_table(records), LONG_ROW_GROUP),
        FORECASTS_PARQUET: (forecasts_table(records), GAMES_ROW_GROUP),
        CHANGES_PARQUET: (changes_table(kinds, games), GAMES_ROW_GROUP),
    }
    bodies = {name: parquet_bytes(table, rows) for name, (table, rows) in tables.items()}
    return bodies, {name: table.num_rows for name, (table, _) in tables.items()}


def render_export(
    records: Sequence[dict[str, Any]],
    *,
    snapshot_id: str,
    created_at: dt.datetime,
    previous: ExportManifest | None = None,
    previous_games: bytes | None = None,
    site_url: str = "",
    base_url: str | None = None,
    sources: Sequence[SourceLicence] = (),
    lines: Sequence[bytes] | None = None,
) -> Export:
    """Given detail records in list order, the previous export (its manifest and its
    games.jsonl.gz body, or None), the website's and the API's URLs (``base_url`` None: the
    website's), the bundled sources' licences (:mod:`build.licences`) and the records' JSON
    bytes when the caller has them (``lines``: the snapshot's detail objects; None: dumped
    here), return the rendered export: every file of :data:`bangscore.contract.export.FILES`
    and its manifest. A file whose bytes equal the previous export's keeps that file's
    ``updated_at``. Pure. Raises ValueError or pyarrow.ArrowInvalid for records their schema
    does not describe."""
    if lines is None:
        lines = [dumps(r) for r in records]
    before = jsonl_digests(previous_games) if previous_games is not None else None
    pairs = [(int(r["appid"]), line) for r, line in zip(records, lines, strict=True)]
    found = delta(before, pairs)
    counts = {"added": 0, "changed": 0, "removed": 0}
    for _, change, _ in found:
        counts[change] += 1
    parquet, parquet_rows = parquet_bodies(records, [(a, c) for a, c, _ in found])
    bodies = {
        GAMES_JSONL: jsonl_body(lines),
        GAMES_CSV: csv_body(records),
        CHANGES_JSONL: jsonl_body([line for _, _, line in found]),
        **parquet,
    }
    rows = {GAMES_JSONL: len(lines), GAMES_CSV: len(records), CHANGES_JSONL: len(found)}
    rows.update(parquet_rows)
    seen = {(f.name, f.sha256): f.updated_at for f in previous.files} if previous else {}
    address_base = base_url if base_url is not None else site_url
    files = []
    for name in FILES:
        body = bodies[name]
        sha = digest(body)
        updated_at = seen.get((name, sha), created_at)
        address = file_address(address_base, snapshot_id, name)
        kind = FILES[name]
        files.append(ExportFile(name, kind.format, len(body), sha, rows[name], updated_at, address))
    manifest = ExportManifest(
        snapshot_id,
        created_at,
        previous.snapshot if previous else None,
        tuple(files),
        tables=dict(export_tables()),
        licence=licence_terms(site_url),
        sources=tuple(sources),
    )
    return Export(manifest, {name: bodies[name] for name in FILES}, counts)


# -- the export store (I/O) -------------------------------------------------------------------


def list_exports(storage: ObjectStorage) -> list[str]:
    """Given an export store, return the snapshot ids it holds exports of, oldest first."""
    ids = {
        key.removeprefix(PREFIX).split("/", 1)[0]
        for key in storage.list_keys(PREFIX)
        if key.count("/") >= 2
    }
    return sorted(ids)


def export_records(
    games: Sequence[ScoredGame],
    site_url: str,
    prices_as_of: dt.datetime | None,
    score_history: Mapping[int, Sequence[ScorePoint]] | None = None,
    as_of: dt.date | None = None,
) -> list[dict[str, Any]]:
    """Given a build's scored games (list order), the site URL, the catalogue's
    ``prices_as_of`` (UTC, or None), the games' score histories by appid and the snapshot's
    day (None: the prices' day), return their detail records exactly as the snapshot serves
    them: every field, the verdict, the genre percentile and the score history included."""
    as_of_day = prices_as_of.date() if prices_as_of is not None else newest_price_day(games)
    buyer = buyer_fields(games, as_of_day, as_of)
    histories = score_history or {}
    return [
        detail_record(
            game,
            site_url,
            prices_as_of,
            extra,
            score_history=wire(histories.get(game.record.appid, ())),
        )
        for game, extra in zip(games, buyer, strict=True)
    ]


def write_export(
    storage: ObjectStorage,
    games: Sequence[ScoredGame],
    *,
    snapshot_id: str,
    created_at: dt.datetime,
    site_url: str,
    keep: int,
    prices_as_of: dt.datetime | None = None,
    score_history: Mapping[int, Sequence[ScorePoint]] | None = None,
    base_url: str | None = None,
    sources: Sequence[SourceLicence] = (),
    details: Sequence[bytes] | None = None,
    as_of: dt.date | None = None,
) -> Export:
    """Given an export store, a build's scored games (list order), the catalogue's
    ``prices_as_of``, the games' score histories (:mod:`build.score_history`, as the build
    published them), the API's base URL (None: ``site_url``), the bundled sources' licences
    and, when the build has them, the games' detail records as the snapshot stored them
    (``details``: JSON bytes in list order, which stand for :func:`export_records`, so a
    build computes each game's record once) and the snapshot's day (None: ``created_at``'s),
    write its export (:func:`render_export`) and
    return it; prune to the newest ``keep`` exports. latest.json is written last, so a reader
    never sees a manifest whose files are missing.

    An export already written under ``snapshot_id`` (its manifest exists) is never written
    again: it is returned as stored, its files untouched, latest.json pointed at it again
    (``counts`` all 0). Raises ObjectStorageError.
    """
    existing = _stored_export(storage, snapshot_id)
    if existing is not None:
        storage.put_many([StoredObject(LATEST_KEY, existing.to_bytes())])
        return Export(existing, {}, {"added": 0, "changed": 0, "removed": 0})
    previous = read_latest(storage)
    previous_games = None
    if previous is not None:
        try:
            previous_games = storage.get(file_key(previous.snapshot, GAMES_JSONL))
        except ObjectNotFound:
            previous = None  # an export whose files are gone cannot be diffed against
    if details is not None:
        if len(details) != len(games):
            raise ValueError(f"{len(details)} detail records for {len(games)} games")
        records = [orjson.loads(d) for d in details]
    else:
        records = export_records(
            games, site_url, prices_as_of, score_history, as_of or created_at.date()
        )
    export = render_export(
        records,
        lines=details,
        snapshot_id=snapshot_id,
        created_at=created_at,
        previous=previous,
        previous_games=previous_games,
        site_url=site_url,
        base_url=base_url,
        sources=sources,
    )
    *files, manifest, latest = export.objects()
    # A build killed after some files and before the manifest left files that no manifest
    # names yet: they are written again (no address was given out for them).
    storage.put_many(files)
    storage.put_many([manifest])
    storage.put_many([latest])
    prune_exports(storage, keep)
    return export


def _stored_export(storage: ObjectStorage, snapshot_id: str) -> ExportManifest | None:
    """Given an export store and a snapshot id, return the manifest of the export written
    under it, or None if there is none (or it cannot be read: then it never reached
    latest.json, and is written afresh). Raises ObjectStorageUnavailable."""
    try:
        return ExportManifest.from_bytes(storage.get(export_manifest_key(snapshot_id)))
    except (ObjectNotFound, ExportError):
        return None


def prune_exports(storage: ObjectStorage, keep: int) -> list[str]:
    """Given an export store, delete all but the newest ``keep`` exports (never the one
    latest.json names); return the ids deleted, oldest first."""
    ids = list_exports(storage)
    latest = read_latest(storage)
    kept = set(ids[-keep:]) | ({latest.snapshot} if latest else set())
    doomed = [i for i in ids if i not in kept]
    for snapshot_id in doomed:
        storage.delete_many(list(storage.list_keys(f"{PREFIX}{snapshot_id}/")))
    return doomed
