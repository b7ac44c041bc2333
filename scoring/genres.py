"""One genre per game, from storefront genres, user tags and length (docs/API.md#genres),
falling back on the play-length source's genres.

The storefront gives several genres per game and players vote on dozens of tags, but the API
files every game under exactly one of :data:`GENRES`. :func:`genre_for` walks :data:`RULES` in
order and returns the genre of the first rule that matches the storefront genres and tags.
Only when none does, it walks :data:`RULES` again over the fallback genres (HowLongToBeat's,
for games released after the 2019 store dump, which have neither storefront genres nor tags),
and only then answers ``other``. Storefront genres and tags therefore always win over the
fallback, whatever rule the fallback would match.

Why this order:

1. ``roguelike`` first: the tag names a run-based structure that defines the game more than
   its combat does (Hades is an action RPG and Slay the Spire a card strategy game, but both
   are played as roguelikes).
2. ``multiplayer`` for online-only forms (MMO, MOBA, battle royale, the storefront's
   "Massively Multiplayer"): their value lies in the service, not in a story length (Dota 2).
3. ``shooter``, 4. ``strategy``, 5. ``rpg``, 6. ``narrative``: the genre-defining tags, from the
   most to the least specific about how the game plays. A shooter with RPG elements
   (Borderlands) stays a shooter; a grand strategy game tagged RPG (Crusader Kings) stays
   strategy; an RPG tagged "Story Rich" (The Witcher 3) stays an RPG.
7. ``multiplayer`` again for the plain "Multiplayer"/"PvP" tags, but only as the game's
   most-voted tag: nearly every game with an online mode carries them further down (GTA V).
8. Storefront genres Strategy and RPG, for games whose tags said nothing specific.
9. ``indie_short``: an indie game (storefront genre or tag) whose main story takes under
   :data:`INDIE_SHORT_HOURS`; with no known length, the "Short" tag stands in. It comes after
   the genre rules so a short indie shooter is still a shooter.
10. ``action``: the storefront's broadest genre and action-like tags (platformer, hack and
    slash, metroidvania...), last because so many games carry it.

Matching ignores case, spaces and punctuation ("Rogue-like" = "roguelike" = "ROGUE LIKE"; the
"&" of "Point & Click" is punctuation too, so "Point and Click" is listed separately). Only
the first :data:`TAG_WINDOW` tags (most-voted first) count: lower tags are often incidental.
Tag names are Steam user tags; storefront genres are Steam's; a few HowLongToBeat genre
spellings ("Role-Playing", "Battle Arena", "Tactical role-playing") are included for the
fallback. Fallback genres are matched against both the tag and the storefront-genre names of a
rule, wherever they stand in their list: HLTB lists a game's two or three genres in no vote
order, so the tag window does not apply to them.

"Point & Click" (HLTB: "Point-and-Click") says how a game is controlled, not that it tells a
story: Steam players put it on clickers, coloring books, hidden-object and time-management
games (Burger Shop 3, Coloring Game 2, Capybara Spa), HLTB on mouse-driven games (Don't Starve
Together, LYNE). So it means ``narrative`` only for an adventure: alongside "Adventure" or
"Hidden Object" among the storefront genres or anywhere in the tags
(:data:`POINT_AND_CLICK_WITH`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

GENRES: Final = (
    "rpg",
    "shooter",
    "strategy",
    "narrative",
    "roguelike",
    "multiplayer",
    "indie_short",
    "action",
    "other",
)

TAG_WINDOW: Final = 5
INDIE_SHORT_HOURS: Final = 5.0

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def _key(name: str) -> str:
    return _NON_ALNUM.sub("", name.casefold())


def _keys(*names: str) -> frozenset[str]:
    return frozenset(_key(n) for n in names)


@dataclass(frozen=True, slots=True)
class Rule:
    """One line of the mapping: ``genre`` when any of ``tags`` (within the top ``tag_window``)
    or any of ``storefront_genres`` is present and, if ``short_only``, the game is short (main
    story under :data:`INDIE_SHORT_HOURS`, or the "Short" tag when the length is unknown) and,
    if ``alongside`` is not empty, one of its names is a storefront genre or a tag anywhere.
    Names are stored normalized (see ``_key``)."""

    genre: str
    tags: frozenset[str] = frozenset()
    storefront_genres: frozenset[str] = frozenset()
    tag_window: int = TAG_WINDOW
    short_only: bool = False
    # When not empty: one of these names must also be among the storefront genres or the tags
    # (at any position).
    alongside: frozenset[str] = frozenset()


ROGUELIKE_TAGS: Final = _keys(
    "Roguelike",
    "Roguelite",
    "Rogue-like",
    "Rogue-lite",
    "Action Roguelike",
    "Roguelike Deckbuilder",
    "Traditional Roguelike",
    "Roguevania",
)
ONLINE_ONLY_TAGS: Final = _keys(
    "MMORPG", "MMO", "MOBA", "Battle Royale", "Massively Multiplayer", "Battle Arena"
)
SHOOTER_TAGS: Final = _keys(
    "FPS",
    "Shooter",
    "First-Person Shooter",
    "Third-Person Shooter",
    "Looter Shooter",
    "Arena Shooter",
    "Hero Shooter",
    "Tactical Shooter",
    "Boomer Shooter",
    "Top-Down Shooter",
    "Twin Stick Shooter",
    "On-Rails Shooter",
    "Shoot 'Em Up",
    "Shmup",
    "Run and Gun",
)
STRATEGY_TAGS: Final = _keys(
    "Strategy",
    "RTS",
    "Real-Time Strategy",
    "Turn-Based Strategy",
    "TBS",
    "Grand Strategy",
    "4X",
    "Tower Defense",
    "City Builder",
    "City-Building",
    "Colony Sim",
    "Real-Time Tactics",
    "Turn-Based Tactics",
    "Strategy/Tactical",
    "Wargame",
    "Auto Battler",
)
RPG_TAGS: Final = _keys(
    "RPG",
    "JRPG",
    "CRPG",
    "Action RPG",
    "ARPG",
    "Party-Based RPG",
    "Tactical RPG",
    "Strategy RPG",
    "Role-Playing",
    "Tactical role-playing",
    "Action role-playing",
    "Dungeon Crawler",
)
POINT_AND_CLICK_TAGS: Final = _keys("Point & Click", "Point and Click")
POINT_AND_CLICK_WITH: Final = _keys("Adventure", "Hidden Object")
NARRATIVE_TAGS: Final = _keys(
    "Story Rich",
    "Visual Novel",
    "Interactive Fiction",
    "Walking Simulator",
    "Choices Matter",
    "Choose Your Own Adventure",
    "Dating Sim",
    "Otome",
    "FMV",
    "Full Motion Video (FMV)",
    "Text-Based",
    "Detective",
)
MULTIPLAYER_TAGS: Final = _keys(
    "Multiplayer", "PvP", "Online PvP", "Competitive", "Team-Based", "eSports"
)
ACTION_TAGS: Final = _keys(
    "Action",
    "Platformer",
    "Platform",
    "Hack and Slash",
    "Metroidvania",
    "Souls-like",
    "Fighting",
    "Beat 'em up",
    "Action-Adventure",
    "Character Action Game",
)
INDIE_NAMES: Final = _keys("Indie")
SHORT_TAGS: Final = _keys("Short")

RULES: Final = (
    Rule("roguelike", tags=ROGUELIKE_TAGS),
    Rule("multiplayer", tags=ONLINE_ONLY_TAGS, storefront_genres=_keys("Massively Multiplayer")),
    Rule("shooter", tags=SHOOTER_TAGS),
    Rule("strategy", tags=STRATEGY_TAGS),
    Rule("rpg", tags=RPG_TAGS),
    Rule("narrative", tags=NARRATIVE_TAGS),
    Rule("narrative", tags=POINT_AND_CLICK_TAGS, alongside=POINT_AND_CLICK_WITH),
    Rule("multiplayer", tags=MULTIPLAYER_TAGS, tag_window=1),
    Rule("strategy", storefront_genres=_keys("Strategy")),
    Rule("rpg", storefront_genres=_keys("RPG")),
    Rule("indie_short", tags=INDIE_NAMES, storefront_genres=INDIE_NAMES, short_only=True),
    Rule("action", tags=ACTION_TAGS, storefront_genres=_keys("Action")),
)


# -- Multiplayer-first ---------------------------------------------------------------------------
#
# Steam's store categories (PICS ``category``, appdetails ``categories``) say which ways a game can
# be played; the user tags by rank say how players actually play it. A game is multiplayer-first
# when it is played mainly with others, online: then its value is how long people keep playing,
# not a campaign's length (CONTRACT round 4). Decisions on the brief's examples, from their real
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
# - It Takes Two, A Way Out, Split Fiction: made for exactly two players, but a story campaign
#   played on one couch as much as online (split-screen categories, "Story Rich"): no, HLTB's
#   main story measures them. Overcooked! 2 and Cuphead (local co-op ranked above online): no.

# Categories that need a network. The bare "Multiplayer"/"Co-op"/"PvP" categories count as online
# too unless a shared-screen category says the players may be on one couch.
# The 2019 store dump spells some older ones differently ("Online Multi-Player",
# "Local Co-op"); both spellings are listed.
ONLINE_CATEGORIES: Final = _keys(
    "Online PvP",
    "Online Co-op",
    "Online Multi-Player",
    "MMO",
    "Cross-Platform Multiplayer",
    "LAN PvP",
    "LAN Co-op",
)
ANY_MULTIPLAYER_CATEGORIES: Final = _keys("Multiplayer", "Co-op", "PvP") | ONLINE_CATEGORIES
LOCAL_CATEGORIES: Final = _keys(
    "Shared/Split Screen",
    "Shared/Split Screen Co-op",
    "Shared/Split Screen PvP",
    "Local Co-op",
    "Local Multi-Player",
)
SINGLE_PLAYER_CATEGORY: Final = _key("Single-player")
# Forms that exist only with other players online, wherever they rank among the first
# ONLINE_FORM_WINDOW tags (Warframe's "Massively Multiplayer" is its 8th).
ONLINE_FORM_TAGS: Final = _keys(
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
PLAYED_WITH_OTHERS_TAGS: Final = _keys(
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
LOCAL_TAGS: Final = _keys(
    "Local Co-Op", "Local Multiplayer", "Split Screen", "4 Player Local", "Couch Co-Op"
)
ONLINE_TAGS: Final = _keys("Online Co-Op", "Online PvP", "MMO", "MMORPG", "Massively Multiplayer")
STORY_TAGS: Final = _keys("Story Rich", "Co-op Campaign")
STORY_WINDOW: Final = 10


def _local_first(tags: Sequence[str]) -> bool:
    """A local-play tag among the first five ranks above every online-play tag."""
    for tag in tags[:TAG_WINDOW]:
        if tag in ONLINE_TAGS:
            return False
        if tag in LOCAL_TAGS:
            return True
    return False


def multiplayer_first(
    categories: Sequence[str],
    tags: Sequence[str],
    storefront_genres: Sequence[str] = (),
) -> bool:
    """Given a game's storefront categories (Steam's "Single-player", "Multiplayer",
    "Online PvP", "Online Co-op", "MMO"...; any order), its user tags (most-voted first) and its
    storefront genres, return whether it is played mainly with others, online (CONTRACT round 4):
    its length is then how long players play, not a campaign's.

    True when the game can be played online (an online category, or a bare multiplayer one with
    no shared-screen category) and one of:

    1. an online-only form: the "MMO" category, the storefront genre "Massively Multiplayer", or
       an MMO/MOBA/battle-royale/social-deduction/extraction/hero-shooter tag within the first
       :data:`ONLINE_FORM_WINDOW` tags;
    2. no "Single-player" category, unless "Story Rich" or "Co-op Campaign" is among the first
       :data:`STORY_WINDOW` tags or local-play tags outrank online ones (two-player story
       campaigns such as It Takes Two);
    3. players rank a multiplayer tag ("Multiplayer", "Online Co-Op", "Co-op", "PvP"...) first
       or second, unless local-play tags outrank online ones (Overcooked! 2).

    With no categories at all (apps only an older dump knows), only 1 and 3 can apply, with
    online play assumed. Names match case- and punctuation-insensitively; unknown names are
    ignored. Never raises.
    """
    cats = frozenset(_key(c) for c in categories)
    ranked = [_key(t) for t in tags]
    genres = frozenset(_key(g) for g in storefront_genres)
    if cats:
        online = bool(cats & ONLINE_CATEGORIES) or (
            bool(cats & ANY_MULTIPLAYER_CATEGORIES) and not cats & LOCAL_CATEGORIES
        )
        if not online:
            return False
    if _key("MMO") in cats or _key("Massively Multiplayer") in genres:
        return True
    if any(t in ONLINE_FORM_TAGS for t in ranked[:ONLINE_FORM_WINDOW]):
        return True
    if _local_first(ranked):
        return False
    if cats and SINGLE_PLAYER_CATEGORY not in cats:
        return not any(t in STORY_TAGS for t in ranked[:STORY_WINDOW])
    return any(t in PLAYED_WITH_OTHERS_TAGS for t in ranked[:PLAYED_WITH_OTHERS_WINDOW])


def _is_short(tags: Sequence[str], main_story_hours: float | None) -> bool:
    if main_story_hours is None:
        return any(t in SHORT_TAGS for t in tags[:TAG_WINDOW])
    return main_story_hours < INDIE_SHORT_HOURS


def _matches(
    rule: Rule,
    storefront: frozenset[str],
    tags: Sequence[str],
    main_story_hours: float | None,
    *,
    unordered: bool,
) -> bool:
    window = tags if unordered else tags[: rule.tag_window]
    named = bool(rule.storefront_genres & storefront) or any(t in rule.tags for t in window)
    if rule.alongside and not (rule.alongside & storefront or rule.alongside.intersection(tags)):
        return False
    return named and (not rule.short_only or _is_short(tags, main_story_hours))


def _first_match(
    storefront: frozenset[str],
    tags: Sequence[str],
    main_story_hours: float | None,
    *,
    unordered: bool = False,
) -> str | None:
    for rule in RULES:
        if _matches(rule, storefront, tags, main_story_hours, unordered=unordered):
            return rule.genre
    return None


def genre_for(
    storefront_genres: Sequence[str],
    tags: Sequence[str],
    main_story_hours: float | None,
    *,
    fallback_genres: Sequence[str] = (),
) -> str:
    """Given a game's storefront genres, its user tags (most-voted first), its main-story
    length in hours (or None) and, optionally, genres from another source that are consulted
    only when the first two match no rule (``fallback_genres``: the play-length source's, e.g.
    HLTB's ``("Action", "Role-Playing")``), return its one genre, a member of :data:`GENRES`.

    Names are matched case- and punctuation-insensitively; unknown names are ignored, and a game
    with nothing recognisable is ``other``. The priority order is in the module docstring.
    """
    storefront = frozenset(_key(g) for g in storefront_genres)
    found = _first_match(storefront, [_key(t) for t in tags], main_story_hours)
    if found is None and fallback_genres:
        # Each fallback name counts both as a storefront genre and as a tag at any position.
        keys = [_key(g) for g in fallback_genres]
        found = _first_match(frozenset(keys), keys, main_story_hours, unordered=True)
    return found or "other"
