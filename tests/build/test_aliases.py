"""The search's alias table (docs/API.md#search)."""

from __future__ import annotations

import pytest

from bangscore.build.aliases import CURATED, build_aliases, curated_for, initials_of, key_of


@pytest.mark.parametrize(
    ("name", "first", "among"),
    [
        pytest.param("Baldur's Gate 3", "bg3", {"bgiii", "bg"}, id="digits-and-roman"),
        pytest.param("Grand Theft Auto V", "gta5", {"gtav", "gta"}, id="roman-name"),
        pytest.param("Counter-Strike 2", "cs2", {"csii"}, id="hyphen-splits"),
        pytest.param("The Witcher 3: Wild Hunt", "tw3", {"tw3wh", "twiii"}, id="subtitle"),
        pytest.param("Left 4 Dead 2", "l4d2", {"l4d"}, id="numbers-kept-whole"),
        pytest.param("Hollow Knight", "hk", set(), id="two-letters"),
        pytest.param("Clair Obscur: Expedition 33", "co", {"e33"}, id="subtitle-with-a-number"),
        pytest.param("Slay the Spire 2", "sts2", {"stsii"}, id="small-words-count"),
        pytest.param("FINAL FANTASY XIV Online", "ff14o", {"ff14", "ffxiv"}, id="first-words"),
        pytest.param("Tom Clancy's Rainbow Six® Siege", "tcr6s", {"r6", "r6s"}, id="brand"),
        pytest.param("Halo: The Master Chief Collection", "htmcc", {"mcc"}, id="the-dropped"),
        pytest.param("Bloons TD 6", "bt6", {"btd6"}, id="capitals-kept"),
        pytest.param("Five Nights at Freddy's", "5naf", {"fnaf"}, id="number-words"),
        pytest.param("Assassin's Creed Valhalla", "acv", {"acvalhalla"}, id="spelled-ending"),
        pytest.param("Assassin's Creed® IV Black Flag", "ac4bf", {"acblackflag"}, id="no-number"),
        pytest.param("Grand Theft Auto: San Andreas", "gta", {"gtasanandreas"}, id="spelled-3"),
    ],
)
def test_initials_of(name: str, first: str, among: set[str]) -> None:
    keys = initials_of(name)
    assert keys[0] == first
    assert among <= set(keys)
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize(
    ("name", "vocabulary", "key"),
    [
        pytest.param("Fallout 4", ["fall", "out"] * 3, "fo4", id="fallout"),
        pytest.param("Cyberpunk 2077", ["cyber", "punk"] * 3, "cp2077", id="cyberpunk"),
        pytest.param("Overwatch 2", ["over", "watch"] * 3, "ow2", id="overwatch"),
    ],
)
def test_a_compound_of_two_common_words_is_split(
    name: str, vocabulary: list[str], key: str
) -> None:
    assert key in initials_of(name, vocabulary)
    assert key not in initials_of(name)  # without the words, one letter


def test_a_compound_of_a_rare_word_is_not_split() -> None:
    # "vive" is a word of one name: "survive" is not "sur" + "vive".
    keys = initials_of("Metal Gear Survive", ["sur"] * 4 + ["vive"])
    assert "mgs" in keys and "mgsv" not in keys


@pytest.mark.parametrize("name", ["Portal", "Dragon 龙崖"], ids=["one-word", "not-ascii"])
def test_no_initials(name: str) -> None:
    assert initials_of(name) == []


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        pytest.param("GTA V", "gta5", id="roman-word-folds"),
        pytest.param("gta 5", "gta5", id="digits"),
        pytest.param("  B.G.3 ", "bg3", id="punctuation"),
        pytest.param("Kcd2", "kcd2", id="case"),
    ],
)
def test_key_of(typed: str, key: str) -> None:
    assert key_of(typed) == key


def test_most_reviewed_owns_shared_initials_and_words_are_never_keys() -> None:
    games = [
        (1, "Big Game 3", 10_000),
        (2, "Bigger Gun 3", 90_000),
        (3, "War And Rage", 50_000),
        (4, "Tiny Garden 3", 10),
    ]
    aliases = build_aliases(games, vocabulary=["war", "and", "rage", "big", "game", "3"])
    assert aliases["bg3"] == 2
    assert aliases["bgiii"] == 2
    assert "war" not in aliases  # a name word would jump to one game
    assert "tg3" not in aliases  # too few reviews to be abbreviated


def test_a_numbered_sequel_of_a_well_known_game_is_abbreviated_before_its_reviews_come() -> None:
    games = [
        (1, "Slay the Spire", 150_000),
        (2, "Slay the Spire 2", 1_000),
        (3, "Small Town Story 2", 1_000),  # its first game is not well known
        (4, "Slay the Spire Fan Remix 2", 10),  # not the name and a number
    ]
    aliases = build_aliases(games, vocabulary=["slay", "the", "spire"])
    assert (aliases["sts"], aliases["sts2"], aliases["stsii"]) == (1, 2, 2)
    assert "stsfr2" not in aliases and set(aliases.values()) == {1, 2}


def test_an_acclaimed_game_newer_than_the_review_data_is_abbreviated() -> None:
    games = [(1903340, "Clair Obscur: Expedition 33", 1_000), (7, "Every Echo 33", 1_000)]
    assert build_aliases(games, vocabulary=[], acclaimed=[1903340])["e33"] == 1903340
    assert "e33" not in build_aliases(games, vocabulary=[])


def test_a_rare_name_word_does_not_keep_a_well_known_game_from_its_initials() -> None:
    # Issue 56: `lop` is a word of Lop Nor Zombie VR (57 reviews), and Lies of P's initials.
    games = [(1627720, "Lies of P", 44_269), (521860, "Lop Nor Zombie VR", 57)]
    vocabulary = ["lies", "of", "p", "lop", "nor", "zombie", "vr"]
    assert build_aliases(games, vocabulary)["lop"] == 1627720
    common = build_aliases(games, [*vocabulary, "lop", "lop"])  # a word of 3 names
    assert "lop" not in common


def test_whole_name_initials_beat_a_longer_name_s_first_words() -> None:
    games = [(500, "Left 4 Dead", 59_602), (550, "Left 4 Dead 2", 926_836)]
    aliases = build_aliases(games, vocabulary=[])
    assert (aliases["l4d"], aliases["l4d2"]) == (500, 550)


def test_curated_wins_and_skips_games_not_given() -> None:
    games = [(730, "Counter-Strike 2", 8_000_000), (99, "Cosmic Shooter 2", 9_000_000)]
    aliases = build_aliases(games, vocabulary=[])
    assert aliases["cs2"] == 730
    assert aliases["csgo"] == 730
    assert "bg3" not in aliases  # Baldur's Gate 3 is not among the games


def test_curated_for_the_unrated_index() -> None:
    assert curated_for([1771300]) == {"kcd2": 1771300}


def test_curated_keys_are_already_folded_forms() -> None:
    assert all(key_of(alias) for alias in CURATED)
