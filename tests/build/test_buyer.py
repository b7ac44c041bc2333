"""Dated prices, verdict fields and genre typicals of scored games (docs/API.md#verdict)."""

from __future__ import annotations

import datetime as dt

from bangscore.build.buyer import (
    buyer_fields,
    genre_typicals,
    price_date,
    price_points,
    prices_as_of,
)
from bangscore.build.wire import detail_record, list_item
from bangscore.scoring import value
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import PriceObservation, Provenance, Sources
from bangscore.site.history_chart import HistoryPoint
from tests.support.factories import make_record

PRICE_DAY = dt.date(2026, 7, 24)
SITE = "http://bangscore.test"
LOW_DAY = dt.date(2025, 10, 16)


def dated(**overrides: object) -> object:
    return make_record(
        provenance={
            "price_usd": Provenance(
                source="steam_prices_usd_2026", kind="storefront", date=PRICE_DAY
            ),
            "historical_low_usd": Provenance(
                source="itad_2025", kind="price_history", date=LOW_DAY
            ),
        },
        **overrides,
    )


def test_price_points_without_a_history_are_the_price_and_the_low_on_their_sources_dates() -> None:
    record = dated(price_usd=40.0, list_price_usd=40.0, historical_low_usd=10.0)
    assert price_points(record) == [  # type: ignore[arg-type]
        HistoryPoint(LOW_DAY, 10.0, 40.0, 75, "itad_2025"),
        HistoryPoint(PRICE_DAY, 40.0, 40.0, 0, "steam_prices_usd_2026"),
    ]
    assert price_date(record) == PRICE_DAY  # type: ignore[arg-type]


def test_price_date_falls_back_on_the_storefront_date() -> None:
    record = make_record(sources=Sources(storefront=dt.date(2024, 10, 31)))
    assert price_date(record) == dt.date(2024, 10, 31)
    assert price_points(record) == [
        HistoryPoint(dt.date(2024, 10, 31), 19.99, 19.99, 0, "storefront")
    ]


def test_buyer_fields_wait_for_the_seen_price_that_makes_it_a_banger() -> None:
    # A well-reviewed 6-hour game at $60: fair now (worth it at $24.05, a banger at $13.23);
    # its low of $5.00 on 16 Oct 2025 (within the year before 24 Jul 2026) makes it a banger,
    # so the wait names that seen price, its date and the saving.
    fair = dated(
        price_usd=60.0,
        list_price_usd=60.0,
        historical_low_usd=5.0,
        review_score=0.95,
        main_story_hours=6.0,
    )
    poor = dated(
        price_usd=60.0,
        list_price_usd=60.0,
        historical_low_usd=1.0,
        review_score=0.6,
        main_story_hours=3.0,
    )
    games = score_catalog([fair, poor])  # type: ignore[list-item]
    assert [(g.tier, g.worth_it_at_usd, g.becomes_banger_at_usd) for g in games] == [
        ("fair", 24.05, 13.23),
        ("skip", None, None),
    ]
    waited, skipped = buyer_fields(games, PRICE_DAY)
    assert waited == {
        "verdict": "wait_for_sale",
        "verdict_price_usd": 5.0,
        "verdict_price_seen_at": "2025-10-16",  # the day the text names
        "verdict_text": f"Game {games[0].record.appid} is fair value at $60.00 "
        "on 24 Jul 2026; it sold at $5.00 on 16 Oct 2025, a price that makes it a banger: wait "
        "for $5.00 or less ($55.00, 91% less).",
        "genre_percentile": waited["genre_percentile"],
        "recent_low_usd": 5.0,
        "recent_low_at": "2025-10-16",
        "ended_sale_usd": None,
        "ended_sale_at": None,
        # Seen in no seasonal sale (16 Oct 2025 fell in none): too thin to forecast.
        "next_sale": None,
    }
    assert skipped["verdict"] == "skip" and skipped["verdict_price_usd"] is None
    assert skipped["verdict_price_seen_at"] is None
    assert skipped["verdict_text"] == (
        f"Game {games[1].record.appid} is poor value at $60.00 on 24 Jul 2026: skip it; no "
        "price makes it worth it, as only 60% of its 1,000 reviews (lifetime, as of 1 Jan 2025) "
        "are positive, and it is short for its genre."
    )


