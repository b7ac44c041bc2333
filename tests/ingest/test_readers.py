"""Readers of the 2024-2026 dumps (ingest.readers): what they translate on the way in."""

from __future__ import annotations

import pytest

from bangscore.ingest.checks import GAME_GENRES, SOFTWARE_GENRES
from bangscore.ingest.readers import LOCALIZED_GENRES


@pytest.mark.parametrize(
    ("localized", "english"),
    [
        pytest.param("GDR", "RPG", id="italian-rpg"),  # Vampire Survivors in the 2024 catalogue
        pytest.param("Ролевые игры", "RPG", id="russian-rpg"),
        pytest.param("角色扮演", "RPG", id="chinese-rpg"),
        pytest.param("Стратегии", "Strategy", id="russian-strategy"),  # Shadow Tactics
        pytest.param("Экшены", "Action", id="russian-action"),  # Half-Life 2: Lost Coast
        pytest.param("Indépendant", "Indie", id="french-indie"),  # Doki Doki Literature Club!
        pytest.param("冒险", "Adventure", id="chinese-adventure"),  # Resident Evil 4
        pytest.param("Многопользовательские игры", "Massively Multiplayer", id="russian-mmo"),
        pytest.param("Utilidades", "Utilities", id="spanish-utilities"),
    ],
)
def test_localized_storefront_genres_read_as_english(localized: str, english: str) -> None:
    assert LOCALIZED_GENRES[localized] == english


def test_every_translation_is_a_steam_genre() -> None:
    steam = GAME_GENRES | SOFTWARE_GENRES | {"Free to Play", "Early Access"}
    assert set(LOCALIZED_GENRES.values()) <= steam
    assert not set(LOCALIZED_GENRES) & steam  # English names are kept as they are
