"""A build as of a day on the real bundled dumps (``bangscore build --as-of``,
docs/API.md#snapshots): the catalogue of 24 Jun 2026, the eve of the Summer Sale 2026, holds
no observation dated after that day, and its forecast names the sale that started the next
day."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.build.buyer import buyer_fields
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import Catalog, GameRecord
from tests.support.real_catalogue import EVE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def eve(real_eve: tuple[Catalog, list[ScoredGame]]) -> Catalog:
    """The real catalogue as 24 Jun 2026 knew it (the session's, kept with its scored games)."""
    return real_eve[0]


def _dates(record: GameRecord) -> list[tuple[str, dt.date]]:
    """Every date a record holds of what was observed, named."""
    found = [(f"price_history {p.source}", p.date) for p in record.price_history]
    found += [(f"sources.{k}", v) for k, v in record.sources.model_dump().items() if v]
    found += [(f"provenance.{k}", p.date) for k, p in record.provenance.items()]
    if record.price_observed_at is not None:
        found.append(("price_observed_at", record.price_observed_at.date()))
    if record.historical_low_at is not None:
        found.append(("historical_low_at", record.historical_low_at))
    if record.reviews is not None:
        found.append(("reviews.sampled_on", record.reviews.sampled_on))
    if record.early_window is not None:
        found.append(("early_window", record.early_window.window.to))
    return found


def test_the_catalogue_as_of_a_day_holds_no_later_observation(eve: Catalog) -> None:
    assert eve.prices_as_of is not None and eve.prices_as_of.date() <= EVE
    assert len(eve.games) > 15_000  # 17,179: what only the 2026 dumps know is not in it
    later = [f"{r.appid} {what} {day}" for r in eve.games for what, day in _dates(r) if day > EVE]
    assert later[:10] == []
    # It is not the default catalogue cut short: no 2026 price is in it at all (the first
    # scrape of the 2026 dumps is from 26 Jun).
    assert not any(p.date.year == 2026 for r in eve.games for p in r.price_history)


def test_the_forecast_as_of_the_eve_names_the_summer_sale(
    real_eve: tuple[Catalog, list[ScoredGame]],
) -> None:
    eve, games = real_eve  # games: score_catalog(eve.games), kept with the catalogue
    assert eve.prices_as_of is not None
    coming = [b["next_sale"] for b in buyer_fields(games, eve.prices_as_of.date(), EVE)]
    named = {(f["name"], f["starts"]) for f in coming if f is not None}
    assert named == {("Summer Sale", "2026-06-25")}
