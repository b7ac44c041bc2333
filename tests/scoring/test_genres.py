"""The one-genre rule (docs/API.md#genres), step by step (on real games' store records:
tests/scoring/test_genre_games.py; multiplayer_first: tests/scoring/test_multiplayer.py).

The labelled set (tests/scoring/genre_labels.csv, 200 games labelled by hand before the rule was
written) measures the rule on the whole bundled catalogue.
"""

from __future__ import annotations

import collections
import csv
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.genres import (
    GENRES,
    INDIE_SHORT_HOURS,
    genre_for,
)
from bangscore.scoring.multiplayer import TAG_WINDOW
from bangscore.scoring.pipeline import score_game
from bangscore.scoring.records import Catalog

LABELS = Path(__file__).parent / "genre_labels.csv"
REPO = Path(__file__).resolve().parents[2]
# Issue 25's targets for the labelled set's two halves; the cases issue 38 cites (factory
# builders, a sandbox RPG, racing, sports, life sims, survival crafting) must all hold.
POPULAR_TARGET = 0.95
RANDOM_TARGET = 0.90
CITED_TARGET = 1.0


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


def test_only_the_top_tags_count() -> None:
    filler = ["Pixel Graphics", "2D", "Cute", "Funny", "Colorful", "Relaxing", "Family Friendly"]
    within = [*filler[: TAG_WINDOW - 1], "Roguelike"]
    beyond = [*filler[:TAG_WINDOW], "Roguelike"]
    assert genre_for([], within, 10.0) == "roguelike"
    assert genre_for([], beyond, 10.0) == "other"


@pytest.mark.parametrize(
    ("categories", "tags", "expected"),
    [
        # Online first, and players rank "Multiplayer" above any genre tag.
        pytest.param(
            ("Multiplayer",), ("Horror", "Multiplayer", "Exploration"), "multiplayer", id="mp"
        ),
        # A shooter tag among the first three keeps a shooter a shooter.
        pytest.param(("Multiplayer",), ("Multiplayer", "FPS", "War"), "shooter", id="shooter"),
        # An online-only form wins even over a shooter tag.
        pytest.param(
            ("Multiplayer",), ("Shooter", "Battle Royale", "FPS"), "multiplayer", id="battle-royale"
        ),
        # An RPG tag ranked above "Online Co-Op": an RPG with co-op.
        pytest.param(("Multiplayer",), ("RPG", "Online Co-Op"), "rpg", id="rpg-first"),
        # Not multiplayer-first (a single-player game with an online mode ranked third).
        pytest.param(
            ("Single-player", "Online Co-op"),
            ("Farming Sim", "Pixel Graphics", "Multiplayer"),
            "other",
            id="not-multiplayer-first",
        ),
    ],
)
def test_multiplayer_genre_needs_multiplayer_first_and_the_tags(
    categories: tuple[str, ...], tags: tuple[str, ...], expected: str
) -> None:
    assert genre_for([], tags, 20.0, categories=categories) == expected


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        pytest.param(("RPG", "Visual Novel", "Dating Sim"), "narrative", id="two-forms"),
        pytest.param(("RPG", "Bullet Hell", "Dating Sim"), "rpg", id="one-form-is-not-enough"),
        pytest.param(
            ("RPG", "2D", "Cute", "Anime", "Comedy", "Fantasy", "Visual Novel", "Dating Sim"),
            "rpg",
            id="forms-beyond-the-window",
        ),
    ],
)
def test_narrative_forms(tags: tuple[str, ...], expected: str) -> None:
    assert genre_for([], tags, 20.0) == expected


