"""How a game is played, from its storefront tags: replayable (its hours are not bounded by a
story) or built on hours that are not play (*unattended*): idle, clicker and incremental
games, whose hours run while nobody plays, and tools and ambient apps (aim trainers such as
KovaaK's, utilities, focus and desktop companions such as Virtual Cottage), whose hours are
open-ended use rather than a game to get through.

Used by the value model (:mod:`scoring.value`) and by ingest's length cross-check, which does
not expect a replayable game's reviewers to stop at the story's length. Tags are Steam user
tags; only the first :data:`TAG_WINDOW` (most-voted first) count, as lower tags are often
incidental. Matching ignores case and punctuation, as :mod:`scoring.genres` does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Final

TAG_WINDOW: Final = 10
# Replay credit is hours added to a score, so it needs stronger evidence than the length check
# does: a replay tag among the first REPLAY_CREDIT_WINDOW tags (the most-voted; the storefront
# publishes ranks, not vote counts). Lower tags are often a joke or a side mode: Coconut
# Simulator's "eSports" and "Life Sim", a single-player story's "Co-op" achievement hunt.
REPLAY_CREDIT_WINDOW: Final = 5

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


@functools.lru_cache(maxsize=4096)
def _key(name: str) -> str:
    # Cached: a catalog has a few hundred distinct tags over a hundred thousand games.
    return _NON_ALNUM.sub("", name.casefold())


REPLAYABLE_TAGS: Final = frozenset(
    _key(t)
    for t in (
        "Roguelike",
        "Roguelite",
        "Action Roguelike",
        "Roguelike Deckbuilder",
        "Traditional Roguelike",
        "Deckbuilding",
        "Card Battler",
        "Co-op",
        "Online Co-Op",
        "Local Co-Op",
        "Sandbox",
        "Open World Survival Craft",
        "Survival",
        "Crafting",
        "Building",
        "Base Building",
        "Colony Sim",
        "City Builder",
        "Automation",
        "Factory Building",
        "PvP",
        "Online PvP",
        "Competitive",
        "eSports",
        "Multiplayer",
        "Massively Multiplayer",
        "MMORPG",
        "MOBA",
        "Battle Royale",
        "Hero Shooter",
        "Arena Shooter",
        "Procedural Generation",
        "Replay Value",
        "Grand Strategy",
        "4X",
        "Auto Battler",
        "Sports",
        "Racing",
        "Fighting",
        "Party Game",
        "Level Editor",
        "Moddable",
        "Life Sim",
        "Farming Sim",
        "Management",
        "Rhythm",
    )
)
IDLE_TAGS: Final = frozenset(
    _key(t) for t in ("Idler", "Idle", "Clicker", "Incremental", "Idle Clicker")
)
# Steam's user tags for software: a game's players vote them into its top tags when it is used
# rather than played (KovaaK's: "Software Training"; Virtual Cottage: "Utilities").
TOOL_TAGS: Final = frozenset(_key(t) for t in ("Software Training", "Utilities"))
UNATTENDED_TAGS: Final = IDLE_TAGS | TOOL_TAGS
# Steam's user tags for games whose hours are play rather than content (docs/API.md#the-score:
# sandbox, simulation, management, survival-craft, MMO): their HowLongToBeat "main story" is
# how long people keep playing (Farming Simulator 22: 177 h), not a story's length. "Immersive
# Sim" is a story genre (Deus Ex, Prey) and is not here.
OPEN_ENDED_NAMES: Final = (
    "Sandbox",
    "Simulation",
    "Farming Sim",
    "Life Sim",
    "Automobile Sim",
    "Management",
    "Resource Management",
    "Economy",
    "City Builder",
    "Colony Sim",
    "Base Building",
    "Building",
    "Automation",
    "Factory Building",
    "Survival",
    "Open World Survival Craft",
    "Survival Craft",
    "Crafting",
    "MMORPG",
    "Massively Multiplayer",
)
OPEN_ENDED_TAGS: Final = frozenset(_key(t) for t in OPEN_ENDED_NAMES)


def _window(tags: Iterable[str], size: int = TAG_WINDOW) -> set[str]:
    return {_key(t) for i, t in enumerate(tags) if i < size}


def is_replayable(tags: Iterable[str]) -> bool:
    """Given tags most-voted first, return True when one of the top :data:`TAG_WINDOW` says the
    game is replayed rather than finished (roguelike, co-op, sandbox, competitive...)."""
    return bool(_window(tags) & REPLAYABLE_TAGS)


def earns_replay_credit(tags: Iterable[str]) -> bool:
    """Given tags most-voted first, return True when one of the first
    :data:`REPLAY_CREDIT_WINDOW` is a replay tag: the evidence the score needs before it credits
    replay depth (:mod:`scoring.value`). Stricter than :func:`is_replayable`, which only keeps
    the length check from expecting a replayable game's players to stop at its story."""
    return bool(_window(tags, REPLAY_CREDIT_WINDOW) & REPLAYABLE_TAGS)


def is_open_ended(tags: Iterable[str]) -> bool:
    """Given tags most-voted first, return True when one of the first
    :data:`REPLAY_CREDIT_WINDOW` marks a sandbox, simulation, management, survival-craft or MMO
    game (:data:`OPEN_ENDED_TAGS`): its main story is play time, which the score counts as
    content only up to a multiple of its genre's normal length (:mod:`scoring.value`)."""
    return bool(_window(tags, REPLAY_CREDIT_WINDOW) & OPEN_ENDED_TAGS)


def is_unattended(tags: Iterable[str]) -> bool:
    """Given tags most-voted first, return True when one of the top :data:`TAG_WINDOW` marks an
    idle, clicker or incremental game, or a tool or ambient app: hours that are not play."""
    return bool(_window(tags) & UNATTENDED_TAGS)
