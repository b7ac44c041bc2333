"""The reader of Steam's PICS app info, July 2026 (``steam_pics_2026``, MLMariss/SteamQTPD):
one reader per field of an app (:data:`PICS_FIELDS`), its platform facets read by
:mod:`ingest.dumps.pics_facets`. Provenance of the dump: ``data/README.md``; the rules every
reader keeps: :mod:`ingest.dumps.readers`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bangscore.ingest.dumps.cells import day_of, float_of, int_of, json_of
from bangscore.ingest.dumps.pics_facets import (
    pics_ai_content,
    pics_controller,
    pics_deck,
    pics_languages,
)
from bangscore.ingest.resolve.names import display_cell, display_name
from bangscore.ingest.resolve.observations import Observation

__all__ = ["PICS_FIELDS", "PICS_TYPES", "REVIEW_COUNT_FLOOR", "observe_pics"]

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


def _ordered(block: Any) -> list[str]:
    """Given PICS's ``{"0": v, "1": v}`` list encoding, return the values in index order.

    The shards list the indexes in order (JSON objects keep their order when parsed), so the
    values are taken as they come unless a key is out of place."""
    if not isinstance(block, dict):
        return []
    values = [str(v) for v in block.values()]
    if all(key == str(i) for i, key in enumerate(block)):
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


def _pics_name(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    name = app.get("name")
    if isinstance(name, str) and (name := display_name(name)):
        yield "name", name


def _pics_type(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    kind = PICS_TYPES.get(str(app.get("type", "")).lower())
    if kind:
        yield "app_type", kind


def _pics_people(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    for assoc in (app.get("associations") or {}).values():
        role = assoc.get("type") if isinstance(assoc, dict) else None
        if role in ("developer", "publisher") and (name := display_cell(assoc.get("name"))):
            yield role, name


def _pics_release(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    released = day_of(app.get("steam_release_date")) or day_of(app.get("original_release_date"))
    if released is not None:
        yield "release_date", released


def _pics_tags(app: dict[str, Any], lookups: _PicsLookups) -> Iterator[Field]:
    ranked = [lookups.tags[t] for t in _ordered(app.get("store_tags")) if t in lookups.tags]
    if ranked:
        yield "tags", tuple(ranked[:20])


def _pics_genres(app: dict[str, Any], lookups: _PicsLookups) -> Iterator[Field]:
    named = [lookups.genres[g] for g in _ordered(app.get("genres")) if g in lookups.genres]
    if named:
        yield "storefront_genres", tuple(named)


def _pics_categories(app: dict[str, Any], lookups: _PicsLookups) -> Iterator[Field]:
    # ``category`` maps "category_<id>" to "1" for each store category the app has.
    block = app.get("category") or {}
    flags = block.items() if isinstance(block, dict) else ()
    features = [
        lookups.categories[k] for k, on in flags if str(on) == "1" and k in lookups.categories
    ]
    if features:
        yield "categories", tuple(dict.fromkeys(features))


def _pics_reviews(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    percent = float_of(app.get("review_percentage"))
    if percent is not None and 0 <= percent <= 100:
        yield "review_score", percent / 100
    floor = REVIEW_COUNT_FLOOR.get(int_of(app.get("review_score")) or 0)
    if floor:
        yield "review_count_floor", floor


def _pics_metacritic(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    metacritic = int_of(app.get("metacritic_score"))
    if metacritic is not None and 0 < metacritic <= 100:
        yield "metacritic", metacritic


# What one PICS app record observes, field by field, in this order.
def _pics_descriptors(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    descriptors = sorted({d for d in map(int_of, _ordered(app.get("content_descriptors"))) if d})
    if descriptors:
        yield "content_descriptors", tuple(descriptors)


PICS_FIELDS: tuple[Callable[[dict[str, Any], _PicsLookups], Iterator[Field]], ...] = (
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
                    yield Observation(appid, field, value)
