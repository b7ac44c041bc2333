"""Tests of title normalisation and sound title matching (ingest.resolve.names)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.ingest.resolve import names
from bangscore.ingest.resolve.names import (
    display_name,
    normalise_name,
    sound_matches,
    years_agree,
)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        pytest.param("Portal 2", "portal 2", id="plain"),
        pytest.param("  HADES  ", "hades", id="case-and-outer-space"),
        pytest.param("Pokémon Café", "pokemon cafe", id="accents"),
        pytest.param("DOOM™ Eternal®", "doom eternal", id="trade-marks"),
        pytest.param("Tom Clancy's Rainbow Six® Siege", "tom clancys rainbow six siege", id="apos"),
        pytest.param("Garry’s Mod", "garrys mod", id="curly-apostrophe"),
        pytest.param("Ratchet & Clank", "ratchet and clank", id="ampersand"),
        pytest.param("Ratchet&Clank", "ratchet and clank", id="ampersand-no-space"),
        pytest.param(
            "S.T.A.L.K.E.R.: Shadow of Chernobyl", "s t a l k e r shadow of chernobyl", id="dots"
        ),
        pytest.param("Half-Life 2: Episode One", "half life 2 episode one", id="dash-colon"),
        pytest.param("Baldur's   Gate\t3", "baldurs gate 3", id="inner-whitespace"),
        pytest.param("ＦＵＬＬＷＩＤＴＨ", "fullwidth", id="fullwidth-folded"),
        pytest.param("魔法洞穴２", "魔法洞穴2", id="cjk-kept"),
        pytest.param("™ ® ©", "", id="nothing-left"),
        pytest.param("Straße", "strasse", id="casefold"),
    ],
)
def test_normalise_name(title: str, expected: str) -> None:
    assert normalise_name(title) == expected


@pytest.mark.parametrize(
    ("a", "b", "tolerance", "expected"),
    [
        pytest.param(2019, 2020, 1, True, id="one-apart"),
        pytest.param(2019, 2021, 1, False, id="two-apart"),
        pytest.param(None, 2021, 1, True, id="left-unknown"),
        pytest.param(2019, None, 1, True, id="right-unknown"),
        pytest.param(1970, 2021, None, True, id="no-tolerance"),
    ],
)
def test_years_agree(a: int | None, b: int | None, tolerance: int | None, expected: bool) -> None:
    assert years_agree(a, b, tolerance) is expected


def test_sound_matches_keeps_only_unique_equal_titles() -> None:
    left = {
        "a": ("Hades™", 2020),
        "b": ("Tetris", 1990),
        "c": ("TETRIS", 1991),
        "d": ("Celeste", 2018),
        "e": ("Outer Wilds", 2019),
        "f": ("Nowhere To Be Found", None),
    }
    right = {
        1: ("HADES", 2020),
        2: ("Tetris", 1989),
        3: ("Celeste", 2018),
        4: ("Celeste!", 2018),
        5: ("Outer Wilds", 2025),
    }
    result = sound_matches(left, right)
    assert result.matches == {"a": 1}
    assert result.ambiguous_left == 2  # "b" and "c" share a title
    assert result.ambiguous_right == 1  # "Celeste" is two apps on the right
    assert result.year_mismatch == 1  # "Outer Wilds" 2019 vs 2025
    assert result.unmatched == 1


def test_sound_matches_year_options() -> None:
    left = {"x": ("Outer Wilds", 2019), "y": ("Hades", None)}
    right = {1: ("Outer Wilds", 2025), 2: ("Hades", 2020)}
    assert sound_matches(left, right).matches == {"y": 2}
    assert sound_matches(left, right, year_tolerance=None).matches == {"x": 1, "y": 2}
    assert sound_matches(left, right, year_tolerance=None, require_years=True).matches == {"x": 1}


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        pytest.param("Half-Life 2", "Half-Life 2", id="fit-kept"),
        pytest.param("", "", id="empty"),
        pytest.param("Pokémon™ 宝可梦", "Pokémon™ 宝可梦", id="not-ascii-kept"),
        pytest.param("  Portal  2 ", "Portal 2", id="spaces"),
        pytest.param("Portal\t2\n", "Portal2", id="tab-and-newline-are-controls"),
        pytest.param("Portal\xa02", "Portal 2", id="no-break-space"),
        pytest.param("Port\x00al\x1b 2\x85", "Portal 2", id="controls"),
        pytest.param("\u202eevil\u2066 name\u200e", "evil name", id="bidi"),
        pytest.param(" ", "", id="one-space"),
    ],
)
def test_display_name(text: str, shown: str) -> None:
    # The fast path for a name already fit to show and the full cleaning agree.
    assert display_name(text) == shown


@given(st.text(alphabet=st.sampled_from(" \t\n\x00\x85\xa0\u200e\u202e\u3000aé宝™")))
def test_display_name_of_any_text_is_the_full_cleaning(text: str) -> None:
    full = names._SPACES.sub(" ", names._UNSAFE_IN_NAMES.sub("", text)).strip()
    assert display_name(text) == full
