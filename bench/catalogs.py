"""The catalog as the benchmark's other servers see it: detail records read back from the
snapshot, the SQLite file Datasette serves, and each measured request as every server
spells it."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from bangscore.manifest import read_body, read_manifest
from bangscore.storage import LocalStorage


def detail_records(snapshots: Path) -> list[dict[str, Any]]:
    """Given a snapshot folder, return every detail record of its current snapshot."""
    storage = LocalStorage(snapshots)
    pointer = storage.read_pointer()
    assert pointer is not None, "no snapshot published"
    manifest = read_manifest(storage, pointer)
    return [
        orjson.loads(read_body(storage, entry))
        for key, entry in manifest.entries.items()
        if key.startswith("games/")
    ]


DATASETTE_COLUMNS = (
    "appid",
    "name",
    "bang_score",
    "tier",
    "genre",
    "price_usd",
    "discount_percent",
    "review_score",
    "length_hours",
    "finish_rate",
    "release_year",
    "url",
    "developer",
    "publisher",
    "metacritic",
    "tags",
)


def build_sqlite(records: Sequence[dict[str, Any]], path: Path) -> None:
    """Given detail records, write the SQLite file Datasette serves: a ``games`` table with
    the list fields, tags as a JSON array, indexes on the filtered columns and FTS5 on name."""
    conn = sqlite3.connect(path)
    columns = ", ".join(
        "appid INTEGER PRIMARY KEY" if c == "appid" else c for c in DATASETTE_COLUMNS
    )
    conn.execute(f"CREATE TABLE games ({columns})")
    conn.executemany(
        f"INSERT INTO games VALUES ({', '.join('?' for _ in DATASETTE_COLUMNS)})",
        [
            tuple(json.dumps(r["tags"]) if c == "tags" else r.get(c) for c in DATASETTE_COLUMNS)
            for r in records
        ],
    )
    for column in ("genre", "release_year", "bang_score"):
        conn.execute(f"CREATE INDEX games_{column} ON games({column})")
    conn.execute(
        "CREATE VIRTUAL TABLE games_fts USING fts5(name, content='games', content_rowid='appid')"
    )
    conn.execute("INSERT INTO games_fts(rowid, name) SELECT appid, name FROM games")
    conn.commit()
    conn.close()


@dataclass(frozen=True)
class Workload:
    """The requests measured, as each server spells them (None: no comparable request)."""

    name: str
    shim: str
    static: str | None
    datasette: str | None


def common_tag(records: Sequence[dict[str, Any]]) -> str:
    """Given detail records, return the most frequent tag (its original spelling)."""
    counts = Counter(t for r in records for t in r["tags"])
    return str(counts.most_common(1)[0][0])


def search_words(records: Sequence[dict[str, Any]], n: int) -> list[str]:
    """Given detail records, return up to ``n`` distinct name words (letters only, 4+ long)."""
    words = Counter(w.lower() for r in records for w in re.findall(r"[A-Za-z]{4,}", r["name"]))
    return [w for w, _ in words.most_common(n)]


def composed_rotation(tags: Sequence[str], n: int) -> list[tuple[str, str, int, int]]:
    """Return ``n`` distinct (genres, tag, year_from, year_to) combinations, deterministic."""
    genres = ("rpg", "shooter", "strategy", "narrative", "roguelike", "action", "other")
    combos = [
        (f"{g1},{g2}", tag, start, start + span)
        for tag in tags
        for i, g1 in enumerate(genres)
        for g2 in genres[i + 1 :]
        for start in range(1998, 2022)
        for span in (2, 5, 9)
    ]
    return combos[:n]


def shim_composed(genres: str, tag: str, year_from: int, year_to: int) -> str:
    """Return the shim's path for one composed filter page."""
    return (
        f"/api/v1/games?genre={genres}&tag={quote(tag.lower())}"
        f"&year_from={year_from}&year_to={year_to}"
    )


def datasette_list(query: str) -> str:
    """Return Datasette's table JSON path for a query, 10 rows as objects."""
    return f"/bench/games.json?{query}&_size=10&_shape=objects"


def datasette_composed(genres: str, tag: str, year_from: int, year_to: int) -> str:
    """Return Datasette's path for one composed filter, ranked by bang_score."""
    return datasette_list(
        f"genre__in={genres}&tags__arraycontains={quote(tag)}"
        f"&release_year__gte={year_from}&release_year__lte={year_to}&_sort_desc=bang_score"
    )


def lookup_path(records: Sequence[dict[str, Any]], n: int = 100) -> str:
    """Given the catalogue's detail records, return a ``GET /api/v1/lookup`` path asking for
    ``n`` appids spread over the whole ranking (a wishlist is not the top of the list)."""
    appids = sorted(int(r["appid"]) for r in records)
    step = max(1, len(appids) // n)
    return "/api/v1/lookup?appids=" + ",".join(str(a) for a in appids[::step][:n])
