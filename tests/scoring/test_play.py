"""How a game is played, from its tags (scoring.play)."""

from __future__ import annotations

import pytest

from bangscore.scoring.play import TAG_WINDOW, earns_replay_credit, is_replayable, is_unattended


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


@pytest.mark.parametrize(
    ("tags", "credited"),
    [
        # Coconut Simulator's real tags: "Life Sim" 6th and "eSports" 9th are a joke's.
        pytest.param(
            (
                "Psychological Horror",
                "Action",
                "Simulation",
                "Casual",
                "Adventure",
                "Life Sim",
                "Relaxing",
                "Immersive Sim",
                "eSports",
                "Cute",
            ),
            False,
            id="coconut-simulator",
        ),
        pytest.param(("Action", "Roguelike", "Roguelite"), True, id="hades-ii"),
        pytest.param(("Farming Sim", "Pixel Graphics", "Multiplayer"), True, id="stardew-valley"),
    ],
)
def test_replay_credit_needs_a_replay_tag_among_the_first_five(
    tags: tuple[str, ...], credited: bool
) -> None:
    assert earns_replay_credit(tags) is credited
    assert is_replayable(tags)  # the length check still expects replays of all three
