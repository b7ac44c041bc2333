"""One genre per game (docs/API.md#genres), from the storefront's genres and categories and
the user tags by rank, and whether a game is played mainly with others online.

The storefront gives several genres per game and players vote on dozens of tags, but the API
files every game under exactly one of :data:`GENRES`, as the API reference defines them
(docs/API.md#genres). :func:`genre_for` decides in this order:

1. ``roguelike``: a roguelike tag among the first :data:`TAG_WINDOW` tags. Run-based structure
   defines a game more than its combat (Hades, Slay the Spire, FTL, Risk of Rain 2).
2. ``multiplayer``: the game is :func:`multiplayer_first` and either an online-only form (MMO,
   MOBA, battle royale, social deduction) is among its first :data:`ONLINE_FORM_GENRE_WINDOW`
   tags, or players rank a "played with others" tag (Multiplayer, Online Co-Op, PvP, Party
   Game...) above every defining tag and every broad action tag among the first five, and no
   shooter tag is among the first three: a shooting game stays a ``shooter`` when it is played
   online (Counter-Strike 2, Overwatch, Battlefield 6), as players file it.
3. ``narrative``: two or more narrative forms (visual novel, interactive fiction, dating sim,
   choose-your-own-adventure, text-based, FMV, otome) among the first :data:`FORM_WINDOW` tags.
   A form says how a game is played more than an "RPG" or "Action" tag beside it; one alone is
   often a joke or a side mode (Undertale's "Dating Sim").
4. The vote: each of the first :data:`TAG_WINDOW` tags that names a genre votes for it, a
   defining tag (:data:`DEFINING`: "FPS", "CRPG", "City Builder", "Visual Novel", "Platformer",
   "Farming Sim"...) with :data:`DEFINING_VOTE`, a broad one (:data:`BROAD`: "Action", "Open
   World", "Story Rich", "Simulation", "Strategy"...) with :data:`BROAD_VOTE`, both scaled down
   by rank (the fifth tag's vote is worth :data:`RANK_DECAY` x 4/5 less than the first's); each
   storefront genre adds :data:`STOREFRONT_VOTE` to a genre the tags voted for. The most votes
   win; a tie goes to the genre whose tag players ranked highest. Two tags depend on the others:
   "Adventure" votes narrative only beside a story tag (:data:`STORY_COMPANIONS`), and a
   platformer tag votes ``other`` beside "Puzzle" (a puzzle platformer: Portal 2), and
   "Automation" (a factory builder: strategy) votes only a broad ``other`` beside an idle tag.
   A game the vote files under strategy or other that the storefront calls an RPG, with an
   RPG tag and an open-world or sandbox tag and no life-sim or survival-crafting tag among the
   first five, is a sandbox RPG: ``rpg`` (Kenshi). So Burger
   Shop 3 ("Action", "Casual", "Simulation", "Point & Click", "Time Management") is ``other``,
   Red Dead Redemption 2 ("Open World", "Story Rich", "Western", ... storefront Action,
   Adventure) ``action``, and Stardew Valley ("Farming Sim", "Pixel Graphics", "Multiplayer",
   "Life Sim", "RPG") ``other``.
5. With no vote from the tags: the storefront genres alone, the most specific first
   (:data:`STOREFRONT_PRIORITY`); with none of those either, the play-length source's genres
   (HowLongToBeat's, for games the storefront dumps do not tag) vote as tags do, at any
   position and without context.
6. ``indie_short``: a game the vote leaves ``other`` (or undecided) that is indie (storefront
   genre or tag) and whose main story takes under :data:`INDIE_SHORT_HOURS` (with no known
   length, the "Short" tag stands in), unless it is a racing, sports, life-sim or
   survival-crafting game (:data:`OTHER_KINDS` among the first five tags, or the storefront
   genre Racing or Sports). Everything else undecided is ``other``.

``other`` collects simulation, sandbox, survival crafting, racing, sports, puzzle, management,
idle, life and farming sims: :data:`DEFINING` maps their tags to it explicitly, so that they
outvote the broad "Action" or "RPG" tags such games also carry.

Matching ignores case, spaces and punctuation ("Rogue-like" = "roguelike"). Tag names are
Steam's user tags, genre and category names Steam's; a few HowLongToBeat spellings
("Role-Playing", "Battle Arena", "Racing/Driving") are included for step 5. The rule was
checked against tests/scoring/genre_labels.csv, 200 games labelled by hand before it was
written (the popular and random halves' accuracy is in tests/scoring/test_genres.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal, get_args

# The genres, as the wire names them (bangscore.contract.records reads this type).
Genre = Literal[
    "rpg",
    "shooter",
    "strategy",
    "narrative",
    "roguelike",
    "multiplayer",
    "indie_short",
    "action",
    "other",
]
GENRES: Final[tuple[Genre, ...]] = get_args(Genre)

TAG_WINDOW: Final = 5
INDIE_SHORT_HOURS: Final = 5.0

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def _key(name: str) -> str:
    return _NON_ALNUM.sub("", name.casefold())


def _keys(*names: str) -> frozenset[str]:
    return frozenset(_key(n) for n in names)


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


def _outranks(tags: Sequence[str], these: frozenset[str], those: frozenset[str]) -> bool:
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
    if any(t in STORY_TAGS for t in ranked[:STORY_WINDOW]):
        return False
    if cats and SINGLE_PLAYER_CATEGORY not in cats:
        return True
    if _outranks(ranked, LOCAL_TAGS, ONLINE_TAGS):
        return False
    return any(t in PLAYED_WITH_OTHERS_TAGS for t in ranked[:PLAYED_WITH_OTHERS_WINDOW])


# -- The genre rule -------------------------------------------------------------------------------

FORM_WINDOW: Final = 7
ONLINE_FORM_GENRE_WINDOW: Final = 4
DEFINING_VOTE: Final = 1.0
BROAD_VOTE: Final = 0.35
STOREFRONT_VOTE: Final = 0.25
RANK_DECAY: Final = 0.5

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
# Forms played only online: with :func:`multiplayer_first`, they make a game ``multiplayer``.
ONLINE_FORM_GENRE_TAGS: Final = _keys(
    "MMORPG", "MMO", "Massively Multiplayer", "MOBA", "Battle Royale", "Social Deduction"
)
WITH_OTHERS_TAGS: Final = PLAYED_WITH_OTHERS_TAGS | _keys("Party Game", "Party", "Co-op")
NARRATIVE_FORMS: Final = _keys(
    "Visual Novel",
    "Interactive Fiction",
    "Dating Sim",
    "Otome",
    "Choose Your Own Adventure",
    "Text-Based",
    "FMV",
    "Full Motion Video (FMV)",
)

# Tags (and a few HowLongToBeat genres) that define a genre: one vote each.
DEFINING: Final[dict[str, frozenset[str]]] = {
    "shooter": _keys(
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
        "Extraction Shooter",
    ),
    "strategy": _keys(
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
        "Real Time Tactics",
        "Real-Time Tactics",
        "Turn-Based Tactics",
        "Strategy/Tactical",
        "Wargame",
        "Auto Battler",
        "Action RTS",
        "Trading Card Game",
        "Card Battler",
        "Battle Arena",
        # Factory builders: decisions over an economy (docs/API.md#genres: Factorio, Satisfactory,
        # shapez, Dyson Sphere Program).
        "Automation",
        "Factory Building",
    ),
    "rpg": _keys(
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
        "Creature Collector",
    ),
    "narrative": NARRATIVE_FORMS | _keys("Walking Simulator", "Detective", "Narrative"),
    "action": _keys(
        "Platformer",
        "Platform",
        "2D Platformer",
        "3D Platformer",
        "Precision Platformer",
        "Metroidvania",
        "Hack and Slash",
        "Fighting",
        "2D Fighter",
        "3D Fighter",
        "Beat 'em up",
        "Action-Adventure",
        "Character Action Game",
        "Run and Gun",
        "Side Scroller",
    ),
    "other": _keys(
        "Farming Sim",
        "Life Sim",
        "Sports",
        "Racing",
        "Racing/Driving",
        "Driving",
        "Automobile Sim",
        "Puzzle",
        "Puzzle Platformer",
        "Logic",
        "Sokoban",
        "Time Management",
        "Open World Survival Craft",
        "Crafting",
        "Cooking",
        "Incremental",
        "Clicker",
        "Hidden Object",
        "Match 3",
        "Tabletop",
        "Mahjong",
        "Trivia",
        "Word Game",
        "Rhythm",
        "Space Sim",
        "Trains",
        "Transportation",
        "Hacking",
        "Shop Keeper",
        "God Game",
        "Agriculture",
        "Fishing",
        "Golf",
        "Football (Soccer)",
        "Basketball",
        "Pinball",
        "Medical Sim",
        "Job Simulator",
        "Political Sim",
    ),
}
# Broad tags: they lean towards a genre without defining it, half a vote each.
BROAD: Final[dict[str, frozenset[str]]] = {
    "action": _keys("Action", "Open World", "Souls-like", "Stealth", "Parkour", "Combat"),
    "strategy": _keys(
        "Strategy", "Tactical", "Turn-Based", "Building", "Base Building", "Resource Management"
    ),
    "narrative": _keys("Story Rich", "Adventure", "Mystery"),
    "other": _keys(
        "Simulation",
        "Survival",
        "Idler",
        "Flight",
        "Sandbox",
        "Management",
        "Board Game",
    ),
}
# Storefront genres (Steam's; HowLongToBeat's for step 5) and the genre each leans towards.
STOREFRONT: Final[dict[str, str]] = {
    _key("Action"): "action",
    _key("RPG"): "rpg",
    _key("Strategy"): "strategy",
    _key("Simulation"): "other",
    _key("Racing"): "other",
    _key("Sports"): "other",
}
# "Adventure" votes for narrative only beside one of these among the first STORY_WINDOW tags.
ADVENTURE: Final = _key("Adventure")
STORY_COMPANIONS: Final = NARRATIVE_FORMS | _keys(
    "Story Rich", "Mystery", "Detective", "Walking Simulator", "Narrative"
)
# "Automation" votes for a factory builder (strategy), but only as a broad ``other`` vote beside
# an idle tag in the same window.
AUTOMATION: Final = _key("Automation")
IDLE_NAMES: Final = _keys("Idler", "Idle", "Incremental", "Clicker", "Idle Clicker")
# Platformer tags vote for ``other`` when "Puzzle" is in the same window.
PUZZLE: Final = _key("Puzzle")
PLATFORMER_TAGS: Final = _keys(
    "Platformer", "Platform", "2D Platformer", "3D Platformer", "Precision Platformer"
)
# When only the storefront genres speak: RPG and Strategy say more than Action, Action more
# than Simulation, Racing or Sports ("Casual" names no genre).
STOREFRONT_PRIORITY: Final = ("rpg", "strategy", "action", "other")
INDIE_NAMES: Final = _keys("Indie")
# Step 6: a game players tag as one of these, or the storefront files under Racing or Sports, is
# ``other`` whatever its length: docs/API.md#genres puts racing, sports, life sims and survival
# crafting there, and a short racing game is a racing game, not an indie sketch.
OTHER_KINDS: Final = _keys(
    "Racing",
    "Racing/Driving",
    "Driving",
    "Automobile Sim",
    "Sports",
    "Golf",
    "Football (Soccer)",
    "Basketball",
    "Life Sim",
    "Farming Sim",
    "Open World Survival Craft",
    "Survival",
    "Crafting",
)
OTHER_STOREFRONT: Final = _keys("Racing", "Sports")
# A sandbox RPG (Kenshi: "Open World", "Party-Based RPG", "Real Time Tactics"...): an RPG tag
# and an open-world or sandbox tag among the first TAG_WINDOW, no life-sim, farming, racing,
# sports or survival-crafting tag there (My Time at Portia, Crashlands stay other), and the
# storefront files it under RPG. Its tactics serve a character in an open world, as an RPG.
SANDBOX_TAGS: Final = _keys("Open World", "Sandbox")
SHORT_TAGS: Final = _keys("Short")
# A name in two tables counts once, where it says most: the defining table first.
_VOTES: Final[dict[str, tuple[str, float]]] = {
    **{tag: (genre, BROAD_VOTE) for genre, tags in BROAD.items() for tag in tags},
    **{tag: (genre, DEFINING_VOTE) for genre, tags in DEFINING.items() for tag in tags},
}
# Tags that claim a genre of their own against "played with others" (step 2): every defining
# tag ("Puzzle" first: Jigsaw Puzzle Dreams is a puzzle game with co-op) and the broad action
# tags ("Action" first: Monster Hunter Rise). "Open World" says where a game is played, not
# with whom (Fallout 76's first tag).
_CLAIMS: Final = frozenset(
    tag
    for tag, (genre, weight) in _VOTES.items()
    if (weight == DEFINING_VOTE or genre == "action") and tag != _key("Open World")
)


def _is_short(tags: Sequence[str], main_story_hours: float | None) -> bool:
    if main_story_hours is None:
        return any(t in SHORT_TAGS for t in tags[:TAG_WINDOW])
    return main_story_hours < INDIE_SHORT_HOURS


def _multiplayer(ranked: Sequence[str]) -> bool:
    """Step 2 for a multiplayer-first game: an online-only form near the top, or a "played
    with others" tag ranked above every tag that claims a genre (:data:`_CLAIMS`)."""
    if any(t in ONLINE_FORM_GENRE_TAGS for t in ranked[:ONLINE_FORM_GENRE_WINDOW]):
        return True
    if any(_VOTES.get(t, ("", 0.0))[0] == "shooter" for t in ranked[:3]):
        return False
    return _outranks(ranked, WITH_OTHERS_TAGS, _CLAIMS)