@pytest.mark.parametrize(
    ("storefront", "tags", "expected"),
    [
        # One defining tag outvotes a broad one ranked above it.
        pytest.param((), ("Action", "Time Management"), "other", id="defining-over-broad"),
        # Equal votes: the genre of the better-ranked tag.
        pytest.param((), ("FPS", "RPG"), "shooter", id="tie-to-the-first"),
        pytest.param((), ("RPG", "FPS"), "rpg", id="tie-to-the-first-reversed"),
        # The storefront genre breaks a near tie.
        pytest.param(("RPG",), ("Open World", "Post-apocalyptic", "RPG"), "rpg", id="storefront"),
        # "Adventure" means a story only beside a story tag.
        pytest.param((), ("Adventure", "Story Rich"), "narrative", id="story-adventure"),
        pytest.param((), ("Adventure", "Exploration"), "other", id="adventure-alone"),
        # A platformer that players also call a puzzle game is a puzzle platformer.
        pytest.param((), ("Platformer", "Puzzle"), "other", id="puzzle-platformer"),
        pytest.param((), ("Platformer", "Difficult"), "action", id="platformer"),
        # No tag votes: the storefront genres decide, the most specific first.
        pytest.param(("Action", "RPG"), ("Cute",), "rpg", id="storefront-only"),
        pytest.param(("Casual",), ("Cute",), "other", id="casual-names-no-genre"),
    ],
)
def test_the_vote(storefront: tuple[str, ...], tags: tuple[str, ...], expected: str) -> None:
    assert genre_for(storefront, tags, 20.0) == expected


@pytest.mark.parametrize(
    ("storefront", "tags", "expected"),
    [
        pytest.param([], ["ROGUE-LITE"], "roguelike", id="upper-case-hyphen"),
        pytest.param([], ["turn based strategy"], "strategy", id="lower-case-spaces"),
        pytest.param([], ["visual novel", "TEXT BASED"], "narrative", id="forms-any-case"),
        pytest.param(["rpg"], [], "rpg", id="storefront-rpg-lower-case"),
    ],
)
def test_matching_ignores_case_and_punctuation(
    storefront: list[str], tags: list[str], expected: str
) -> None:
    assert genre_for(storefront, tags, 30.0) == expected


@pytest.mark.parametrize(
    ("hours", "expected"),
    [
        pytest.param(0.1, "indie_short", id="minutes"),
        pytest.param(INDIE_SHORT_HOURS - 0.01, "indie_short", id="just-under"),
        pytest.param(INDIE_SHORT_HOURS, "other", id="at-the-limit-is-not-short"),
        pytest.param(None, "other", id="unknown-length-without-short-tag"),
    ],
)
def test_indie_short_boundary(hours: float | None, expected: str) -> None:
    assert genre_for(["Indie"], ["Indie", "Puzzle"], hours) == expected


def test_indie_short_only_where_no_genre_claims_the_game() -> None:
    # A short indie action game is action: indie_short is only for what no genre claims.
    assert genre_for(["Action", "Indie"], ["Action", "Indie"], 1.0) == "action"
    assert genre_for(["Indie"], ["Visual Novel", "Otome"], 1.0) == "narrative"
    assert genre_for(["Indie"], ["Puzzle"], 1.0) == "indie_short"


def test_indie_as_a_tag_counts_like_the_storefront_genre() -> None:
    assert genre_for([], ["Indie", "Cute"], 1.0) == "indie_short"
    assert genre_for(["Indie"], ["Cute"], 1.0) == "indie_short"
    assert genre_for([], ["Cute"], 1.0) == "other"
    assert genre_for([], ["Indie", "Short"], None) == "indie_short"


@pytest.mark.parametrize(
    ("storefront", "tags", "fallback", "expected"),
    [
        # Games the storefront dumps do not tag: HowLongToBeat's genres, in no vote order.
        pytest.param([], [], ["Third-Person", "Action", "Role-Playing"], "rpg", id="elden-ring"),
        pytest.param([], [], ["First-Person", "Shooter"], "shooter", id="cod-mw2"),
        pytest.param([], [], ["Top-Down", "Action", "Roguelike"], "roguelike", id="vampire-surv"),
        pytest.param([], [], ["City-Building", "Open World"], "strategy", id="satisfactory"),
        pytest.param([], [], ["Visual Novel"], "narrative", id="mirror-2"),
        pytest.param([], [], ["Side", "Platform"], "action", id="pizza-tower"),
        pytest.param([], [], ["Racing/Driving"], "other", id="racing"),
        # HLTB's genres are unordered: a puzzle platformer's platform stays action there.
        pytest.param([], [], ["Platform", "Puzzle"], "action", id="hltb-no-context"),
        # Tags or storefront genres that vote: the fallback is never consulted.
        pytest.param([], ["RPG"], ["First-Person", "Shooter"], "rpg", id="tags-win"),
        pytest.param(["Strategy"], ["Cute"], ["Shooter"], "strategy", id="storefront-wins"),
    ],
)
def test_fallback_genres_decide_only_when_nothing_else_votes(
    storefront: list[str], tags: list[str], fallback: list[str], expected: str
) -> None:
    assert genre_for(storefront, tags, 30.0, fallback_genres=fallback) == expected


