"""Series: the chapters, episodes, volumes and parts of one work, sold as separate games.

A visual novel sold chapter by chapter (Higurashi When They Cry Hou, eight chapters) is one work
to a player, and a ranking that lists every chapter fills its top with one work. The API list
keeps every game and names the series on each part (``series``: ``{"name", "parts"}``); the
website lists a series once, at its best part (docs/API.md#series).

:func:`find_series` groups games whose names differ only by a part marker and what follows it
("Ch.3 Tatarigoroshi", "Episode Two", "Volume 1", "Part II") and that share a developer (a
publisher when no developer is known): two games called "... Part 2" by different studios are
not one work. A group of two or more is a series; its name is the shared stem as the best-ranked
part spells it. Pure functions of the games' names and studios.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

# A part marker: the word (chapter, episode, volume, part, in their usual abbreviations) and its
# number, in digits, roman numerals or words. What precedes it is the work's name; what follows
# it names the part.
# Digits may follow the word at once ("Ch.3", "Ep1"); a roman numeral or a word needs a dot or a
# space between ("Part II", "Episode Two"), so "Epic" is not episode IC.
_WORDS: Final = (
    r"(?:[ivx]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|final)"
)
_MARKER: Final = re.compile(
    r"(?:^|[\s\-:–—,(\[])"
    r"(?:ch(?:apter)?|ep(?:isode)?|vol(?:ume)?|part|pt)"
    rf"(?:\.?\s*\d+|(?:\.\s*|\s+){_WORDS})\b",
    re.IGNORECASE,
)
# Separators and marks a stem may end on once the marker is cut ("Higurashi Hou - ").
_TRAILING: Final = re.compile(r"[\s\-:–—,.(\[|~]+$")
_MARKS: Final = str.maketrans("", "", "™®©")
_NON_ALNUM: Final = re.compile(r"[^0-9a-z]+")
MIN_PARTS: Final = 2


@dataclass(frozen=True, slots=True)
class Series:
    """One work in parts: its ``name`` (the shared stem of its parts' names) and the number of
    ``parts`` (>= 2) the catalogue rates."""

    name: str
    parts: int

    def wire(self) -> dict[str, str | int]:
        """Return the wire value ``{"name": str, "parts": int}`` (docs/API.md#series)."""
        return {"name": self.name, "parts": self.parts}


def stem(name: str) -> str | None:
    """Given a game's name, return the work's name before its part marker ("Higurashi When
    They Cry Hou - Ch.3 Tatarigoroshi" -> "Higurashi When They Cry Hou"), or None when the name
    has no marker or nothing before it."""
    found = _MARKER.search(name.translate(_MARKS))
    if found is None:
        return None
    head = _TRAILING.sub("", name.translate(_MARKS)[: found.start()]).strip()
    return head or None


def _key(text: str) -> str:
    return _NON_ALNUM.sub("", text.casefold())


def find_series(games: Iterable[tuple[int, str, str | None]]) -> dict[int, Series]:
    """Given games as ``(appid, name, studio)`` in list order (best first; ``studio`` the
    developer, else the publisher, else None), return ``{appid: Series}`` for every game that is
    a part of a series: two or more games with the same stem (:func:`stem`, compared case- and
    punctuation-insensitively) and the same studio. Games with no studio are never grouped."""
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for appid, name, studio in games:
        head = stem(name)
        if head is None or not studio or not _key(head) or not _key(studio):
            continue
        groups.setdefault((_key(head), _key(studio)), []).append((appid, head))
    out: dict[int, Series] = {}
    for parts in groups.values():
        if len(parts) < MIN_PARTS:
            continue
        series = Series(parts[0][1], len(parts))
        for appid, _ in parts:
            out[appid] = series
    return out


def once_per_series(items: Sequence[dict[str, object]]) -> list[dict[str, object]]:
    """Given list items in list order (each with its ``series`` wire value or None), return them
    with every part after a series' first left out: the website's lists show a series once, at
    its best part."""
    seen: set[object] = set()
    out: list[dict[str, object]] = []
    for item in items:
        series = item.get("series")
        if isinstance(series, dict):
            key = series.get("name")
            if key in seen:
                continue
            seen.add(key)
        out.append(item)
    return out
