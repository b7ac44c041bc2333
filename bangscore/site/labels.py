"""What the website's pages show beyond the wire records: driver and genre labels, the length's
source, and each game's better-value neighbours in its genre.

Pure functions of wire dicts and list order; :mod:`bangscore.site.render` renders them and
:func:`build.snapshot.snapshot_objects` calls them once per build.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bangscore.scoring.genres import GENRES

BETTER_VALUE_COUNT = 5

# Human labels of the ``drivers`` vocabulary (docs/API.md#drivers).
DRIVER_LABELS: Mapping[str, str] = {
    "reviews": "Player reviews",
    "price": "Price",
    "length": "Length",
    "replayability": "Replayability",
    "finish_rate": "Share of players who finish",
    "estimated_length": "Length is an estimate",
    "unattended_time": "Idle or tool time (not counted)",
}
DRIVER_GROUPS: tuple[tuple[str, str], ...] = (
    ("raises", "Raises the score"),
    ("lowers", "Lowers the score"),
    ("neutral", "Neither raises nor lowers it"),
)
LENGTH_SOURCES: Mapping[str, str] = {
    "hltb": "main-story time from a play-length source",
    "playtime_estimate": "estimated from how long the game's reviewers play",
}
GENRE_LABELS: Mapping[str, str] = {
    "rpg": "RPG",
    "shooter": "Shooter",
    "strategy": "Strategy",
    "narrative": "Narrative",
    "roguelike": "Roguelike",
    "multiplayer": "Multiplayer",
    "indie_short": "Short indie",
    "action": "Action",
    "other": "Other",
}
assert set(GENRE_LABELS) == set(GENRES), "every genre needs a label"


def driver_label(name: str) -> str:
    """Given a driver name, return its human label (a readable form of an unknown name)."""
    return DRIVER_LABELS.get(name) or name.replace("_", " ").capitalize()


def genre_label(genre: str) -> str:
    """Given a genre wire name, return its human label."""
    return GENRE_LABELS.get(genre) or genre.replace("_", " ").capitalize()


def drivers_view(detail: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """Given a detail record, return its drivers as (group heading, [labels]) for the non-empty
    groups, in the order raises, lowers, neutral; [] when the record has no ``drivers``."""
    drivers = detail.get("drivers")
    if not isinstance(drivers, Mapping):
        return []
    out = []
    for key, heading in DRIVER_GROUPS:
        names = drivers.get(key) or []
        if names:
            out.append((heading, [driver_label(str(n)) for n in names]))
    return out


def length_source_label(detail: Mapping[str, Any]) -> str | None:
    """Given a detail record, return the words for where its length comes from, or None.

    Without ``length_source`` (records before it was published), the ``estimated`` list still
    tells an estimated length from a measured one.
    """
    source = detail.get("length_source")
    if isinstance(source, str):
        return LENGTH_SOURCES.get(source, source.replace("_", " "))
    if "length" in detail.get("estimated", ()):
        return "an estimate"
    return None


def better_in_genre(genres: Sequence[str], count: int = BETTER_VALUE_COUNT) -> list[list[int]]:
    """Given each game's genre in list order, return for each game the positions of up to
    ``count`` games of its genre ranked just above it (best first): better value today, and
    the nearest to it in score. The top game of a genre gets [].
    """
    seen: dict[str, list[int]] = {}
    out: list[list[int]] = []
    for pos, genre in enumerate(genres):
        above = seen.setdefault(genre, [])
        out.append(above[-count:])
        above.append(pos)
    return out
