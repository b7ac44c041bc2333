"""The rated catalog of the bundled dumps, and Catalog files: read the dumps
(:func:`read_dumps`), join them (:mod:`ingest.join`), keep the games fit to rate
(:func:`rated_catalog_reason`), and write/read a Catalog file. Provenance: ``data/README.md``.
"""

from __future__ import annotations

import datetime as dt
import gzip
import os
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError
from tqdm import tqdm

from ingest.dumps import (
    DumpRead,
    read_hltb,
    read_itad_games,
    read_players_2018,
    read_steamspy,
    read_store_games_2019,
)
from ingest.join import RAW_FILES, Dumps, IngestReport, join_dumps
from ingest.names import normalise_name
from ingest.records import Catalog, GameRecord

# The CLI, the calibration and the tests import these from here.
__all__ = [
    "CatalogError",
    "IngestReport",
    "load_bundled_catalog",
    "rated_catalog_reason",
    "read_catalog",
    "read_dumps",
    "select_rated",
    "write_catalog",
]

MIN_REVIEWS = 50
# Storefront genres of software, not games; a game carries at least one of GAME_GENRES.
SOFTWARE_GENRES = frozenset(
    {
        "Utilities",
        "Design & Illustration",
        "Animation & Modeling",
        "Education",
        "Video Production",
        "Software Training",
        "Audio Production",
        "Web Publishing",
        "Game Development",
        "Photo Editing",
        "Accounting",
        "Documentary",
        "Tutorial",
    }
)
GAME_GENRES = frozenset(
    {
        "Action",
        "Adventure",
        "Casual",
        "Indie",
        "RPG",
        "Simulation",
        "Strategy",
        "Sports",
        "Racing",
        "Massively Multiplayer",
    }
)
NON_GAME_WORDS = frozenset({"soundtrack", "ost", "artbook", "demo", "playtest", "sdk"})
NON_GAME_PHRASES = ("dedicated server", "season pass", "art book")


class CatalogError(ValueError):
    """A catalog file or the raw dumps are missing or unreadable."""


def rated_catalog_reason(record: GameRecord, *, min_reviews: int = MIN_REVIEWS) -> str | None:
    """Given a joined record, return None if it enters the rated catalog, else why not.

    A game is rated when it has a USD price (every record does), at least ``min_reviews``
    storefront reviews (default 50: below that the positive share's 95% interval is wider than
    about +-0.11), a known main-story length and release year, and it is not a non-game by its
    name (soundtrack, demo, playtest, SDK, dedicated server, season pass, art book) or by its
    storefront genres (only software genres such as Utilities). Reasons are checked in that
    order and the first failing one is returned.
    """
    words = normalise_name(record.name)
    if NON_GAME_WORDS.intersection(words.split()) or any(p in words for p in NON_GAME_PHRASES):
        return "non-game by name"
    genres = set(record.storefront_genres)
    if genres & SOFTWARE_GENRES and not genres & GAME_GENRES:
        return "non-game by genre"
    if record.review_count < min_reviews:
        return f"fewer than {min_reviews} reviews"
    if record.main_story_hours is None:
        return "no main-story length"
    if record.release_year is None:
        return "no release year"
    return None


def read_dumps(raw_dir: Path, *, progress: bool = False) -> Dumps:
    """Given the ``data/raw`` folder, return every bundled dump read (see :data:`RAW_FILES`).

    Raises CatalogError if a file or folder is missing or unreadable.
    """
    readers: dict[str, Callable[[Path], DumpRead[Any]]] = {
        "steamspy_2025": read_steamspy,
        "steamspy_2023": read_steamspy,
        "store_2019": read_store_games_2019,
        "hltb": read_hltb,
        "players_2018": read_players_2018,
        "itad": read_itad_games,
    }
    done: dict[str, DumpRead[Any]] = {}
    for name in tqdm(readers, desc="reading dumps", unit="file", disable=not progress):
        path = raw_dir / RAW_FILES[name]
        if not path.exists():
            raise CatalogError(f"missing raw dump {path}")
        try:
            done[name] = readers[name](path)
        except OSError as err:
            raise CatalogError(f"cannot read raw dump {path}: {err}") from err
    return Dumps(**done)


def select_rated(
    records: list[GameRecord], report: IngestReport, *, min_reviews: int = MIN_REVIEWS
) -> list[GameRecord]:
    """Given joined records, return those :func:`rated_catalog_reason` keeps, in order,
    counting each drop reason and the kept total in ``report``."""
    kept = []
    for record in records:
        reason = rated_catalog_reason(record, min_reviews=min_reviews)
        if reason is None:
            kept.append(record)
        else:
            report.dropped[reason] += 1
    report.kept = len(kept)
    return kept


def load_bundled_catalog(
    data_dir: Path, *, progress: bool = False, created_at: dt.datetime | None = None
) -> tuple[Catalog, IngestReport]:
    """Given the repo's ``data`` folder (with ``raw/`` inside), return (the rated catalog of
    the bundled dumps, games sorted by appid, origin ``"bundled dumps"``; the ingest report).

    ``created_at`` defaults to now (UTC). Raises CatalogError if a dump is missing/unreadable.
    """
    started = time.perf_counter()
    records, report = join_dumps(read_dumps(data_dir / "raw", progress=progress), progress=progress)
    games = select_rated(records, report)
    catalog = Catalog(
        created_at=created_at or dt.datetime.now(dt.UTC),
        origin="bundled dumps",
        games=tuple(games),
    )
    report.seconds = time.perf_counter() - started
    return catalog, report


def write_catalog(catalog: Catalog, path: Path) -> None:
    """Given a catalog and a target path, write it as gzip JSON atomically (a temporary file in
    the same folder, then rename), so readers never see a half-written file."""
    body = orjson.dumps(catalog.model_dump(mode="json", by_alias=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(gzip.compress(body, mtime=0))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_catalog(path: Path) -> Catalog:
    """Given a path written by :func:`write_catalog`, return the Catalog.

    Raises CatalogError naming the path if it is missing, not gzip, not JSON or not a catalog.
    """
    try:
        raw = gzip.decompress(path.read_bytes())
    except FileNotFoundError:
        raise CatalogError(f"catalog file {path} does not exist") from None
    except (OSError, EOFError, zlib.error) as err:
        raise CatalogError(f"catalog file {path} is not readable gzip: {err}") from None
    try:
        return Catalog.model_validate(orjson.loads(raw))
    except orjson.JSONDecodeError as err:
        raise CatalogError(f"catalog file {path} is not valid JSON: {err}") from None
    except ValidationError as err:
        raise CatalogError(
            f"catalog file {path} is not a valid catalog ({err.error_count()} errors)"
        ) from None