def test_fallback_defaults_to_none() -> None:
    assert genre_for([], [], 54.3) == "other"
    assert genre_for([], [], 54.3, fallback_genres=()) == "other"


@given(
    st.lists(st.text(max_size=30), max_size=8),
    st.lists(st.text(max_size=30), max_size=25),
    st.none() | st.floats(min_value=0.01, max_value=5000, allow_nan=False),
    st.lists(st.text(max_size=30), max_size=10),
)
def test_every_game_gets_exactly_one_known_genre(
    storefront: list[str], tags: list[str], hours: float | None, categories: list[str]
) -> None:
    assert genre_for(storefront, tags, hours, categories=categories) in GENRES
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


# -- the labelled set ------------------------------------------------------------------------------


def _labels() -> list[dict[str, str]]:
    with LABELS.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def test_labelled_set_is_well_formed() -> None:
    rows = _labels()
    assert len(rows) >= 200
    assert len({row["appid"] for row in rows}) == len(rows)
    halves = collections.Counter(row["half"] for row in rows)
    assert set(halves) == {"popular", "random", "cited"}
    assert min(halves["popular"], halves["random"]) >= 100
    assert {row["label"] for row in rows} <= set(GENRES)
    assert all(row["reason"].strip() and "\n" not in row["reason"] for row in rows)


def test_labelled_set_agrees_with_the_rule(
    bundled: tuple[Catalog, IngestReport], capsys: pytest.CaptureFixture[str]
) -> None:
    games = {g.appid: g for g in bundled[0].games}
    rows = _labels()
    assert all(int(row["appid"]) in games for row in rows), "every labelled game is rated"
    scores: dict[str, float] = {}
    summaries: list[str] = []
    lines: list[str] = []
    for half in ("popular", "random", "cited"):
        labelled = [row for row in rows if row["half"] == half]
        confusions: collections.Counter[tuple[str, str]] = collections.Counter()
        for row in labelled:
            got = score_game(games[int(row["appid"])]).genre
            if got != row["label"]:
                confusions[row["label"], got] += 1
                lines.append(f"  {half}: {row['name']} ({row['appid']}) {row['label']} -> {got}")
        scores[half] = 1 - sum(confusions.values()) / len(labelled)
        pairs = ", ".join(f"{want}->{got} x{n}" for (want, got), n in confusions.most_common())
        summaries.append(f"{half}: {scores[half]:.0%} right of {len(labelled)}; {pairs}")
    with capsys.disabled():
        print("\ngenre labels (label -> rule):\n" + "\n".join([*summaries, *lines]))
    assert scores["popular"] >= POPULAR_TARGET
    assert scores["random"] >= RANDOM_TARGET
    assert scores["cited"] >= CITED_TARGET
    # What the docs and the site say is what was measured (issue 48: 90% in one, 91% in the
    # other); after a change of the rule, write the new figures in both.
    popular, random = f"{scores['popular']:.0%}", f"{scores['random']:.0%}"
    said = [
        ("docs/API.md", f"files {popular} of the popular half and {random} of the random half"),
        (
            "bangscore/site/templates/about_score.html",
            f"{popular} of popular games and {random} of a random sample",
        ),
    ]
    for path, words in said:
        assert words in (REPO / path).read_text(), (path, words)
