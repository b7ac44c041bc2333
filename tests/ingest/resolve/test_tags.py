"""Tag sets that lost their vote order (ingest.resolve.tags), in the catalog and on the real
dumps."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.catalog import IngestReport, assemble
from bangscore.ingest.resolve.observations import Layer, Observation, Observations
from bangscore.ingest.resolve.tags import (
    MIN_PAIR_GAMES,
    MIN_RANKED_TAGS,
    UNKNOWN_POSITION,
    TagPositions,
    order_tag_set,
    typical_positions,
)
from bangscore.scoring.genres import genre_for
from bangscore.scoring.pipeline import score_game
from bangscore.scoring.records import Catalog, GameRecord

PICS = Layer("steam_pics_2026", "storefront", dt.date(2026, 7, 24))
INSIGHTS = Layer("steam_insights_2024", "storefront", dt.date(2024, 10, 31))
HLTB = Layer("hltb_steam_2025-12", "play_length", dt.date(2025, 12, 27))

FILLER = tuple(f"Filler {i}" for i in range(MIN_RANKED_TAGS))


def test_typical_positions_average_relative_ranks_of_full_lists() -> None:
    ranked = [
        (("RPG", "Story Rich", *FILLER[:8]), ("RPG",)),  # RPG at 0/10, Story Rich at 1/10
        (("Story Rich", "RPG", *FILLER[:8]), ("Adventure",)),  # Story Rich 0/10, RPG 1/10
        (("RPG", *FILLER), ("RPG", "RPG")),  # RPG at 0/11; a repeated genre counts once
        (("Story Rich", "Choices Matter", "RPG"), ("RPG",)),  # a top 3: too short to count
    ]
    positions = typical_positions(ranked)
    assert positions.overall["RPG"] == pytest.approx((0 + 0.1 + 0) / 3)
    assert positions.overall["Story Rich"] == pytest.approx((0.1 + 0) / 2)
    assert "Choices Matter" not in positions.overall
    assert positions.by_genre == {}  # no pair is seen in MIN_PAIR_GAMES games


def test_positions_follow_the_storefront_genre_where_it_is_known() -> None:
    shooters = [(("FPS", "Action", *FILLER), ("Action",))] * MIN_PAIR_GAMES
    novels = [(("Visual Novel", "Anime", *FILLER[:7], "FPS"), ("Adventure",))] * MIN_PAIR_GAMES
    positions = typical_positions(shooters + novels)
    assert positions.of("FPS", ("Action",)) == 0.0
    assert positions.of("FPS", ("Adventure",)) == pytest.approx(9 / 10)
    assert positions.of("FPS", ("Action", "Adventure")) == pytest.approx(9 / 20)
    assert positions.of("FPS", ("Racing",)) == positions.overall["FPS"]
    assert positions.of("Never Seen", ("Action",)) == UNKNOWN_POSITION


@pytest.mark.parametrize(
    ("tags", "overall", "expected"),
    [
        pytest.param(
            ("2D", "Choices Matter", "RPG", "Story Rich"),
            {"RPG": 0.1, "Story Rich": 0.2, "Choices Matter": 0.3, "2D": 0.6},
            ("RPG", "Story Rich", "Choices Matter", "2D"),
            id="genre-tags-first",
        ),
        pytest.param(
            ("Zebra", "apple", "RPG"),
            {"RPG": 0.1},
            ("RPG", "apple", "Zebra"),
            id="unknown-tags-in-the-middle-by-name",
        ),
        pytest.param(("RPG", "RPG"), {}, ("RPG",), id="no-duplicates"),
        pytest.param((), {"RPG": 0.1}, (), id="empty"),
    ],
)
def test_order_tag_set(
    tags: tuple[str, ...], overall: dict[str, float], expected: tuple[str, ...]
) -> None:
    assert order_tag_set(tags, ("RPG",), TagPositions(overall)) == expected


def o(appid: int, field: str, value: object) -> Observation:
    return Observation(appid, field, value)


def _rated(appid: int, name: str) -> list[Observation]:
    return [
        o(appid, "name", name),
        o(appid, "app_type", "game"),
        o(appid, "price", (9.99, 9.99, 0)),
        o(appid, "review_count", 5000),
        o(appid, "review_score", 0.95),
    ]


def test_assemble_orders_an_unranked_tag_set_and_marks_it_estimated() -> None:
    known = Observations()
    known.add(
        PICS,
        [
            *_rated(1, "Ranked RPG"),
            o(1, "tags", ("RPG", "Story Rich", *FILLER[:8])),
            *_rated(2, "Ranked Novel"),
            o(2, "tags", ("Story Rich", "Choices Matter", "RPG", *FILLER[:7])),
        ],
    )
    known.add(
        INSIGHTS,
        [
            *_rated(3, "Alphabetical"),
            o(3, "tags", ("2D", "Choices Matter", "RPG", "Story Rich")),
            o(3, "tags_unranked", True),
            # PICS's ranked tags win over the older unranked set: kept as ranked.
            o(1, "tags", ("2D", "RPG")),
            o(1, "tags_unranked", True),
        ],
    )
    known.add(HLTB, [o(a, "main_story_hours", 10.0) for a in (1, 2, 3)])
    rated, _ = assemble(known, IngestReport())
    games = {r.appid: r for r in rated}
    # RPG stands at (0 + 0.2) / 2, Story Rich at (0.1 + 0) / 2, Choices Matter at 0.1; 2D unknown.
    assert games[3].tags == ("Story Rich", "Choices Matter", "RPG", "2D")
    assert "tags" in games[3].estimated
    assert games[1].tags[:2] == ("RPG", "Story Rich") and "tags" not in games[1].estimated


# -- the real bundled catalog -------------------------------------------------------------------


def _games(bundled: tuple[Catalog, IngestReport]) -> dict[int, GameRecord]:
    return {g.appid: g for g in bundled[0].games}


@pytest.mark.parametrize(
    ("appid", "first", "genre"),
    [
        # 2024 alphabetical set: "2D", "Bullet Hell", "Choices Matter"... made it narrative.
        pytest.param(391540, "RPG", "rpg", id="undertale"),
        pytest.param(1145360, "Action Roguelike", "roguelike", id="hades"),
        # Alphabetical: "2D", "Card Game", "Casual", "Choices Matter": narrative.
        pytest.param(1988540, "Card Game", "other", id="zachtronics-solitaire-collection"),
        pytest.param(787480, "Visual Novel", "narrative", id="phoenix-wright-trilogy"),
    ],
)
def test_bundled_unranked_tags_are_put_in_typical_order(
    bundled: tuple[Catalog, IngestReport], appid: int, first: str, genre: str
) -> None:
    game = _games(bundled)[appid]
    assert game.provenance["tags"].source == "steam_insights_2024"
    assert "tags" in game.estimated
    assert game.tags.index(first) < 3
    assert score_game(game).genre == genre


def test_bundled_typical_order_recovers_genres_better_than_alphabetical(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    ranked = [g for g in bundled[0].games if "tags" not in g.estimated and len(g.tags) >= 15]
    typical = typical_positions((g.tags, g.storefront_genres) for g in ranked)

    def genre(game: GameRecord, tags: tuple[str, ...]) -> str:
        return genre_for(
            game.storefront_genres,
            tags,
            game.main_story_hours,
            fallback_genres=game.play_length_genres,
        )

    alphabetical = typical_order = 0
    for game in ranked:
        truth = genre(game, game.tags)
        shuffled = tuple(sorted(game.tags, key=str.casefold))
        alphabetical += genre(game, shuffled) == truth
        reordered = order_tag_set(shuffled, game.storefront_genres, typical)
        typical_order += genre(game, reordered) == truth
    assert typical_order / len(ranked) >= alphabetical / len(ranked) + 0.03
