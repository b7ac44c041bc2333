"""The reader of Steam's PICS app info, July 2026 (``steam_pics_2026``, MLMariss/SteamQTPD):
one reader per field of an app (:data:`PICS_FIELDS`), its platform facets read by
:mod:`ingest.dumps.pics_facets`. Provenance of the dump: ``data/README.md``; the rules every
reader keeps: :mod:`ingest.dumps.readers`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bangscore.ingest.dumps.cells import day_of, float_of, int_of, json_of
from bangscore.ingest.dumps.pics_facets import (
    PicsFields,
    pics_ai_content,
    pics_controller,
    pics_deck,
    pics_languages,
)
from bangscore.ingest.resolve.names import display_cell, display_name
from bangscore.ingest.resolve.observations import Observation

__all__ = ["PICS_FIELDS", "PICS_TYPES", "REVIEW_COUNT_FLOOR", "observe_pics"]

# Observation((appid, field, value)) as its NamedTuple __new__ makes it, without a Python call
# (1.4 million a read).
_observation: Callable[[tuple[int, str, Any]], Observation] = functools.partial(
    tuple.__new__, Observation
)

PICS_TYPES = {
    "game": "game",
    "dlc": "dlc",
    "demo": "demo",
    "application": "application",
    "tool": "tool",
    "music": "music",
    "video": "video",
    "beta": "beta",
}


# "0", "1", ... : the keys of PICS's list encoding when they come in index order.
_INDEXES = tuple(str(i) for i in range(1000))


def _ordered(block: Any) -> list[str]:
    """Given PICS's ``{"0": v, "1": v}`` list encoding, return the values in index order.

    The shards list the indexes in order (JSON objects keep their order when parsed), so the
    values are taken as they come unless a key is out of place."""
    if not isinstance(block, dict):
        return []
    values = [str(v) for v in block.values()]
    if tuple(block) == _INDEXES[: len(block)]:
        return values
    pairs = sorted(((int_of(k), str(v)) for k, v in block.items()), key=lambda kv: kv[0] or 0)
    return [v for k, v in pairs if k is not None]


# Steam's review summary (PICS ``review_score``, 1-9) names a band of review counts as well as a
# share: "Very Positive" (8) and "Very Negative" (2) need at least 50 reviews,
# "Overwhelmingly Positive" (9) and "Overwhelmingly Negative" (1) at least 500. The other
# summaries start at 10 reviews, under any rating gate.
REVIEW_COUNT_FLOOR: dict[int, int] = {9: 500, 8: 50, 2: 50, 1: 500}


@dataclass(frozen=True)
class _PicsLookups:
    """The id -> name tables of ``steam_pics_2026/lookups``: tags, genres, store categories."""

    tags: dict[str, str]
    genres: dict[str, str]
    categories: dict[str, str]


Field = tuple[str, Any]  # a field and the value an app's record observes for it
# Each reader returns its fields as a tuple (pics_facets.PicsFields), () when the record is silent:
# 14 readers of 124,000 apps, where a generator each cost a fifth of reading the dump (3 Dec 2026).


def _pics_name(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    name = app.get("name")
    if isinstance(name, str) and (name := display_name(name)):
        return (("name", name),)
    return ()


def _pics_type(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    kind = PICS_TYPES.get(str(app.get("type", "")).lower())
    return (("app_type", kind),) if kind else ()


def _pics_people(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    found = []
    for assoc in (app.get("associations") or {}).values():
        role = assoc.get("type") if isinstance(assoc, dict) else None
        if role in ("developer", "publisher") and (name := display_cell(assoc.get("name"))):
            found.append((role, name))
    return tuple(found)


def _pics_release(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    released = day_of(app.get("steam_release_date")) or day_of(app.get("original_release_date"))
    return (("release_date", released),) if released is not None else ()


def _pics_tags(app: dict[str, Any], lookups: _PicsLookups) -> PicsFields:
    ranked = [lookups.tags[t] for t in _ordered(app.get("store_tags")) if t in lookups.tags]
    return (("tags", tuple(ranked[:20])),) if ranked else ()


def _pics_genres(app: dict[str, Any], lookups: _PicsLookups) -> PicsFields:
    named = [lookups.genres[g] for g in _ordered(app.get("genres")) if g in lookups.genres]
    return (("storefront_genres", tuple(named)),) if named else ()


def _pics_categories(app: dict[str, Any], lookups: _PicsLookups) -> PicsFields:
    # ``category`` maps "category_<id>" to "1" for each store category the app has.
    block = app.get("category") or {}
    flags = block.items() if isinstance(block, dict) else ()
    features = [
        lookups.categories[k] for k, on in flags if str(on) == "1" and k in lookups.categories
    ]
    return (("categories", tuple(dict.fromkeys(features))),) if features else ()


def _pics_reviews(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    found: list[Field] = []
    percent = float_of(app.get("review_percentage"))
    if percent is not None and 0 <= percent <= 100:
        found.append(("review_score", percent / 100))
    floor = REVIEW_COUNT_FLOOR.get(int_of(app.get("review_score")) or 0)
    if floor:
        found.append(("review_count_floor", floor))
    return tuple(found)


def _pics_metacritic(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    metacritic = int_of(app.get("metacritic_score"))
    return (("metacritic", metacritic),) if metacritic is not None and 0 < metacritic <= 100 else ()


def _pics_descriptors(app: dict[str, Any], _: _PicsLookups) -> PicsFields:
    descriptors = sorted({d for d in map(int_of, _ordered(app.get("content_descriptors"))) if d})
    return (("content_descriptors", tuple(descriptors)),) if descriptors else ()


# What one PICS app record observes, field by field, in this order.
PICS_FIELDS: tuple[Callable[[dict[str, Any], _PicsLookups], PicsFields], ...] = (
    _pics_name,
    _pics_type,
    _pics_people,
    _pics_release,
    _pics_tags,
    _pics_genres,
    _pics_categories,
    _pics_reviews,
    _pics_metacritic,
    _pics_descriptors,
    pics_deck,
    pics_controller,
    pics_languages,
    pics_ai_content,
)


def observe_pics(folder: Path) -> Iterator[Observation]:
    """Given ``steam_pics_2026`` (``pics_raw/shard_*.json.gz`` and ``lookups/*.json``), yield
    name, app type, developer, publisher, release date, ranked tags (up to 20, most-voted
    first), storefront genres, store categories (``categories``), review score (Steam's
    percentage / 100), the least review count Steam's review summary implies
    (``review_count_floor``, :data:`REVIEW_COUNT_FLOOR`), Metacritic score and the storefront's
    content descriptor ids (``content_descriptors``, sorted; :mod:`scoring.flags` names them)
    of each app, and its platform facets (:mod:`ingest.dumps.pics_facets`: Steam Deck status
    and test date, controller support, languages, AI disclosure); one reader per field:
    :data:`PICS_FIELDS`."""
    lookups = _PicsLookups(
        *(
            {str(k): v for k, v in json_of(folder / "lookups" / f"{name}.json").items()}
            for name in ("tags", "genres", "categories")
        )
    )
    for shard in sorted((folder / "pics_raw").glob("shard_*.json*")):
        for key, app in (json_of(shard).get("apps") or {}).items():
            appid = int_of(key)
            if appid is None or appid <= 0 or not isinstance(app, dict):
                continue
            for read in PICS_FIELDS:
                for field, value in read(app, lookups):
                    yield _observation((appid, field, value))
