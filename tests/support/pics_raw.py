"""The platform facets read straight from the raw PICS shards (data/raw/steam_pics_2026), not
through ingest: what tests compare the catalogue's records, the wire and the filters' totals
with (docs/API.md#platform-facets)."""

from __future__ import annotations

import datetime as dt
import functools
import gc
import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from bangscore.scoring.languages import LANGUAGE_CODES

PICS = Path(__file__).resolve().parents[2] / "data" / "raw" / "steam_pics_2026" / "pics_raw"
DECK = {"1": "unsupported", "2": "playable", "3": "verified"}


@dataclass(frozen=True)
class RawFacets:
    """One app's facets as its raw PICS record states them (None, () where silent)."""

    steam_deck: str | None
    tested_at: str | None  # ISO day, UTC
    controller: str | None
    languages: tuple[dict[str, Any], ...]
    ai_type: str | None


def _flag(value: Any) -> bool:
    return str(value).lower() in ("true", "1")


def _languages(block: Any) -> tuple[dict[str, Any], ...]:
    merged: dict[str, dict[str, Any]] = {}
    for name, value in (block or {}).items() if isinstance(block, dict) else ():
        code = LANGUAGE_CODES.get(name)
        if code is None or not isinstance(value, dict):
            continue
        entry = merged.setdefault(
            code, {"code": code, "interface": False, "audio": False, "subtitles": False}
        )
        entry["interface"] |= _flag(value.get("supported"))
        entry["audio"] |= _flag(value.get("full_audio"))
        entry["subtitles"] |= _flag(value.get("subtitles"))
    return tuple(e for e in merged.values() if e["interface"] or e["audio"] or e["subtitles"])


def _facets(app: dict[str, Any]) -> RawFacets:
    deck = app.get("steam_deck_compatibility") or {}
    status = DECK.get(str(deck.get("category")))
    stamp = int(deck.get("test_timestamp") or 0) if status else 0
    tested = dt.datetime.fromtimestamp(stamp, dt.UTC).date().isoformat() if stamp > 0 else None
    controller = app.get("controller_support")
    return RawFacets(
        steam_deck=status,
        tested_at=tested,
        controller=controller if controller in ("full", "partial") else None,
        languages=_languages(app.get("supported_languages")),
        ai_type=str(app["aicontenttype"]) if "aicontenttype" in app else None,
    )


@functools.cache
def read_raw_facets() -> dict[int, RawFacets]:
    """Return every PICS app's facets by appid, read from the 64 gzipped shards once per
    process (read only: two modules read them, 5.6 s of CPU a read untraced, 3 Dec 2026)."""
    out: dict[int, RawFacets] = {}
    for shard in sorted(PICS.glob("shard_*.json.gz")):
        # orjson: the stdlib's json took 3.5 s of the 64 shards' 8 s under coverage (3 Dec 2026).
        for key, app in orjson.loads(gzip.decompress(shard.read_bytes()))["apps"].items():
            out[int(key)] = _facets(app)
    # Kept for the process: out of the cyclic collector (see tests/conftest.py pair_details).
    gc.freeze()
    return out
