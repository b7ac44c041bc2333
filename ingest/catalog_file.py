"""The catalog file: a whole :class:`Catalog` as gzip JSON, written atomically and read back
one game at a time (the builder's peak memory). ``ingest`` writes it, ``build`` reads it.
"""

from __future__ import annotations

import gzip
import os
import tempfile
import zlib
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from bangscore.errors import CatalogError
from bangscore.scoring.records import Catalog, GameRecord, Provenance

__all__ = ["count_games", "read_catalog", "write_catalog"]


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
        data = orjson.loads(raw)
        del raw
        return _validate_catalog(data)
    except orjson.JSONDecodeError as err:
        raise CatalogError(f"catalog file {path} is not valid JSON: {err}") from None
    except ValidationError as err:
        raise CatalogError(
            f"catalog file {path} is not a valid catalog ({err.error_count()} errors)"
        ) from None


def count_games(path: Path) -> int:
    """Given a path written by :func:`write_catalog`, return how many games it holds, without
    validating them (what ``ingest --dry-run`` plans with: parsing is about a second where
    validating every record took most of 20 s).

    Raises CatalogError naming the path if it is missing, not gzip, not JSON or has no
    ``games`` list.
    """
    try:
        data = orjson.loads(gzip.decompress(path.read_bytes()))
    except FileNotFoundError:
        raise CatalogError(f"catalog file {path} does not exist") from None
    except (OSError, EOFError, zlib.error) as err:
        raise CatalogError(f"catalog file {path} is not readable gzip: {err}") from None
    except orjson.JSONDecodeError as err:
        raise CatalogError(f"catalog file {path} is not valid JSON: {err}") from None
    if not isinstance(data, dict) or not isinstance(data.get("games"), list):
        raise CatalogError(f"catalog file {path} is not a catalog: no list of games")
    return len(data["games"])


def _validate_catalog(data: Any) -> Catalog:
    """Validate a parsed catalog one game at a time, dropping each parsed dict as soon as its
    record exists and sharing equal provenance entries, so a large catalog never holds its
    JSON and its records whole at once (the builder's peak memory)."""
    if not isinstance(data, dict) or not isinstance(data.get("games"), list):
        return Catalog.model_validate(data)  # raises the ValidationError that says why
    parsed: list[Any] = data.pop("games")
    shared: dict[Provenance, Provenance] = {}
    games: list[GameRecord] = []
    for i, item in enumerate(parsed):
        parsed[i] = None
        record = GameRecord.model_validate(item)
        for name, entry in record.provenance.items():
            record.provenance[name] = shared.setdefault(entry, entry)
        games.append(record)
    del parsed
    return Catalog.model_validate({**data, "games": ()}).model_copy(update={"games": tuple(games)})
