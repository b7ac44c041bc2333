"""Listings the storefront no longer sells (ingest/resolve/unsold.py): a rated game whose newest
2026 price row has no price leaves the list as ``not_for_sale``, or ``superseded`` by its
rated edition or remaster by the same developer; that edition inherits the old listing's
measured length and its share as its review prior."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bangscore.ingest.resolve import unsold
from bangscore.ingest.resolve.editions import edition_base
from bangscore.scoring.records import GameRecord, NotRated, Provenance
from tests.support.factories import make_record

PRICED = dt.datetime(2026, 7, 10, tzinfo=dt.UTC)


def listing(appid: int, name: str, **more: Any) -> GameRecord:
    """A record priced on :data:`PRICED` by the developer ``more['developer']``."""
    return make_record(
        appid=appid,
        name=name,
        developer=more.pop("developer", "Guerrilla"),
        price_observed_at=more.pop("price_observed_at", PRICED),
        **more,
    )


@pytest.mark.parametrize(
    ("unpriced_at", "price", "expected"),
    [
        pytest.param(dt.date(2026, 7, 20), 49.99, True, id="newest-row-has-no-price"),
        pytest.param(dt.date(2026, 7, 1), 49.99, False, id="priced-after-the-empty-row"),
        pytest.param(None, 49.99, False, id="never-an-empty-row"),
        pytest.param(dt.date(2026, 7, 20), 0.0, False, id="a-free-game-has-no-price-row"),
    ],
)
def test_is_unsold(unpriced_at: dt.date | None, price: float, expected: bool) -> None:
    record = listing(1, "Game", price_usd=price, list_price_usd=price)
    assert unsold.is_unsold(record, unpriced_at) is expected


@pytest.mark.parametrize(
    ("old", "new", "found"),
    [
        pytest.param(
            "Horizon Zero Dawn Complete Edition", "Horizon Zero Dawn Remastered", True, id="hzd"
        ),
        pytest.param("Darksiders", "Darksiders Warmastered Edition", True, id="darksiders"),
        pytest.param(
            "Divinity: Original Sin (Classic)",
            "Divinity: Original Sin - Enhanced Edition",
            True,
            id="dos-classic",
        ),
        pytest.param("Hades", "Hades II", False, id="a-sequel-is-no-edition"),
        pytest.param("Command & Conquer 3", "Command & Conquer 3", False, id="itself"),
    ],
)
def test_editions_of(old: str, new: str, found: bool) -> None:
    before = listing(1, old)
    after = listing(2 if found or old != new else 1, new)
    assert [r.appid for r in unsold.editions_of(before, [after])] == ([2] if found else [])


@pytest.mark.parametrize(
    ("developer", "publisher", "found"),
    [
        pytest.param("Vigil Games", "Other", True, id="same-developer"),
        pytest.param("Nixxes Software", "THQ Nordic", True, id="same-publisher"),
        pytest.param("KAIKO", "Other", False, id="another-maker"),
    ],
)
def test_an_edition_is_by_the_same_developer_or_publisher(
    developer: str, publisher: str, found: bool
) -> None:
    before = listing(1, "Darksiders", developer="Vigil Games", publisher="THQ Nordic")
    after = listing(2, "Darksiders Warmastered Edition", developer=developer, publisher=publisher)
    assert len(unsold.editions_of(before, [after])) == found


def test_one_shared_edition_index_finds_what_searching_every_record_finds() -> None:
    """unsold() builds the index once for every old listing (not a search of all 40,000
    rated records per listing): the same editions, in the same order, as the definition read
    literally (and the real catalogue joined so equals the one joined before: 2 Dec 2026)."""
    rated = [
        listing(10, "Darksiders Warmastered Edition", review_count=500),
        listing(11, "Darksiders Deluxe Edition", review_count=900),
        listing(12, "Darksiders Genesis", review_count=5_000),
        listing(13, "Horizon Zero Dawn Remastered", review_count=100),
        listing(14, "Darksiders Remastered", review_count=900, developer="Other"),
        listing(15, "Hades II", review_count=50),
    ]
    olds = [listing(1, "Darksiders"), listing(2, "Horizon Zero Dawn"), listing(3, "Hades")]

    def literal(old: GameRecord) -> list[int]:
        makers = unsold._makers(old)
        found = [
            r
            for r in rated
            if r.appid != old.appid
            and makers & unsold._makers(r)
            and edition_base(r.name) is not None
            and unsold._base(r.name) == unsold._base(old.name)
        ]
        return [r.appid for r in sorted(found, key=lambda r: -r.review_count)]

    index = unsold.edition_index(rated)
    found = [[r.appid for r in unsold.editions_of(old, rated, index)] for old in olds]
    # Darksiders Remastered shares the publisher; Deluxe is no edition phrase, Genesis no edition
    assert found == [literal(old) for old in olds] == [[14, 10], [13], []]


def test_unsold_moves_listings_out_with_their_reason() -> None:
    sony = "PlayStation Publishing LLC"
    hzd = listing(1151640, "Horizon Zero Dawn Complete Edition", publisher=sony, price_usd=49.99)
    remaster = listing(
        2561580,
        "Horizon Zero Dawn Remastered",
        developer="Nixxes Software",
        publisher=sony,
        price_usd=49.99,
    )
    cnc = listing(24790, "Command & Conquer 3: Tiberium Wars", developer="EA", price_usd=9.99)
    kept = listing(5, "Still Sold", developer="X", price_usd=9.99)
    refused = [NotRated(appid=3, name="Tiny", reason="too_few_reviews")]
    unpriced = {1151640: dt.date(2026, 7, 20), 24790: dt.date(2026, 7, 20)}
    rated, not_rated = unsold.unsold([kept, cnc, hzd, remaster], refused, unpriced)
    assert [r.appid for r in rated] == [5, 2561580]
    assert [(a.appid, a.reason, a.superseded_by) for a in not_rated] == [
        (3, "too_few_reviews", None),
        (24790, "not_for_sale", None),
        (1151640, "superseded", 2561580),
    ]


def test_an_edition_inherits_the_measured_length_and_the_share() -> None:
    length = Provenance(source="hltb_steam_2025-12", kind="play_length", date=dt.date(2025, 12, 27))
    old = listing(
        271590,
        "Grand Theft Auto V",
        developer="Rockstar North",
        review_score=0.87,
        review_count=1_700_000,
        main_story_hours=31.5,
        length_source="hltb",
        provenance={"length_hours": length},
    )
    new = listing(
        3240220,
        "Grand Theft Auto V Enhanced",
        developer="Rockstar North",
        review_score=0.80,
        review_count=2000,
        main_story_hours=22.9,
        length_source="playtime_estimate",
        estimated=("length_hours", "review_count"),
        checks=("length_shorter_than_reviewers_play",),
    )
    other = listing(7, "Other", developer="X")
    refused = [NotRated(appid=271590, name=old.name, reason="superseded", superseded_by=3240220)]
    got = unsold.inherit([new, other], {271590: old}, refused)
    assert got[1] is other
    edition = got[0]
    assert (edition.main_story_hours, edition.length_source) == (31.5, "hltb")
    assert edition.provenance["length_hours"] == length
    assert edition.estimated == ("review_count",)
    assert edition.checks == ()
    assert edition.review_prior_score == 0.87
    # Its own sample stays its own: the prior is read by the score (scoring.value).
    assert (edition.review_score, edition.review_count) == (0.80, 2000)


def test_an_edition_with_its_own_measured_length_keeps_it() -> None:
    old = listing(1, "Game", main_story_hours=10.0, length_source="hltb", review_score=0.9)
    new = listing(2, "Game Remastered", main_story_hours=12.0, length_source="hltb")
    refused = [NotRated(appid=1, name="Game", reason="superseded", superseded_by=2)]
    (edition,) = unsold.inherit([new], {1: old}, refused)
    assert (edition.main_story_hours, edition.review_prior_score) == (12.0, 0.9)


def test_a_multiplayer_first_edition_keeps_how_long_players_play() -> None:
    # Space Hulk: Deathwing - Enhanced Edition: judged by play, not the old listing's campaign.
    old = listing(1, "Game", main_story_hours=10.0, length_source="hltb", review_score=0.7)
    new = listing(2, "Game Enhanced Edition", main_story_hours=40.0, length_source="playtime")
    refused = [NotRated(appid=1, name="Game", reason="superseded", superseded_by=2)]
    (edition,) = unsold.inherit([new], {1: old}, refused)
    assert (edition.main_story_hours, edition.length_source) == (40.0, "playtime")
    assert edition.review_prior_score == 0.7