def test_genre_typicals_are_what_the_score_judges_against() -> None:
    records = [
        make_record(price_usd=10.0, list_price_usd=10.0, main_story_hours=10.0, tags=("RPG",)),
        make_record(price_usd=30.0, list_price_usd=30.0, main_story_hours=10.0, tags=("RPG",)),
        make_record(price_usd=0.0, list_price_usd=0.0, main_story_hours=40.0, tags=("RPG",)),
    ]
    games = score_catalog(records)
    genre = games[0].genre
    assert all(g.genre == genre for g in games)
    typical = genre_typicals(games)[genre]
    # The genre's established games (make calibrate), not these three: the page's words name
    # what the score weighed (score version 5.0: price docks above the genre's worth per hour).
    assert typical.price_per_hour == value.usd_per_hour(genre)
    assert typical.hours == value.GENRE_NORM_HOURS[genre]
    assert prices_as_of(games) is None or isinstance(prices_as_of(games), dt.date)


def test_a_game_seen_in_seasonal_sales_carries_its_forecast_to_the_list_item_and_detail() -> None:
    # Seen at $8.99 (40% off $14.99) in the Winter Sale 2024 and the Summer Sale 2026, at its
    # list price since: the next sale after 24 Jul 2026 is the Autumn Sale (published dates).
    def point(day: dt.date, price: float) -> PriceObservation:
        off = round(100 * (1 - price / 14.99))
        return PriceObservation(
            date=day, price_usd=price, list_price_usd=14.99, discount_percent=off, source="t"
        )

    history = (
        point(dt.date(2025, 1, 1), 8.99),
        point(dt.date(2026, 6, 30), 8.99),
        point(PRICE_DAY, 14.99),
    )
    seen = make_record(
        price_usd=14.99,
        list_price_usd=14.99,
        price_history=history,
        price_observed_at=dt.datetime(2026, 7, 24, tzinfo=dt.UTC),
    )
    free = make_record(price_usd=0.0, list_price_usd=0.0, price_history=(point(PRICE_DAY, 0),))
    games = score_catalog([seen, free])
    by_appid = {g.record.appid: g for g in games}
    fields = dict(zip((g.record.appid for g in games), buyer_fields(games, PRICE_DAY), strict=True))
    assert fields[seen.appid]["next_sale"] == {
        "name": "Autumn Sale",
        "starts": "2026-10-01",
        "ends": "2026-10-08",
        "expected": False,
        "expected_price_usd": 8.99,
        # The rule's 1.0, calibrated: 93.4% of such games were discounted in the backtest.
        "discounted_likelihood": 0.934,
        # Repeats of a 40%-off sale put 38.1% of their prices within 10% in the backtest.
        "confidence": "low",
        "basis": "sold at $8.99 in the last 2 of 2 seasonal sales seen",
    }
    assert fields[free.appid]["next_sale"] is None
    # Built on 1 Dec 2026: the Winter Sale, and the basis dates prices over 30 days old.
    later = buyer_fields(games, PRICE_DAY, dt.date(2026, 12, 1))[games.index(by_appid[seen.appid])]
    assert (later["next_sale"]["name"], later["next_sale"]["starts"]) == (
        "Winter Sale",
        "2026-12-17",
    )
    assert later["next_sale"]["basis"].endswith("; prices last seen 24 Jul 2026")
    prices_at = dt.datetime(2026, 7, 24, 14, tzinfo=dt.UTC)
    item = list_item(by_appid[seen.appid], SITE, fields[seen.appid], prices_at)
    assert (item["next_sale_price_usd"], item["next_sale_starts"]) == (8.99, "2026-10-01")
    assert item["next_sale_confidence"] == "low"
    detail = detail_record(by_appid[seen.appid], SITE, prices_at, fields[seen.appid], item)
    assert detail["next_sale"] == fields[seen.appid]["next_sale"]
    empty = list_item(by_appid[free.appid], SITE, fields[free.appid], prices_at)
    assert (empty["next_sale_price_usd"], empty["next_sale_starts"]) == (None, None)
