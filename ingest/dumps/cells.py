"""The cells of the bundled 2024-2026 dumps (:mod:`ingest.dumps.readers`, :mod:`ingest.dumps.pics`,
:mod:`ingest.dumps.insights`): a JSON file, gzip'd or not, and a cell read as a number or a day,
``None`` where it cannot be (a reader skips what it cannot read, never raises on a bad row).
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
from pathlib import Path
from typing import Any

import orjson

__all__ = ["day_of", "float_of", "int_of", "json_of"]

# A cell of the 2024 catalogue's CSVs runs to megabytes (a game's full description).
csv.field_size_limit(1 << 24)


def json_of(path: Path) -> Any:
    """Given a ``.json`` or ``.json.gz`` file, return its parsed content; raises ``OSError``
    when it cannot be read and ``orjson.JSONDecodeError`` when it is no JSON."""
    raw = path.read_bytes()
    return orjson.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)


def int_of(value: Any) -> int | None:
    """Given a cell, return it as an ``int``, or None when it is none."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def float_of(value: Any) -> float | None:
    """Given a cell, return it as a ``float``, or None when it is none or NaN."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number else None


def day_of(timestamp: Any) -> dt.date | None:
    """Given unix seconds, return their day (UTC), or None when not a positive whole number."""
    seconds = int_of(timestamp)
    if seconds is None or seconds <= 0:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.UTC).date()