def _genre_of(
    tag: str, ranked: Sequence[str], window: int, *, ordered: bool
) -> tuple[str, float] | None:
    """The genre one tag votes for and its weight, in the context of the game's other tags
    when they are ranked (``ordered``): HowLongToBeat's few genres are not."""
    found = _VOTES.get(tag)
    if found is None or not ordered:
        return found
    if tag == ADVENTURE and not any(t in STORY_COMPANIONS for t in ranked[:STORY_WINDOW]):
        return None  # an adventure with no story tag: exploration, not narrative (KIDS)
    if tag in PLATFORMER_TAGS and PUZZLE in ranked[:window]:
        return ("other", found[1])  # a puzzle platformer (Portal 2)
    if tag == AUTOMATION and any(t in IDLE_NAMES for t in ranked[:window]):
        return ("other", BROAD_VOTE)  # an idle game automates itself (AdVenture Capitalist)
    return found


def _vote(
    ranked: Sequence[str],
    storefront: Sequence[str],
    *,
    window: int = TAG_WINDOW,
    ordered: bool = True,
) -> str | None:
    """Step 4: the genre with the most votes from the first ``window`` tags and the storefront
    genres, a tie going to the genre of the best-ranked tag; None when no tag votes."""
    votes: dict[str, float] = {}
    first: dict[str, int] = {}
    for rank, tag in enumerate(ranked[:window]):
        vote = _genre_of(tag, ranked, window, ordered=ordered)
        if vote is not None:
            genre, weight = vote
            votes[genre] = votes.get(genre, 0.0) + weight * (1 - RANK_DECAY * rank / window)
            first.setdefault(genre, rank)
    if not votes:
        return None
    for name in storefront:
        if name in STOREFRONT and STOREFRONT[name] in votes:
            votes[STOREFRONT[name]] += STOREFRONT_VOTE
    return min(votes, key=lambda genre: (-votes[genre], first[genre]))


