"""The real catalogue's price histories against the raw 2026 price dumps
(docs/API.md#prices-and-dates): every rated app's ``price_history`` holds the first day of
every price run the dumps saw, and its historical low is one of its points."""

from __future__ import annotations

import pytest

from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.records import Catalog
from tests.support.raw_prices import raw_prices, run_starts

pytestmark = pytest.mark.slow


def test_every_price_run_the_dumps_saw_starts_a_point_of_the_history(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    catalog, _ = bundled
    dumps = raw_prices()
    wrong: list[str] = []
    checked = runs = 0
    for rec in catalog.games:
        observed = dumps.get(rec.appid)
        if not observed:
            continue
        checked += 1
        # A point a day (the day's lowest price): each run's first day is a point, at that
        # run's price or a lower one the dumps saw the same day (two runs in one day).
        points = {p.date: round(p.price_usd * 100) for p in rec.price_history}
        for day, cents in run_starts(observed):
            runs += 1
            if day not in points or points[day] > cents:
                wrong.append(f"{rec.appid} {rec.name}: no point {day} at {cents / 100}")
    # 30,000 rated apps the dumps price, most seen in and after the 2026 Summer Sale.
    assert checked > 30_000 and runs > checked
    assert wrong[:10] == [] and len(wrong) == 0


def test_the_historical_low_is_a_point_of_the_history_marked_when_estimated(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    catalog, _ = bundled
    wrong: list[str] = []
    estimated = 0
    for rec in catalog.games:
        if rec.historical_low_usd is None:
            continue
        cents = round(rec.historical_low_usd * 100)
        points = [
            p
            for p in rec.price_history
            if p.date == rec.historical_low_at and round(p.price_usd * 100) == cents
        ]
        lower = [p for p in rec.price_history if round(p.price_usd * 100) < cents]
        marked = "historical_low_usd" in rec.estimated
        if not points or lower or points[0].estimated is not marked:
            wrong.append(f"{rec.appid} {rec.name}: low {rec.historical_low_usd} not its point")
        estimated += marked
    assert estimated > 100
    assert wrong[:10] == []
