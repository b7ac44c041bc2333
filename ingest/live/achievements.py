"""Achievements adapter: global unlock percentages per app, and ``finish_rate`` derived from them.

Endpoint: ``api.steampowered.com/IPlayerService/GetGameAchievements/v1/`` with ``appid=<id>``
and ``language=english`` (no key). Each achievement carries ``internal_name``,
``localized_name``, ``localized_desc``, ``hidden`` and ``player_percent_unlocked`` (a string,
percent of owners). The older ``ISteamUserStats/GetGlobalAchievementPercentagesForApp/v2``
shape (``name``/``percent`` only) is parsed too, but bare internal names rarely name the ending.

Finishing rule (which achievement marks finishing the game), in order:
1. Named: an achievement whose name or description says the game was finished: a finishing
   verb ("finish", "complete", "beat", "clear") with a whole-game object ("the game", "the
   story", "the campaign", "the main quest", "final boss/chapter/mission/level/act"), or the
   words "ending", "credits" or "the end"; and no challenge qualifier (a difficulty above
   normal such as hard/insane, "all", "every", "without", "no damage", "under N", "speedrun",
   NG+, co-op, 100%). Several endings are alternatives, so the rate is the highest percentage
   among the matches: every finisher unlocks at least one, so the highest is the tightest
   lower bound on finishers.
2. Last chapter (a documented estimate): failing names, if two or more achievements are
   numbered parts of a series ("Chapter 3", "Act II", "Episode four") the highest-numbered
   one's percentage is used (an estimate; the resolver lists every ``finish_rate`` in
   ``estimated``).
3. Otherwise None: no rarest-achievement or median guess stands in for an unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bangscore.ingest.live.http import PoliteClient
from bangscore.scoring.records import GameRecord, SourceName

_VERB = r"(finish(ed|es|ing)?|complet(e|ed|es|ing)|beat(en|s|ing)?|clear(ed|s)?)"
_WHOLE = r"(the (game|story|campaign|main (story|quest)|adventure)|main (story|quest)"
_WHOLE += r"|final (boss|chapter|mission|level|act))"
NAMED_FINISH = re.compile(rf"\b{_VERB}\b.*\b{_WHOLE}\b|\b(ending|credits|the end)\b", re.IGNORECASE)
CHALLENGE = re.compile(
    r"\b(hard|harder|hardest|insane|nightmare|expert|veteran|legendary|brutal|extreme|"
    r"impossible|ironman|permadeath|hardcore|speedrun|all|every|without|"
    r"no damage|deathless|under \d+|within \d+|less than|twice|again|new game|ng\+|co-?op)\b"
    r"|100%",
    re.IGNORECASE,
)
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ROMAN = {"i": 1, "v": 5, "x": 10}
NUMBERED_PART = re.compile(
    r"\b(chapter|act|episode|part)\s+(\d+|[ivx]+|" + "|".join(_NUMBER_WORDS) + r")\b",
    re.IGNORECASE,
)
FinishRule = Literal["named", "last_chapter", "none"]


@dataclass(frozen=True)
class Achievement:
    """One achievement: internal name, display name, description, unlock fraction 0..1."""

    internal_name: str
    display_name: str
    description: str
    unlocked: float


@dataclass(frozen=True)
class FinishRate:
    """A derived finish rate 0..1 (or None), the rule that gave it, and the achievement used."""

    rate: float | None
    rule: FinishRule
    achievement: str | None


def parse_achievements(payload: Mapping[str, Any]) -> list[Achievement]:
    """Given a GetGameAchievements or GetGlobalAchievementPercentagesForApp response, parse it.

    Percentages (strings or numbers, 0..100) become fractions 0..1. Returns [] if none.
    """
    if "achievementpercentages" in payload:
        items = (payload["achievementpercentages"] or {}).get("achievements") or []
        # Only internal names here; underscores become spaces so "ACH_GAME_ENDING" reads as words.
        return [
            Achievement(
                str(a["name"]), str(a["name"]).replace("_", " "), "", float(a["percent"]) / 100
            )
            for a in items
        ]
    items = (payload.get("response") or {}).get("achievements") or []
    return [
        Achievement(
            internal_name=str(a.get("internal_name", "")),
            display_name=str(a.get("localized_name", "")),
            description=str(a.get("localized_desc", "")),
            unlocked=float(a.get("player_percent_unlocked") or 0) / 100,
        )
        for a in items
    ]


def _part_number(token: str) -> int | None:
    word = token.lower()
    if word.isdigit():
        return int(word)
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS.index(word) + 1
    if set(word) <= set(_ROMAN):
        values = [_ROMAN[c] for c in word]
        return sum(-v if v < nxt else v for v, nxt in zip(values, [*values[1:], 0], strict=True))
    return None


def derive_finish_rate(achievements: Sequence[Achievement]) -> FinishRate:
    """Given an app's achievements, return its finish rate by the module's documented rule."""
    named = [
        a
        for a in achievements
        if NAMED_FINISH.search(text := f"{a.display_name} {a.description}")
        and not CHALLENGE.search(text)
    ]
    if named:
        best = max(named, key=lambda a: a.unlocked)
        return FinishRate(min(1.0, best.unlocked), "named", best.display_name)
    numbered: list[tuple[int, Achievement]] = []
    for a in achievements:
        text = f"{a.display_name} {a.description}"
        match = NUMBERED_PART.search(text)
        if match and not CHALLENGE.search(text):
            number = _part_number(match.group(2))
            if number is not None:
                numbered.append((number, a))
    if len(numbered) >= 2:
        number, last = max(numbered, key=lambda pair: (pair[0], -pair[1].unlocked))
        return FinishRate(min(1.0, last.unlocked), "last_chapter", last.display_name)
    return FinishRate(None, "none", None)


@dataclass(frozen=True)
class AchievementsAdapter:
    """Adapter: refresh ``finish_rate`` from global achievement percentages."""

    api_base: str
    name: str = "achievements"
    source: SourceName = "player_stats"

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return ``{"finish_rate": rate}``, or None.

        None when the app has no achievements or no rule applies: the previous value stays.
        """
        url = f"{self.api_base.rstrip('/')}/IPlayerService/GetGameAchievements/v1/"
        params: dict[str, str | int] = {"appid": record.appid, "language": "english"}
        result = derive_finish_rate(parse_achievements(client.get_json(url, params)))
        return None if result.rate is None else {"finish_rate": round(result.rate, 4)}