def _storefront_only(storefront: Sequence[str]) -> str | None:
    """Step 5 for a game none of whose tags votes: its storefront genres, the most specific
    first (:data:`STOREFRONT_PRIORITY`)."""
    named = {STOREFRONT[name] for name in storefront if name in STOREFRONT}
    return next((genre for genre in STOREFRONT_PRIORITY if genre in named), None)


def genre_for(
    storefront_genres: Sequence[str],
    tags: Sequence[str],
    main_story_hours: float | None,
    *,
    fallback_genres: Sequence[str] = (),
    categories: Sequence[str] = (),
) -> str:
    """Given a game's storefront genres, its user tags (most-voted first), its main-story
    length in hours (or None) and, optionally, genres from another source consulted only when
    no tag votes (``fallback_genres``: the play-length source's, e.g. HLTB's ``("Action",
    "Role-Playing")``) and its storefront categories (``categories``: "Single-player", "Online
    Co-op"...), return its one genre, a member of :data:`GENRES`.

    Names are matched case- and punctuation-insensitively; unknown names are ignored, and a game
    with nothing recognisable is ``other`` (or ``indie_short``). The steps are in the module
    docstring. Never raises.
    """
    storefront = [_key(g) for g in storefront_genres]
    ranked = [_key(t) for t in tags]
    if any(t in ROGUELIKE_TAGS for t in ranked[:TAG_WINDOW]):
        return "roguelike"
    if multiplayer_first(categories, tags, storefront_genres) and _multiplayer(ranked):
        return "multiplayer"
    if sum(t in NARRATIVE_FORMS for t in ranked[:FORM_WINDOW]) >= 2:
        return "narrative"
    found = _by_vote(ranked, storefront, fallback_genres)
    if found not in (None, "other"):
        return found
    if any(t in OTHER_KINDS for t in ranked[:TAG_WINDOW]) or any(
        n in OTHER_STOREFRONT for n in storefront
    ):
        return "other"
    indie = any(n in INDIE_NAMES for n in storefront) or any(t in INDIE_NAMES for t in ranked)
    if indie and _is_short(ranked, main_story_hours):
        return "indie_short"
    return "other"


