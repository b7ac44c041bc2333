"""HowLongToBeat adapter: main-story and completionist hours, matched by Steam appid.

Endpoint: ``POST howlongtobeat.com/api/search`` with a JSON body of search words (the site's
own search; not a published API, and its path has moved before, so the path is configurable).
Each result carries ``comp_main`` and ``comp_100`` in seconds (0 when unknown) and
``profile_steam``, the Steam appid the HLTB editors linked. A result counts only when
``profile_steam`` equals the appid: a name match alone is never trusted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bangscore.ingest.live.http import PoliteClient
from bangscore.scoring.records import GameRecord, SourceName

_MARKS = re.compile(r"[\u2122\u00ae\u00a9]")
_NON_WORD = re.compile(r"[^0-9a-z]+")
PAGE_SIZE = 20


@dataclass(frozen=True)
class HltbTimes:
    """HLTB hours for one game: main story and completionist (None where HLTB has none)."""

    game_id: int
    name: str
    main_story_hours: float | None
    completionist_hours: float | None


def search_words(name: str) -> list[str]:
    """Given a game name, return lowercase ASCII search words (marks and punctuation dropped)."""
    ascii_name = unicodedata.normalize("NFKD", _MARKS.sub("", name))
    ascii_name = ascii_name.encode("ascii", "ignore").decode().lower()
    return [word for word in _NON_WORD.split(ascii_name) if word]


def search_body(name: str) -> dict[str, Any]:
    """Given a game name, return the JSON body of an HLTB games search for it."""
    return {
        "searchType": "games",
        "searchTerms": search_words(name),
        "searchPage": 1,
        "size": PAGE_SIZE,
        "searchOptions": {
            "games": {
                "userId": 0,
                "platform": "",
                "sortCategory": "popular",
                "rangeCategory": "main",
                "rangeTime": {"min": None, "max": None},
                "gameplay": {"perspective": "", "flow": "", "genre": ""},
                "modifier": "",
            },
            "users": {"sortCategory": "postcount"},
            "filter": "",
            "sort": 0,
            "randomizer": 0,
        },
    }


def _hours(seconds: Any) -> float | None:
    value = int(seconds or 0)
    return round(value / 3600, 1) if value > 0 else None


def match_appid(payload: Mapping[str, Any], appid: int) -> HltbTimes | None:
    """Given an HLTB search response, return the times of the entry linked to ``appid``, or None.

    Hours are ``comp_main`` / ``comp_100`` seconds / 3600, rounded to 0.1 h; 0 means unknown.
    """
    for entry in payload.get("data") or []:
        if int(entry.get("profile_steam") or 0) == appid:
            return HltbTimes(
                game_id=int(entry["game_id"]),
                name=str(entry.get("game_name", "")),
                main_story_hours=_hours(entry.get("comp_main")),
                completionist_hours=_hours(entry.get("comp_100")),
            )
    return None


@dataclass(frozen=True)
class HltbAdapter:
    """Adapter: refresh ``main_story_hours`` and ``completionist_hours`` from HowLongToBeat."""

    base: str
    search_path: str = "/api/search"
    name: str = "hltb"
    source: SourceName = "play_length"

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return its HLTB hours, or None if no entry links to it."""
        url = f"{self.base.rstrip('/')}{self.search_path}"
        headers = {"Referer": f"{self.base.rstrip('/')}/", "Origin": self.base.rstrip("/")}
        times = match_appid(
            client.post_json(url, search_body(record.name), headers=headers), record.appid
        )
        if times is None:
            return None
        fields: dict[str, object] = {}
        if times.main_story_hours is not None:
            fields["main_story_hours"] = times.main_story_hours
        if times.completionist_hours is not None:
            fields["completionist_hours"] = times.completionist_hours
        return fields or None
