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

from collections.abc import Sequence
from typing import Final, Literal, get_args

from bangscore.scoring.multiplayer import (
    PLAYED_WITH_OTHERS_TAGS,
    STORY_WINDOW,
    TAG_WINDOW,
    key,
    keys,
    multiplayer_first,
    outranks,
)

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

INDIE_SHORT_HOURS: Final = 5.0


# -- The genre rule -------------------------------------------------------------------------------

FORM_WINDOW: Final = 7
ONLINE_FORM_GENRE_WINDOW: Final = 4
DEFINING_VOTE: Final = 1.0
BROAD_VOTE: Final = 0.35
STOREFRONT_VOTE: Final = 0.25
RANK_DECAY: Final = 0.5

ROGUELIKE_TAGS: Final = keys(
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
ONLINE_FORM_GENRE_TAGS: Final = keys(
    "MMORPG", "MMO", "Massively Multiplayer", "MOBA", "Battle Royale", "Social Deduction"
)
WITH_OTHERS_TAGS: Final = PLAYED_WITH_OTHERS_TAGS | keys("Party Game", "Party", "Co-op")
NARRATIVE_FORMS: Final = keys(
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
    "shooter": keys(
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
    "strategy": keys(
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
    "rpg": keys(
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
    "narrative": NARRATIVE_FORMS | keys("Walking Simulator", "Detective", "Narrative"),
    "action": keys(
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
    "other": keys(
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
    "action": keys("Action", "Open World", "Souls-like", "Stealth", "Parkour", "Combat"),
    "strategy": keys(
        "Strategy", "Tactical", "Turn-Based", "Building", "Base Building", "Resource Management"
    ),
    "narrative": keys("Story Rich", "Adventure", "Mystery"),
    "other": keys(
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
    key("Action"): "action",
    key("RPG"): "rpg",
    key("Strategy"): "strategy",
    key("Simulation"): "other",
    key("Racing"): "other",
    key("Sports"): "other",
}
# "Adventure" votes for narrative only beside one of these among the first STORY_WINDOW tags.
ADVENTURE: Final = key("Adventure")
STORY_COMPANIONS: Final = NARRATIVE_FORMS | keys(
    "Story Rich", "Mystery", "Detective", "Walking Simulator", "Narrative"
)
# "Automation" votes for a factory builder (strategy), but only as a broad ``other`` vote beside
# an idle tag in the same window.
AUTOMATION: Final = key("Automation")
IDLE_NAMES: Final = keys("Idler", "Idle", "Incremental", "Clicker", "Idle Clicker")
# Platformer tags vote for ``other`` when "Puzzle" is in the same window.
PUZZLE: Final = key("Puzzle")
PLATFORMER_TAGS: Final = keys(
    "Platformer", "Platform", "2D Platformer", "3D Platformer", "Precision Platformer"
)
# When only the storefront genres speak: RPG and Strategy say more than Action, Action more
# than Simulation, Racing or Sports ("Casual" names no genre).
STOREFRONT_PRIORITY: Final = ("rpg", "strategy", "action", "other")
INDIE_NAMES: Final = keys("Indie")
# Step 6: a game players tag as one of these, or the storefront files under Racing or Sports, is
# ``other`` whatever its length: docs/API.md#genres puts racing, sports, life sims and survival
# crafting there, and a short racing game is a racing game, not an indie sketch.
OTHER_KINDS: Final = keys(
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
OTHER_STOREFRONT: Final = keys("Racing", "Sports")
# A sandbox RPG (Kenshi: "Open World", "Party-Based RPG", "Real Time Tactics"...): an RPG tag
# and an open-world or sandbox tag among the first TAG_WINDOW, no life-sim, farming, racing,
# sports or survival-crafting tag there (My Time at Portia, Crashlands stay other), and the
# storefront files it under RPG. Its tactics serve a character in an open world, as an RPG.
SANDBOX_TAGS: Final = keys("Open World", "Sandbox")
SHORT_TAGS: Final = keys("Short")
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
    if (weight == DEFINING_VOTE or genre == "action") and tag != key("Open World")
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
    return outranks(ranked, WITH_OTHERS_TAGS, _CLAIMS)


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
    storefront = [key(g) for g in storefront_genres]
    ranked = [key(t) for t in tags]
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
        keys = [key(g) for g in fallback_genres]
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
        key("RPG") in storefront
        and any(t in DEFINING["rpg"] for t in window)
        and any(t in SANDBOX_TAGS for t in window)
        and not any(t in OTHER_KINDS for t in window)
    )
