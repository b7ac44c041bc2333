"""Superseded listings (ingest/resolve/editions.py): an old listing no 2026 source sees gives
way to its rated edition by the same developer, never to a sequel."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bangscore.ingest.catalog import IngestReport
from bangscore.ingest.resolve import editions
from bangscore.scoring.records import Catalog, GameRecord, NotRated, Provenance
from tests.support.factories import make_record

OLD = dt.date(2025, 1, 1)
NEW = dt.date(2026, 7, 1)


def listing(appid: int, name: str, seen: dt.date, **more: Any) -> GameRecord:
    """A record whose every input dates from ``seen``."""
    return make_record(
        appid=appid,
        name=name,
        developer=more.pop("developer", "Rockstar North"),
        provenance={"price_usd": Provenance(source="prices", kind="storefront", date=seen)},
        price_observed_at=dt.datetime(seen.year, seen.month, seen.day, tzinfo=dt.UTC),
        **more,
    )


@pytest.mark.parametrize(
    ("name", "base"),
    [
        pytest.param("Grand Theft Auto V Enhanced", "grand theft auto v", id="enhanced"),
        pytest.param(
            "The Elder Scrolls V: Skyrim Special Edition",
            "the elder scrolls v skyrim",
            id="special-edition",
        ),
        pytest.param("Dishonored - Definitive Edition", "dishonored", id="dashed"),
        pytest.param("Alan Wake Remastered", "alan wake", id="remastered"),
        pytest.param("Hades II", None, id="a-sequel-is-no-edition"),
        pytest.param("Enhanced", None, id="the-phrase-alone"),
    ],
)
def test_edition_base(name: str, base: str | None) -> None:
    assert editions.edition_base(name) == base


def test_an_unseen_listing_gives_way_to_its_seen_edition() -> None:
    old = listing(271590, "Grand Theft Auto V", OLD)
    new = listing(3240220, "Grand Theft Auto V Enhanced", NEW)
    other = listing(5, "Another Game", OLD)
    refused = [NotRated(appid=3, name="Tiny", reason="too_few_reviews")]
    rated, not_rated = editions.supersede([old, other, new], refused, 2026)
    assert [r.appid for r in rated] == [5, 3240220]
    assert [(a.appid, a.reason, a.superseded_by) for a in not_rated] == [
        (3, "too_few_reviews", None),
        (271590, "superseded", 3240220),
    ]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(
            listing(1, "Grand Theft Auto V", NEW),
            listing(2, "Grand Theft Auto V Enhanced", NEW),
            id="the-old-one-is-still-seen",
        ),
        pytest.param(
            listing(1, "Grand Theft Auto V", OLD),
            listing(2, "Grand Theft Auto V Enhanced", OLD),
            id="the-edition-is-not-seen-either",
        ),
        pytest.param(
            listing(1, "Grand Theft Auto V", OLD),
            listing(2, "Grand Theft Auto V Enhanced", NEW, developer="Someone Else"),
            id="another-developer",
        ),
        pytest.param(
            listing(1, "Hades", OLD, developer="Supergiant Games"),
            listing(2, "Hades II", NEW, developer="Supergiant Games"),
            id="a-sequel",
        ),
    ],
)
def test_nothing_else_is_superseded(old: GameRecord, new: GameRecord) -> None:
    assert editions.superseded([old, new], 2026) == {}


def test_a_price_seen_in_the_year_is_seen() -> None:
    record = listing(1, "Game", OLD)
    assert not editions.seen_in(record, 2026)
    assert editions.seen_in(record, 2025)


def test_the_bundled_superseded_listings(bundled: tuple[Catalog, IngestReport]) -> None:
    # GTA V (last seen 1 Jan 2025, "buy at $14.80") was #562 against GTA V Enhanced #10,104 in
    # score version 4.0, Skyrim (2011) #297 against Skyrim Special Edition #6,753.
    catalog, report = bundled
    gone = {a.appid: a for a in catalog.not_rated if a.reason == "superseded"}
    assert (gone[271590].superseded_by, gone[72850].superseded_by) == (3240220, 489830)
    rated = {g.appid for g in catalog.games}
    assert {3240220, 489830, 1145360, 1145350} <= rated  # Hades stays beside Hades II
    assert all(a.superseded_by in rated for a in gone.values())
    assert report.dropped["superseded"] == len(gone)
