"""Checks a build makes before it publishes (docs/API.md#snapshots): an operator's bad
catalogue is refused with one sentence, and the current snapshot stays as it was.

Pure functions over the catalogue's records and the previous snapshot's game count; the
command line turns a :class:`CatalogRefused` into ``error: ...`` and exit status 1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from bangscore.errors import CatalogRefused
from bangscore.scoring.records import GameRecord

MAX_PRICE_USD = 10_000.0  # Steam's own ceiling is far below; past this a price is a typo
MAX_SHRINK = 0.2  # a rated set smaller by more than this share needs --allow-shrink


def check_catalog(records: Sequence[GameRecord]) -> None:
    """Given a catalogue's records, raise CatalogRefused if it has no game, an appid twice,
    or a price that is not a finite number of dollars up to :data:`MAX_PRICE_USD`."""
    if not records:
        raise CatalogRefused("the catalogue has no game; nothing would be served")
    twice = sorted(appid for appid, n in Counter(r.appid for r in records).items() if n > 1)
    if twice:
        shown = ", ".join(str(a) for a in twice[:5])
        raise CatalogRefused(f"the catalogue lists {len(twice)} appid(s) twice: {shown}")
    for r in records:
        for name in ("price_usd", "list_price_usd"):
            value = getattr(r, name)
            if not math.isfinite(value) or value > MAX_PRICE_USD:
                raise CatalogRefused(
                    f"appid {r.appid}: {name} {value!r} is not a price from 0 to "
                    f"{MAX_PRICE_USD:,.0f} USD"
                )


def check_shrink(rated: int, previous: int | None, *, allow_shrink: bool) -> None:
    """Given the games this build rates and the current snapshot's (None: no snapshot yet),
    raise CatalogRefused if the set shrank by more than :data:`MAX_SHRINK` and
    ``allow_shrink`` is not given."""
    if rated == 0:
        raise CatalogRefused("the build rates no game; nothing would be served")
    if previous and not allow_shrink and rated < previous * (1 - MAX_SHRINK):
        raise CatalogRefused(
            f"the build rates {rated:,} games, {1 - rated / previous:.0%} fewer than the "
            f"current snapshot's {previous:,}; pass --allow-shrink to publish it anyway"
        )
