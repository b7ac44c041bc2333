"""The one-genre mapping (docs/API.md#genres), rule by rule, on real games.

Storefront genres and the top user tags below are the real ones from the bundled Steam store
dump of 2019 (data/raw/steam_store_games_2019, ``genres`` and ``steamspy_tags``); Hades,
released later, carries its HowLongToBeat genres (data/raw/hltb_2023). Hours are HLTB main
story times. The fallback cases use HLTB's ``Genres`` column of the same games (read off
data/raw/hltb_2023/hltb_clean.csv); most were released after the 2019 store dump and so have
no storefront genres or tags in the catalog.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.scoring.genres import (
    GENRES,
    INDIE_SHORT_HOURS,
    TAG_WINDOW,
    genre_for,
    multiplayer_first,
)


def test_genre_names_match_the_contract() -> None:
    assert GENRES == (
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


@pytest.mark.parametrize(
    ("storefront", "tags", "hours", "expected"),
    [
        # 1. roguelike, even over the RPG and action words it also carries.
        pytest.param(
            [], ["Action", "Roguelike", "Role-Playing"], 23.3, "roguelike", id="hades-hltb"
        ),
        pytest.param(
            ["Indie", "Strategy"],
            ["Card Game", "Turn-Based", "Rogue-like"],
            12.6,
            "roguelike",
            id="slay-the-spire-over-strategy",
        ),
        pytest.param(
            ["Action"], ["Indie", "Replay Value", "Rogue-like"], 15.0, "roguelike", id="isaac"
        ),
        # 2. online-only forms: MOBA tag, MMORPG tag, storefront "Massively Multiplayer".
        pytest.param(
            ["Action", "Free to Play", "Strategy"],
            ["Free to Play", "MOBA", "Strategy"],
            None,
            "multiplayer",
            id="dota-2-moba-over-strategy",
        ),
        pytest.param(
            ["Massively Multiplayer", "RPG"],
            ["MMORPG", "Massively Multiplayer", "RPG"],
            None,
            "multiplayer",
            id="final-fantasy-xiv",
        ),
        pytest.param(
            ["Action", "Adventure", "Massively Multiplayer"],
            ["Survival", "Shooter", "Multiplayer"],
            None,
            "multiplayer",
            id="pubg-storefront-mmo-over-shooter",
        ),
        # 3. shooter, over multiplayer and RPG tags.
        pytest.param(
            ["Action", "Free to Play"],
            ["FPS", "Multiplayer", "Shooter"],
            None,
            "shooter",
            id="counter-strike-go",
        ),
        pytest.param(["Action"], ["Action", "FPS", "Multiplayer"], 5.0, "shooter", id="cs-1.6"),
        pytest.param(
            ["Action", "RPG"], ["FPS", "Co-op", "RPG"], 30.0, "shooter", id="borderlands-2"
        ),
        # 4. strategy, over an RPG tag.
        pytest.param(
            ["Strategy"],
            ["Turn-Based Strategy", "Strategy", "Turn-Based"],
            47.3,
            "strategy",
            id="civilization-v",
        ),
        pytest.param(
            ["RPG", "Simulation", "Strategy"],
            ["Grand Strategy", "Strategy", "Medieval"],
            None,
            "strategy",
            id="crusader-kings-ii",
        ),
        # 5. rpg, over "Story Rich".
        pytest.param(["RPG"], ["Open World", "RPG", "Story Rich"], 52.6, "rpg", id="the-witcher-3"),
        pytest.param(
            ["Adventure", "RPG", "Strategy"],
            ["RPG", "Turn-Based", "Story Rich"],
            60.0,
            "rpg",
            id="divinity-os2-tag-over-storefront-strategy",
        ),
        # 6. narrative.
        pytest.param(
            ["Adventure", "Indie"],
            ["Story Rich", "Atmospheric", "Walking Simulator"],
            2.2,
            "narrative",
            id="edith-finch-over-indie-short",
        ),
        pytest.param(
            ["Casual", "Free to Play", "Indie"],
            ["Psychological Horror", "Anime", "Visual Novel"],
            4.0,
            "narrative",
            id="doki-doki-literature-club",
        ),
        # 7. plain multiplayer, only as the most-voted tag.
        pytest.param(
            ["Action", "Indie", "Racing", "Sports"],
            ["Multiplayer", "Racing", "Soccer"],
            None,
            "multiplayer",
            id="rocket-league-top-tag",
        ),
        pytest.param(
            ["Action", "Adventure"],
            ["Open World", "Action", "Multiplayer"],
            31.0,
            "action",
            id="gta-v-multiplayer-not-top",
        ),
        # 8. storefront Strategy / RPG when no tag is specific.
        pytest.param(
            ["Casual", "Indie", "Simulation", "Strategy", "Early Access"],
            ["Early Access", "Base-Building", "Resource Management"],
            40.0,
            "strategy",
            id="factorio-storefront-strategy",
        ),
        pytest.param(
            ["Action", "Adventure", "Indie", "RPG"],
            ["Sandbox", "Adventure", "Survival"],
            51.6,
            "rpg",
            id="terraria-storefront-rpg-over-action",
        ),
        # 9. indie_short.
        pytest.param(
            ["Adventure", "Indie"],
            ["Indie", "Platformer", "Puzzle"],
            3.5,
            "indie_short",
            id="limbo",
        ),
        pytest.param(
            ["Action", "Adventure", "Indie"],
            ["Atmospheric", "Dark", "Indie"],
            3.4,
            "indie_short",
            id="inside-over-action",
        ),
        pytest.param(
            ["Adventure", "Indie"],
            ["Puzzle", "Short"],
            None,
            "indie_short",
            id="short-tag-no-hours",
        ),
        # 10. action.
        pytest.param(
            ["Action", "Adventure", "Indie"],
            ["Metroidvania", "Difficult", "Great Soundtrack"],
            28.0,
            "action",
            id="hollow-knight-long-indie",
        ),
        pytest.param(
            ["Action", "Adventure"],
            ["Puzzle", "Co-op", "First-Person"],
            8.9,
            "action",
            id="portal-2",
        ),
        pytest.param([], ["Platformer", "Pixel Graphics"], 8.5, "action", id="platformer-tag"),
        # 11. other.
        pytest.param(["Indie"], ["Indie", "Puzzle", "Difficult"], 20.0, "other", id="baba-is-you"),
        pytest.param(["Simulation", "Sports"], ["Sports", "Football"], 30.0, "other", id="sports"),
        pytest.param([], [], None, "other", id="nothing-known"),
    ],
)
def test_real_games_map_by_priority(
    storefront: list[str], tags: list[str], hours: float | None, expected: str
) -> None:
    assert genre_for(storefront, tags, hours) == expected


# Storefront genres and the first tags of Steam PICS (July 2026), most-voted first, as the
# bundled catalog resolves them (tags of up to 20; only the top ones count).
PICS_2026 = [
    (
        "Balatro",
        ("Casual", "Indie", "Strategy"),
        ("Card Game", "Roguelike", "Roguelike Deckbuilder", "Deckbuilding"),
        7.4,
        "roguelike",
    ),
    (
        "Baldur's Gate 3",
        ("Adventure", "RPG", "Strategy"),
        ("RPG", "Character Customization", "Choices Matter", "Turn-Based Combat"),
        72.2,
        "rpg",
    ),
    (
        "HELLDIVERS 2",
        ("Action",),
        ("Online Co-Op", "PvE", "Third-Person Shooter", "Multiplayer", "Shooter"),
        33.0,
        "shooter",
    ),
    (
        "Hades II",
        ("Action", "Indie", "RPG"),
        ("Action", "Roguelike", "Roguelite", "Hack and Slash", "Mythology"),
        28.9,
        "roguelike",
    ),
    (
        "Undertale",
        ("Indie", "RPG"),
        ("2D", "Bullet Hell", "Choices Matter", "Comedy", "Cute"),
        7.0,
        "narrative",  # "Choices Matter" outranks the storefront genre; no longer a shooter
    ),
    (
        "Dota 2",
        ("Action", "Strategy", "Free to Play"),
        ("Free to Play", "MOBA", "Multiplayer", "Strategy", "eSports"),
        772.1,
        "multiplayer",
    ),
    (
        "Counter-Strike 2",
        ("Action", "Free to Play"),
        ("FPS", "Shooter", "Multiplayer", "Competitive", "Action"),
        127.7,
        "shooter",
    ),
    (
        "Hollow Knight",
        ("Action", "Adventure", "Indie"),
        ("Metroidvania", "Platformer", "Souls-like", "Difficult"),
        26.9,
        "action",
    ),
]


@pytest.mark.parametrize(
    ("storefront", "tags", "hours", "expected"),
    [pytest.param(sf, tags, hours, want, id=name) for name, sf, tags, hours, want in PICS_2026],
)
def test_games_with_2026_tags(
    storefront: tuple[str, ...], tags: tuple[str, ...], hours: float, expected: str
) -> None:
    assert genre_for(storefront, tags, hours) == expected


@pytest.mark.parametrize(
    ("storefront", "tags", "expected"),
    [
        pytest.param([], ["ROGUE-LITE"], "roguelike", id="upper-case-hyphen"),
        pytest.param([], ["turn based strategy"], "strategy", id="lower-case-spaces"),
        pytest.param([], ["point & click", "ADVENTURE"], "narrative", id="ampersand"),
        pytest.param([], ["Point-and-Click", "adventure"], "narrative", id="hltb-spelling"),
        pytest.param(["massively multiplayer"], [], "multiplayer", id="storefront-lower-case"),
        pytest.param(["rpg"], [], "rpg", id="storefront-rpg-lower-case"),
    ],
)
def test_matching_ignores_case_and_punctuation(
    storefront: list[str], tags: list[str], expected: str
) -> None:
    assert genre_for(storefront, tags, 30.0) == expected


@pytest.mark.parametrize(
    ("storefront", "tags", "hours", "expected"),
    [
        # Point & Click without an adventure: score version 2.0 filed them under narrative.
        pytest.param(
            ("Action", "Casual", "Early Access", "Simulation"),
            ("Action", "Casual", "Simulation", "Point & Click", "Time Management", "Cooking"),
            20.0,
            "action",
            id="burger-shop-3-time-management",
        ),
        pytest.param(
            ("Casual", "Free to Play", "Indie"),
            ("Puzzle", "Casual", "Point & Click", "Design & Illustration", "Cozy", "2D"),
            12.5,
            "other",
            id="coloring-game-2",
        ),
        pytest.param(
            ("Casual", "Indie"),
            ("Puzzle", "Indie", "Pixel Graphics", "Point & Click", "Singleplayer"),
            1.5,
            "indie_short",
            id="please-dont-touch-anything",
        ),
        # With an adventure, it is one: by storefront genre, tag or hidden objects.
        pytest.param(
            ("Adventure", "Indie"),
            ("Puzzle", "Mystery", "Point & Click", "Atmospheric", "Singleplayer"),
            2.0,
            "narrative",
            id="the-room",
        ),
        pytest.param(
            ("Casual",),
            ("Puzzle", "Point & Click", "Casual", "Comedy", "Adventure"),
            6.0,
            "narrative",
            id="adventure-as-a-tag",
        ),
        pytest.param(
            ("Casual", "Indie"),
            ("Puzzle", "Casual", "Hidden Object", "Point & Click", "Exploration"),
            1.5,
            "narrative",
            id="cats-hidden-in-italy",
        ),
    ],
)
def test_point_and_click_means_narrative_only_for_adventures(
    storefront: tuple[str, ...], tags: tuple[str, ...], hours: float, expected: str
) -> None:
    assert genre_for(storefront, tags, hours) == expected


@pytest.mark.parametrize(
    ("hours", "expected"),
    [
        pytest.param(0.1, "indie_short", id="minutes"),
        pytest.param(INDIE_SHORT_HOURS - 0.01, "indie_short", id="just-under"),
        pytest.param(INDIE_SHORT_HOURS, "action", id="at-the-limit-is-not-short"),
        pytest.param(None, "action", id="unknown-length-without-short-tag"),
    ],
)
def test_indie_short_boundary(hours: float | None, expected: str) -> None:
    assert genre_for(["Action", "Indie"], ["Indie", "Pixel Graphics"], hours) == expected


def test_only_the_top_tags_count() -> None:
    filler = ["Pixel Graphics", "2D", "Cute", "Funny", "Colorful", "Relaxing", "Family Friendly"]
    within = [*filler[: TAG_WINDOW - 1], "Roguelike"]
    beyond = [*filler[:TAG_WINDOW], "Roguelike"]
    assert genre_for([], within, 10.0) == "roguelike"
    assert genre_for([], beyond, 10.0) == "other"


def test_indie_as_a_tag_counts_like_the_storefront_genre() -> None:
    assert genre_for([], ["Indie", "Cute"], 1.0) == "indie_short"
    assert genre_for(["Indie"], ["Cute"], 1.0) == "indie_short"
    assert genre_for(["Casual"], ["Cute"], 1.0) == "other"


@pytest.mark.parametrize(
    ("storefront", "tags", "fallback", "hours", "expected"),
    [
        # Games after the 2019 dump: only HLTB's genres are known.
        pytest.param(
            [], [], ["Third-Person", "Action", "Open World", "Role-Playing"], 54.3, "rpg",
            id="elden-ring",
        ),
        pytest.param([], [], ["First-Person", "Shooter"], 8.1, "shooter", id="cod-mw2"),
        pytest.param(
            [], [], ["Top-Down", "Action", "Roguelike"], 11.7, "roguelike", id="vampire-survivors"
        ),
        pytest.param(
            [], [], ["Massively Multiplayer", "Role-Playing"], 37.7, "multiplayer", id="lost-ark"
        ),
        pytest.param([], [], ["City-Building", "Open World"], 93.0, "strategy", id="satisfactory"),
        pytest.param([], [], ["Visual Novel"], 2.5, "narrative", id="mirror-2"),
        pytest.param([], [], ["Side", "Platform"], 5.9, "action", id="pizza-tower"),
        pytest.param([], [], ["Simulation", "Sports"], 60.6, "other", id="fifa-23"),
        # HLTB lists genres in no vote order: the sixth counts (a 5-tag window would say rpg).
        pytest.param(
            [], [],
            ["First-Person", "Third-Person", "Action", "Open World", "Role-Playing", "Shooter"],
            27.6, "shooter", id="fallout-new-vegas-no-window",
        ),
        # Point-and-Click means narrative only with Adventure (or Hidden Object).
        pytest.param(
            [], [], ["Third-Person", "Point-and-Click", "Adventure", "Horror"], 12.6, "narrative",
            id="the-walking-dead",
        ),
        pytest.param(
            ["Adventure", "Indie", "Simulation"], ["Survival", "Multiplayer", "Co-op"],
            ["Point-and-Click", "Third-Person", "Real-Time", "Survival"], 35.4, "other",
            id="dont-starve-together-clicks-but-tells-no-story",
        ),
        # Storefront genres and tags matched nothing, so the fallback decides.
        pytest.param(
            ["Adventure", "Indie"], ["3D Platformer", "Cute", "Female Protagonist"],
            ["Third-Person", "Action", "Adventure", "Platform"], 9.7, "action", id="a-hat-in-time",
        ),
        pytest.param(
            ["Adventure", "Simulation", "Sports"], ["Hunting", "Open World", "Multiplayer"],
            ["First-Person", "Shooter", "Simulation", "Sports"], 26.1, "shooter",
            id="thehunter-call-of-the-wild",
        ),
        # Storefront genres and tags matched: the fallback is never consulted.
        pytest.param(
            ["RPG"], ["Open World", "Post-apocalyptic", "Exploration"],
            ["First-Person", "Third-Person", "Action", "Open World", "Role-Playing", "Shooter"],
            28.0, "rpg", id="fallout-4-storefront-wins",
        ),
        pytest.param(
            ["Indie", "RPG"], ["Great Soundtrack", "Story Rich", "Choices Matter"],
            ["Turn-Based", "Role-Playing"], 7.0, "narrative", id="undertale-tags-win",
        ),
        pytest.param(
            [], ["Action Roguelike", "Roguelite", "Hack and Slash", "Indie", "Mythology"],
            ["Action", "Roguelike", "Role-Playing"], 23.3, "roguelike", id="hades-itad-tags",
        ),
    ],
)  # fmt: skip
def test_fallback_genres_decide_only_when_nothing_else_matches(
    storefront: list[str], tags: list[str], fallback: list[str], hours: float, expected: str
) -> None:
    assert genre_for(storefront, tags, hours, fallback_genres=fallback) == expected


def test_fallback_defaults_to_none() -> None:
    # Without fallback genres, the HLTB-only games of the table above are all "other".
    assert genre_for([], [], 54.3) == "other"
    assert genre_for([], [], 54.3, fallback_genres=()) == "other"


@given(
    st.lists(st.text(max_size=30), max_size=8),
    st.lists(st.text(max_size=30), max_size=25),
    st.none() | st.floats(min_value=0.01, max_value=5000, allow_nan=False),
)
def test_every_game_gets_exactly_one_known_genre(
    storefront: list[str], tags: list[str], hours: float | None
) -> None:
    assert genre_for(storefront, tags, hours) in GENRES
    assert genre_for([], [], hours, fallback_genres=[*storefront, *tags]) in GENRES


@given(
    st.lists(st.sampled_from(["Strategy", "RPG", "Action", "Indie", "Casual"]), max_size=4),
    st.lists(st.sampled_from(["FPS", "Roguelike", "Story Rich", "Puzzle", "Cute"]), max_size=6),
    st.lists(st.sampled_from(["Shooter", "Role-Playing", "Visual Novel", "Sports"]), max_size=4),
)
def test_fallback_never_overrides_a_match(
    storefront: list[str], tags: list[str], fallback: list[str]
) -> None:
    without = genre_for(storefront, tags, 30.0)
    with_fallback = genre_for(storefront, tags, 30.0, fallback_genres=fallback)
    assert with_fallback == without or without == "other"


# Real PICS records of 2026-07-24 (data/raw/steam_pics_2026): the play-mode categories (the
# others, "Steam Cloud", "HDR"... say nothing about how a game is played and are left out here),
# the first ten user tags, most-voted first, and the storefront genres.
@pytest.mark.parametrize(
    ("categories", "tags", "storefront", "expected"),
    [
        pytest.param(
            ("Multiplayer", "Cross-Platform Multiplayer"),
            (
                "FPS",
                "Shooter",
                "Multiplayer",
                "Competitive",
                "Action",
                "Team-Based",
                "eSports",
                "Tactical",
                "First-Person",
                "PvP",
            ),
            ("Action", "Free to Play"),
            True,
            id="counter-strike-2",
        ),
        pytest.param(
            ("Multiplayer", "Co-op"),
            (
                "Free to Play",
                "MOBA",
                "Multiplayer",
                "Strategy",
                "eSports",
                "Team-Based",
                "Competitive",
                "Action",
                "Online Co-Op",
                "PvP",
            ),
            ("Action", "Strategy", "Free to Play"),
            True,
            id="dota-2",
        ),
        pytest.param(
            ("Online PvP", "Multiplayer", "PvP"),
            (
                "Survival",
                "Shooter",
                "Battle Royale",
                "Multiplayer",
                "FPS",
                "PvP",
                "Third-Person Shooter",
                "Action",
                "Online Co-Op",
                "Tactical",
            ),
            ("Action", "Adventure", "Massively Multiplayer", "Free to Play"),
            True,
            id="pubg",
        ),
        pytest.param(
            (
                "Multiplayer",
                "Cross-Platform Multiplayer",
                "MMO",
                "Online PvP",
                "Co-op",
                "Online Co-op",
                "PvP",
            ),
            (
                "Survival",
                "Crafting",
                "Multiplayer",
                "Open World",
                "Open World Survival Craft",
                "Building",
                "PvP",
                "Sandbox",
                "Adventure",
                "First-Person",
            ),
            ("Action", "Adventure", "Indie", "Massively Multiplayer", "RPG"),
            True,
            id="rust",
        ),
        pytest.param(
            ("Single-player", "Multiplayer", "PvP", "Online PvP", "Cross-Platform Multiplayer"),
            (
                "Multiplayer",
                "FPS",
                "Military",
                "Action",
                "Singleplayer",
                "Shooter",
                "War",
                "Modern",
                "Combat",
                "Realistic",
            ),
            ("Action",),
            True,
            id="battlefield-6-multiplayer-tag-first",
        ),
        pytest.param(
            ("Multiplayer", "Co-op", "Online Co-op", "Single-player"),
            (
                "Online Co-Op",
                "Horror",
                "First-Person",
                "Co-op",
                "Survival Horror",
                "Funny",
                "Exploration",
                "Psychological Horror",
                "Sci-fi",
                "PvE",
            ),
            ("Action", "Adventure", "Indie", "Early Access"),
            True,
            id="lethal-company",
        ),
        pytest.param(
            ("Single-player", "Co-op", "Online Co-op", "Multiplayer"),
            (
                "Dwarves",
                "Co-op",
                "PvE",
                "FPS",
                "Procedural Generation",
                "Class-Based",
                "Shooter",
                "Exploration",
                "First-Person",
                "Loot",
            ),
            ("Action",),
            True,
            id="deep-rock-galactic-co-op-second",
        ),
        pytest.param(
            ("Single-player", "Multiplayer", "MMO", "Co-op", "Online Co-op"),
            (
                "Action RPG",
                "Hack and Slash",
                "RPG",
                "Loot",
                "MMORPG",
                "Isometric",
                "Souls-like",
                "Dark Fantasy",
                "Action",
                "Dungeon Crawler",
            ),
            ("Action", "Adventure", "Massively Multiplayer", "RPG", "Early Access"),
            True,
            id="path-of-exile-2-mmo",
        ),
        pytest.param(
            ("Single-player", "Multiplayer", "Co-op", "Online Co-op", "Cross-Platform Multiplayer"),
            (
                "Free to Play",
                "Looter Shooter",
                "Action RPG",
                "Third-Person Shooter",
                "Action",
                "RPG",
                "Third Person",
                "Massively Multiplayer",
                "Online Co-Op",
                "Character Customization",
            ),
            ("Action", "RPG", "Free to Play"),
            True,
            id="warframe-mmo-tag-8th",
        ),
        pytest.param(
            ("Single-player", "Multiplayer", "PvP", "Online PvP", "Co-op", "Online Co-op"),
            (
                "Souls-like",
                "Open World",
                "Dark Fantasy",
                "RPG",
                "Difficult",
                "Action RPG",
                "Multiplayer",
                "Third Person",
                "Fantasy",
                "Singleplayer",
            ),
            ("Action", "RPG"),
            False,
            id="elden-ring",
        ),
        pytest.param(
            (
                "Single-player",
                "Multiplayer",
                "Online Co-op",
                "LAN Co-op",
                "Co-op",
                "Cross-Platform Multiplayer",
            ),
            (
                "RPG",
                "Character Customization",
                "Choices Matter",
                "Turn-Based Combat",
                "Story Rich",
                "Sexual Content",
                "CRPG",
                "Fantasy",
                "Adventure",
                "Romance",
            ),
            ("Adventure", "RPG", "Strategy"),
            False,
            id="baldurs-gate-3",
        ),
        pytest.param(
            (
                "Multiplayer",
                "Co-op",
                "Online Co-op",
                "Shared/Split Screen Co-op",
                "Shared/Split Screen",
            ),
            (
                "Co-op",
                "Multiplayer",
                "Split Screen",
                "Local Co-Op",
                "Online Co-Op",
                "Puzzle",
                "Adventure",
                "Story Rich",
                "Co-op Campaign",
                "Local Multiplayer",
            ),
            ("Action", "Adventure"),
            False,
            id="it-takes-two-story-campaign",
        ),
        pytest.param(
            (
                "Multiplayer",
                "Co-op",
                "Online Co-op",
                "Shared/Split Screen Co-op",
                "Shared/Split Screen",
            ),
            (
                "Online Co-Op",
                "Co-op",
                "Split Screen",
                "Story Rich",
                "Local Co-Op",
                "Multiplayer",
                "Action-Adventure",
                "Action",
                "Adventure",
                "Crime",
            ),
            ("Action", "Adventure", "Indie"),
            False,
            id="a-way-out-story-rich",
        ),
        pytest.param(
            (
                "Single-player",
                "Multiplayer",
                "Co-op",
                "Online Co-op",
                "LAN Co-op",
                "Shared/Split Screen Co-op",
                "Shared/Split Screen",
            ),
            (
                "Farming Sim",
                "Pixel Graphics",
                "Multiplayer",
                "Life Sim",
                "RPG",
                "Relaxing",
                "Simulation",
                "Agriculture",
                "Crafting",
                "Indie",
            ),
            ("Indie", "RPG", "Simulation"),
            False,
            id="stardew-valley-multiplayer-third",
        ),
        pytest.param(
            ("Single-player", "PvP", "Online PvP", "Co-op", "Online Co-op", "Multiplayer"),
            (
                "Open World",
                "Sexual Content",
                "Action",
                "Multiplayer",
                "Crime",
                "Shooter",
                "Third Person",
                "Adventure",
                "First-Person",
                "Automobile Sim",
            ),
            ("Action", "Adventure", "Racing"),
            False,
            id="gta-v-enhanced",
        ),
        pytest.param(
            (
                "Single-player",
                "Multiplayer",
                "Online PvP",
                "Shared/Split Screen PvP",
                "Co-op",
                "Online Co-op",
                "Shared/Split Screen Co-op",
                "Shared/Split Screen",
                "PvP",
            ),
            (
                "Multiplayer",
                "Local Co-Op",
                "Online Co-Op",
                "Co-op",
                "Cooking",
                "Casual",
                "Funny",
                "4 Player Local",
                "Indie",
                "Local Multiplayer",
            ),
            ("Action", "Casual", "Indie"),
            False,
            id="overcooked-2-local-first",
        ),
        pytest.param(
            (
                "Single-player",
                "Shared/Split Screen Co-op",
                "Shared/Split Screen",
                "Multiplayer",
                "Co-op",
            ),
            (
                "Difficult",
                "Cartoon",
                "Co-op",
                "Platformer",
                "Local Co-Op",
                "Great Soundtrack",
                "Multiplayer",
                "2D",
                "Indie",
                "Hand-drawn",
            ),
            ("Action", "Indie"),
            False,
            id="cuphead-local-only",
        ),
        pytest.param(
            ("Single-player", "Co-op", "Multiplayer"),
            (
                "Loot",
                "Shooter",
                "Action",
                "Multiplayer",
                "Co-op",
                "Looter Shooter",
                "FPS",
                "RPG",
                "First-Person",
                "Funny",
            ),
            ("Action", "RPG"),
            False,
            id="borderlands-2",
        ),
    ],
)
def test_multiplayer_first_on_real_store_records(
    categories: tuple[str, ...], tags: tuple[str, ...], storefront: tuple[str, ...], expected: bool
) -> None:
    assert multiplayer_first(categories, tags, storefront) is expected


@pytest.mark.parametrize(
    ("categories", "tags", "expected"),
    [
        pytest.param((), ("Multiplayer", "FPS"), True, id="no-categories-tags-decide"),
        pytest.param((), ("FPS", "Action", "Multiplayer"), False, id="no-categories-third-tag"),
        pytest.param(("Single-player",), ("MMORPG",), False, id="offline-only-never"),
        pytest.param(
            ("Multi-player", "Local Multi-Player"),
            ("Action", "Multiplayer"),
            False,
            id="2019-spelling-local-only",
        ),
        pytest.param(
            ("Multi-player", "Online Multi-Player"),
            ("Action", "Multiplayer"),
            True,
            id="2019-spelling-online",
        ),
        pytest.param(("Multiplayer",), ("Puzzle",), True, id="no-single-player-online"),
    ],
)
def test_multiplayer_first_edges(
    categories: tuple[str, ...], tags: tuple[str, ...], expected: bool
) -> None:
    assert multiplayer_first(categories, tags) is expected
