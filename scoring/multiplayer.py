"""Whether a game is played mainly with others, online (:func:`multiplayer_first`), from its
storefront categories, user tags by rank and storefront genres, and how names are matched
(:func:`key`: case, spaces and punctuation ignored). :mod:`scoring.genres` files such a game
under ``multiplayer`` (docs/API.md#genres); the length's source follows it too
(ingest/resolve/lengths.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Final

# The first this many user tags are a game's own (the genre rule's window too).
TAG_WINDOW: Final = 5

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


@functools.lru_cache(maxsize=4096)  # a few hundred distinct names, read for every app rated
def key(name: str) -> str:
    """Given a tag, category or genre name, return its matching key: casefolded, without
    spaces or punctuation ("Rogue-like" and "roguelike" are one key)."""
    return _NON_ALNUM.sub("", name.casefold())


def keys(*names: str) -> frozenset[str]:
    """Given names, return the set of their :func:`key`."""
    return frozenset(key(n) for n in names)


# -- Multiplayer-first ---------------------------------------------------------------------------
#
# Steam's store categories (PICS ``category``, appdetails ``categories``) say which ways a game can
# be played; the user tags by rank say how players actually play it. A game is multiplayer-first
# when it is played mainly with others, online: then its value is how long people keep playing,
# not a campaign's length (docs/API.md#genres). Decisions on well-known games, from their real
# PICS records of 2026-07-24 (data/raw/steam_pics_2026):
#
# - Counter-Strike 2, Dota 2, PUBG, Apex, Rust, Sea of Thieves, Dead by Daylight: no
#   "Single-player" category and online play: yes.
# - Battlefield 6 (tags Multiplayer, FPS...), Call of Duty (FPS, Multiplayer...), Lethal Company
#   (Online Co-Op...), Deep Rock Galactic (Dwarves, Co-op...): a campaign or solo mode exists, but
#   players rank a multiplayer tag first or second: yes.
# - Path of Exile 2, Destiny 2, Warframe: an MMO form (category, storefront genre or tag): yes.
# - Elden Ring, Baldur's Gate 3, GTA V, Stardew Valley, Borderlands 2, Terraria: online modes
#   ranked third or lower under the game's own genre tags: no, their length is their campaign.
# - It Takes Two, A Way Out, Resident Evil 5: made for two players, but a story campaign
#   ("Story Rich" or "Co-op Campaign" among the first ten tags): no, HLTB's main story measures
#   them. Overcooked! 2 and Cuphead (local co-op ranked above online): no.

# Categories that need a network. The bare "Multiplayer"/"Co-op"/"PvP" categories count as online
# too unless a shared-screen category says the players may be on one couch.
# The 2019 store dump spells some older ones differently ("Online Multi-Player",
# "Local Co-op"); both spellings are listed.
ONLINE_CATEGORIES: Final = keys(
    "Online PvP",
    "Online Co-op",
    "Online Multi-Player",
    "MMO",
    "Cross-Platform Multiplayer",
    "LAN PvP",
    "LAN Co-op",
)
ANY_MULTIPLAYER_CATEGORIES: Final = keys("Multiplayer", "Co-op", "PvP") | ONLINE_CATEGORIES
LOCAL_CATEGORIES: Final = keys(
    "Shared/Split Screen",
    "Shared/Split Screen Co-op",
    "Shared/Split Screen PvP",
    "Local Co-op",
    "Local Multi-Player",
)
SINGLE_PLAYER_CATEGORY: Final = key("Single-player")
# Forms that exist only with other players online, wherever they rank among the first
# ONLINE_FORM_WINDOW tags (Warframe's "Massively Multiplayer" is its 8th).
ONLINE_FORM_TAGS: Final = keys(
    "MMORPG",
    "MMO",
    "Massively Multiplayer",
    "MOBA",
    "Battle Royale",
    "Social Deduction",
    "Extraction Shooter",
    "Hero Shooter",
)
ONLINE_FORM_WINDOW: Final = 10
# Tags saying "played with others" that decide only when players rank them first or second.
PLAYED_WITH_OTHERS_TAGS: Final = keys(
    "Multiplayer",
    "Online Co-Op",
    "Co-op",
    "PvP",
    "Online PvP",
    "Massively Multiplayer",
    "Team-Based",
    "Competitive",
    "eSports",
    "PvE",
)
PLAYED_WITH_OTHERS_WINDOW: Final = 2
LOCAL_TAGS: Final = keys(
    "Local Co-Op", "Local Multiplayer", "Split Screen", "4 Player Local", "Couch Co-Op"
)
ONLINE_TAGS: Final = keys("Online Co-Op", "Online PvP", "MMO", "MMORPG", "Massively Multiplayer")
STORY_TAGS: Final = keys("Story Rich", "Co-op Campaign")
STORY_WINDOW: Final = 10


def outranks(tags: Sequence[str], these: frozenset[str], those: frozenset[str]) -> bool:
    """Whether one of ``these`` is among the first :data:`TAG_WINDOW` tags, ranked above every
    one of ``those``."""
    for tag in tags[:TAG_WINDOW]:
        if tag in those:
            return False
        if tag in these:
            return True
    return False


def multiplayer_first(
    categories: Sequence[str],
    tags: Sequence[str],
    storefront_genres: Sequence[str] = (),
) -> bool:
    """Given a game's storefront categories (Steam's "Single-player", "Multiplayer",
    "Online PvP", "Online Co-op", "MMO"...; any order), its user tags (most-voted first) and its
    storefront genres, return whether it is played mainly with others, online (docs/API.md#genres):
    its length is then how long players play, not a campaign's.

    True when the game can be played online (an online category, or a bare multiplayer one with
    no shared-screen category) and one of:

    1. an online-only form: the "MMO" category, the storefront genre "Massively Multiplayer", or
       an MMO/MOBA/battle-royale/social-deduction/extraction/hero-shooter tag within the first
       :data:`ONLINE_FORM_WINDOW` tags;
    2. no "Single-player" category;
    3. players rank a multiplayer tag ("Multiplayer", "Online Co-Op", "Co-op", "PvP"...) first
       or second, unless local-play tags outrank online ones (Overcooked! 2).

    Neither 2 nor 3 holds for a story campaign: "Story Rich" or "Co-op Campaign" among the
    first :data:`STORY_WINDOW` tags (It Takes Two, A Way Out, Resident Evil 5).

    With no categories at all (apps only an older dump knows), only 1 and 3 can apply, with
    online play assumed. Names match case- and punctuation-insensitively; unknown names are
    ignored. Never raises.
    """
    cats = frozenset(key(c) for c in categories)
    ranked = [key(t) for t in tags]
    genres = frozenset(key(g) for g in storefront_genres)
    if cats:
        online = bool(cats & ONLINE_CATEGORIES) or (
            bool(cats & ANY_MULTIPLAYER_CATEGORIES) and not cats & LOCAL_CATEGORIES
        )
        if not online:
            return False
    if key("MMO") in cats or key("Massively Multiplayer") in genres:
        return True
    if any(t in ONLINE_FORM_TAGS for t in ranked[:ONLINE_FORM_WINDOW]):
        return True
    if any(t in STORY_TAGS for t in ranked[:STORY_WINDOW]):
        return False
    if cats and SINGLE_PLAYER_CATEGORY not in cats:
        return True
    if outranks(ranked, LOCAL_TAGS, ONLINE_TAGS):
        return False
    return any(t in PLAYED_WITH_OTHERS_TAGS for t in ranked[:PLAYED_WITH_OTHERS_WINDOW])
