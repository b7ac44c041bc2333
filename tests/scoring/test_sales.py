"""The storefront's seasonal sales as dated data (scoring.sales): the lookup, the table's shape,
and the table against the bundled 2026 price dumps (data/raw, read raw)."""

from __future__ import annotations

import collections
import datetime as dt
import gzip
import itertools
from pathlib import Path

import orjson
import pytest

from bangscore.scoring.sales import SALES, sale_on, upcoming

DUMPS = Path(__file__).resolve().parents[2] / "data/raw/steam_prices_usd_2026-07_history/raw"


@pytest.mark.parametrize(
    ("day", "expected"),
    [
        pytest.param(dt.date(2025, 1, 1), "Winter Sale 2024", id="elden-ring-1-jan-2025"),
        pytest.param(dt.date(2024, 12, 19), "Winter Sale 2024", id="first-day"),
        pytest.param(dt.date(2025, 1, 2), "Winter Sale 2024", id="last-day"),
        pytest.param(dt.date(2025, 1, 3), None, id="day-after"),
        pytest.param(dt.date(2026, 6, 30), "Summer Sale 2026", id="stardew-30-jun-2026"),
        pytest.param(dt.date(2026, 7, 9), "Summer Sale 2026", id="summer-2026-last-day"),
        pytest.param(dt.date(2026, 7, 13), None, id="after-the-summer-sale"),
        pytest.param(dt.date(2024, 10, 31), None, id="the-2024-catalogue-date"),
        pytest.param(dt.date(2023, 2, 4), None, id="steamspy-2023"),
        pytest.param(dt.date(2023, 1, 4), "Winter Sale 2022", id="january-2023"),
        pytest.param(dt.date(2025, 10, 1), "Autumn Sale 2025", id="autumn-moved-to-october"),
        pytest.param(dt.date(2023, 3, 20), "Spring Sale 2023", id="first-spring-sale"),
    ],
)
def test_sale_on(day: dt.date, expected: str | None) -> None:
    found = sale_on(day)
    assert (found.title if found else None) == expected


def test_the_table_covers_four_sales_a_year_in_order_each_with_a_source() -> None:
    for before, after in itertools.pairwise(SALES):
        assert before.end < after.start, (before, after)
    for sale in SALES:
        assert sale.start <= sale.end and sale.source
        assert sale.start.year == sale.year
    by_year = collections.Counter(s.year for s in SALES)
    assert by_year[2023] == by_year[2024] == by_year[2025] == 4
    # 2026: Spring and Summer before the bundled prices' as-of day (24 Jul 2026), Autumn and
    # Winter published ahead.
    assert [s.name for s in SALES if s.year == 2026] == [
        "Spring Sale",
        "Summer Sale",
        "Autumn Sale",
        "Winter Sale",
    ]
    assert not any(s.expected for s in SALES)


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        pytest.param(
            dt.date(2026, 7, 24),
            [
                ("Autumn Sale 2026", "2026-10-01", False),
                ("Winter Sale 2026", "2026-12-17", False),
                ("Spring Sale 2027", "2027-03-18", True),
                ("Summer Sale 2027", "2027-06-24", True),
            ],
            id="after-the-bundled-prices",
        ),
        pytest.param(
            dt.date(2026, 6, 24),
            [
                ("Summer Sale 2026", "2026-06-25", False),
                ("Autumn Sale 2026", "2026-10-01", False),
                ("Winter Sale 2026", "2026-12-17", False),
                ("Spring Sale 2027", "2027-03-18", True),
            ],
            id="the-day-before-the-held-out-summer-sale",
        ),
        pytest.param(
            dt.date(2028, 1, 1),
            [
                ("Spring Sale 2028", "2028-03-16", True),
                ("Summer Sale 2028", "2028-06-22", True),
                ("Autumn Sale 2028", "2028-09-28", True),
                ("Winter Sale 2028", "2028-12-14", True),
            ],
            id="years-past-the-table",
        ),
    ],
)
def test_upcoming_gives_the_next_sale_of_each_season(
    after: dt.date, expected: list[tuple[str, str, bool]]
) -> None:
    found = upcoming(after)
    assert [(s.title, s.start.isoformat(), s.expected) for s in found] == expected
    for sale in found:
        # Projected sales keep the weekday and the length of the row they come from.
        assert sale.start > after and sale.source
        if sale.expected:
            row = max((s for s in SALES if s.name == sale.name), key=lambda s: s.start)
            assert sale.start.weekday() == row.start.weekday()
            assert sale.end - sale.start == row.end - row.start


def test_the_dumps_see_the_summer_sale_2026_where_the_table_dates_it() -> None:
    """Every scrape of the 2026 dumps inside the Summer Sale 2026 saw most priced apps
    discounted, and every scrape outside any sale saw fewer than a fifth discounted."""
    # Counted by UTC day number (seconds // 86,400), turned into dates once: 430,000 rows.
    by_day: dict[int, list[int]] = {}
    for path in sorted(DUMPS.glob("prices.json@*.json.gz")):
        for row in orjson.loads(gzip.decompress(path.read_bytes()))["prices"].values():
            if row.get("price_final") is None or not row.get("scraped_at"):
                continue
            counts = by_day.setdefault(int(row["scraped_at"] // 86_400), [0, 0])
            counts[bool(row.get("discount_pct"))] += 1
    epoch = dt.date(1970, 1, 1)
    share = {epoch + dt.timedelta(days=n): counts for n, counts in by_day.items()}
    assert len(share) >= 8
    for day, (full, discounted) in share.items():
        found = sale_on(day)
        ratio = discounted / (full + discounted)
        if found is not None:
            assert found.title == "Summer Sale 2026" and ratio > 0.5, (day, ratio)
        else:
            assert ratio < 0.2, (day, ratio)
