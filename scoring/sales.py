"""The storefront's seasonal sales, dated: which Steam sale a price was seen in
(docs/API.md#verdict).

A wait for a sale names the sale its price fell in ("$8.99 in the Summer Sale (30 Jun 2026)"),
so a buyer knows which event to wait for. Steam runs four store-wide seasonal sales a year
(Spring, Summer, Autumn, Winter) since 2023, when the Spring Sale replaced the Lunar New Year
Sale; each starts and ends at 10:00 Pacific time, so a sale's days here run from its first
day to its last, both included (UTC dates: an observation at midnight UTC of the last day is
still inside it).

:data:`SALES` is the table, one :class:`Sale` per event from the Winter Sale of 2022 (it ran
into January 2023) to the Winter Sale of 2026, the last Valve's published calendar dates (the
bundled prices' as-of day is 24 Jul 2026). Every row names its source: Valve's announcements on
the Steamworks "Seasonal Sales" page (partner.steamgames.com/doc/marketing/discounts/seasonalsales)
and the press that reported them. :func:`upcoming` gives the next sale of each season after a
day (the sale forecast's calendar, :mod:`scoring.forecast`): a published row, else the pattern
of past years (52 weeks on), marked ``expected``. A price seen outside every row is named by its
date alone. The table is checked against the bundled 2026 price dumps in
tests/scoring/test_sales.py (the discounts they saw from 30 Jun to 9 Jul 2026 fall in the
Summer Sale 2026).
"""

from __future__ import annotations

import datetime as dt
from typing import Final, NamedTuple

__all__ = ["SALES", "YEAR", "Sale", "sale_on", "upcoming"]


class Sale(NamedTuple):
    """One seasonal sale of the storefront: its ``name`` as Valve titles it ("Summer Sale"),
    its ``year`` (the year it starts), its first and last day (``start``, ``end``, inclusive)
    and the ``source`` that dates it (a URL or a publication)."""

    name: str
    year: int
    start: dt.date
    end: dt.date
    source: str
    expected: bool = False

    @property
    def title(self) -> str:
        """Return the sale's name with its year, as Valve titles it: "Winter Sale 2024"."""
        return f"{self.name} {self.year}"


_STEAMWORKS: Final = "https://partner.steamgames.com/doc/marketing/discounts/seasonalsales"
_D = dt.date

SALES: Final[tuple[Sale, ...]] = (
    Sale(
        "Winter Sale",
        2022,
        _D(2022, 12, 22),
        _D(2023, 1, 5),
        "Valve, announced Sep 2022 (gameranx.com, 28 Sep 2022; pcinvasion.com)",
    ),
    Sale(
        "Spring Sale",
        2023,
        _D(2023, 3, 16),
        _D(2023, 3, 23),
        "Valve, announced Sep 2022 (gameranx.com, 28 Sep 2022; pcinvasion.com)",
    ),
    Sale("Summer Sale", 2023, _D(2023, 6, 29), _D(2023, 7, 13), _STEAMWORKS),
    Sale("Autumn Sale", 2023, _D(2023, 11, 21), _D(2023, 11, 28), _STEAMWORKS),
    Sale("Winter Sale", 2023, _D(2023, 12, 21), _D(2024, 1, 4), _STEAMWORKS),
    Sale("Spring Sale", 2024, _D(2024, 3, 14), _D(2024, 3, 21), _STEAMWORKS),
    Sale("Summer Sale", 2024, _D(2024, 6, 27), _D(2024, 7, 11), _STEAMWORKS),
    Sale("Autumn Sale", 2024, _D(2024, 11, 27), _D(2024, 12, 4), _STEAMWORKS),
    Sale("Winter Sale", 2024, _D(2024, 12, 19), _D(2025, 1, 2), _STEAMWORKS),
    Sale("Spring Sale", 2025, _D(2025, 3, 13), _D(2025, 3, 20), _STEAMWORKS),
    Sale("Summer Sale", 2025, _D(2025, 6, 26), _D(2025, 7, 10), _STEAMWORKS),
    Sale("Autumn Sale", 2025, _D(2025, 9, 29), _D(2025, 10, 6), _STEAMWORKS),
    Sale("Winter Sale", 2025, _D(2025, 12, 18), _D(2026, 1, 5), _STEAMWORKS),
    Sale("Spring Sale", 2026, _D(2026, 3, 19), _D(2026, 3, 26), _STEAMWORKS),
    Sale(
        "Summer Sale",
        2026,
        _D(2026, 6, 25),
        _D(2026, 7, 9),
        f"{_STEAMWORKS}; blog.progressiverobot.com, 2 Jun 2026",
    ),
    # Published ahead: Valve's 2026 calendar (Dec 2025), as reported with its Spring and Summer
    # dates (which match the Steamworks rows above). A press report, one source: when Valve's
    # page says otherwise, it wins.
    Sale(
        "Autumn Sale",
        2026,
        _D(2026, 10, 1),
        _D(2026, 10, 8),
        "Valve's 2026 calendar, as reported by ingamenews.com (Jan 2026)",
    ),
    Sale(
        "Winter Sale",
        2026,
        _D(2026, 12, 17),
        _D(2027, 1, 4),
        "Valve's 2026 calendar, as reported by ingamenews.com (Jan 2026)",
    ),
)

# A seasonal sale comes back 52 weeks after the same sale a year before, on the same weekday
# (Valve starts them on a Thursday or a Monday): so 8 of the 11 year-on-year steps of the table
# above (Winter 2022-2025, Spring 2023-2025, Summer 2023-2026; not Spring 2026, one week later,
# nor Autumn 2024 and 2025, moved). Unpublished sales are projected so, marked ``expected``.
YEAR: Final = dt.timedelta(weeks=52)
SEASONS: Final = ("Spring Sale", "Summer Sale", "Autumn Sale", "Winter Sale")


def upcoming(after: dt.date, table: tuple[Sale, ...] = SALES) -> list[Sale]:
    """Given a day (UTC) and the dated table, return the next four seasonal sales that start
    after it, one of each season, soonest first: a published row of the table where it has
    one, else the season's latest row moved on by :data:`YEAR` (52 weeks) until it starts
    after the day, marked ``expected`` with a source naming the row it came from."""
    found: list[Sale] = []
    for name in SEASONS:
        rows = [s for s in table if s.name == name]
        published = [s for s in rows if s.start > after]
        if published:
            found.append(min(published, key=lambda s: s.start))
            continue
        last = max(rows, key=lambda s: s.start)
        start, end = last.start, last.end
        while start <= after:
            start, end = start + YEAR, end + YEAR
        found.append(
            Sale(
                name,
                start.year,
                start,
                end,
                f"expected: the {last.title} moved on by whole years of 52 weeks",
                expected=True,
            )
        )
    return sorted(found, key=lambda s: s.start)


def sale_on(day: dt.date) -> Sale | None:
    """Given a day (UTC), return the seasonal sale running on it (first and last day
    included), or None when no dated sale of :data:`SALES` covers it."""
    for sale in SALES:
        if sale.start <= day <= sale.end:
            return sale
    return None


# No seasonal sale runs longer than this (the Winter and Summer Sales: 15 days).
LONGEST_SALE: Final = dt.timedelta(days=21)


def next_sale(day: dt.date) -> Sale:
    """Given the snapshot's day, return the next seasonal sale that ends on or after it: the
    sale running that day, else the next one to start."""
    running = [s for s in upcoming(day - LONGEST_SALE) if s.end >= day]
    return min(running, key=lambda s: s.start)