def _by_vote(
    ranked: Sequence[str], storefront: Sequence[str], fallback_genres: Sequence[str]
) -> str | None:
    """Steps 4-5: the tags' vote, else the storefront genres', else the fallback genres'."""
    found = _vote(ranked, storefront)
    if found in ("strategy", "other") and _sandbox_rpg(ranked, storefront):
        return "rpg"
    if found is None:
        found = _storefront_only(storefront)
    if found is None and fallback_genres:
        keys = [_key(g) for g in fallback_genres]
        if any(t in ROGUELIKE_TAGS for t in keys):
            return "roguelike"
        found = _vote(keys, keys, window=len(keys), ordered=False)
    return found


def _sandbox_rpg(ranked: Sequence[str], storefront: Sequence[str]) -> bool:
    """Whether a game the vote files under strategy or other is a sandbox RPG: an RPG tag and
    an open-world or sandbox tag (:data:`SANDBOX_TAGS`) among the first :data:`TAG_WINDOW`,
    none of :data:`OTHER_KINDS` there, and the storefront genre RPG."""
    window = ranked[:TAG_WINDOW]
    return (
        _key("RPG") in storefront
        and any(t in DEFINING["rpg"] for t in window)
        and any(t in SANDBOX_TAGS for t in window)
        and not any(t in OTHER_KINDS for t in window)
    )
