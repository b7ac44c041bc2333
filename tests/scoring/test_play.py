"""How a game is played, from its tags (scoring.play)."""

from __future__ import annotations

import pytest

from bangscore.scoring.play import TAG_WINDOW, is_replayable, is_unattended


@pytest.mark.parametrize(
    ("tags", "replayable", "unattended"),
    [
        pytest.param(
            ("Card Game", "Roguelike", "Roguelike Deckbuilder"), True, False, id="balatro"
        ),
        pytest.param(("Online Co-Op", "PvE", "Third-Person Shooter"), True, False, id="helldivers"),
        pytest.param(("RPG", "Story Rich", "Choices Matter"), False, False, id="story-rpg"),
        pytest.param(("Idler", "Clicker", "Casual"), False, True, id="idle"),
        pytest.param(("idle-clicker",), False, True, id="punctuation-and-case"),
        pytest.param(
            ("RPG",) * TAG_WINDOW + ("Roguelike", "Idler"), False, False, id="beyond-window"
        ),
        pytest.param((), False, False, id="no-tags"),
        # Tools and ambient apps: hours of use, not play.
        pytest.param(
            (
                "Action",
                "Shooter",
                "Simulation",
                "FPS",
                "Indie",
                "First-Person",
                "Software Training",
            ),
            False,
            True,
            id="kovaaks-aim-trainer",
        ),
        pytest.param(
            ("Casual", "Idler", "Simulation", "Utilities"), False, True, id="virtual-cottage"
        ),
        pytest.param(("Utilities", "Online Co-Op"), True, True, id="utility-with-co-op"),
        pytest.param(("Puzzle", "Education", "Programming"), False, False, id="educational-game"),
    ],
)
def test_tags(tags: tuple[str, ...], replayable: bool, unattended: bool) -> None:
    assert is_replayable(tags) is replayable
    assert is_unattended(tags) is unattended
