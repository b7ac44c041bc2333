"""The bundled 2026 US price dumps read raw, for the tests that hold our catalogue to them
(data/raw/steam_prices_usd_2026-07_history: 28 versions of one scraper's ``prices.json``).

Read with nothing of ``bangscore.ingest``: a check of the catalogue against the dumps must not
share the code it checks."""

from __future__ import annotations

import datetime as dt
import functools
import gzip
from pathlib import Path

import orjson

DUMPS = Path(__file__).resolve().parents[2] / "data/raw/steam_prices_usd_2026-07_history/raw"
# What the dumps saw of one app: (scrape time UTC, price paid in whole cents), oldest first.
Observed = tuple[tuple[dt.datetime, int], ...]


@functools.cache
def raw_prices() -> dict[int, Observed]:
    """Return every app's observations in the 2026 dumps: for each appid, (``scraped_at`` as
    UTC, ``price_final`` in cents) oldest first, one per scrape time; rows with null prices (free
    or not for sale) or a price above the list price (the scraper's own errors) left out."""
    seen: dict[int, dict[dt.datetime, int]] = {}
    for path in sorted(DUMPS.glob("prices.json@*.json.gz")):
        for key, row in orjson.loads(gzip.decompress(path.read_bytes()))["prices"].items():
            final, initial, at = (
                row.get("price_final"),
                row.get("price_initial"),
                row.get("scraped_at"),
            )
            if final is None or initial is None or not at or not 0 <= final <= initial:
                continue
            moment = dt.datetime.fromtimestamp(at, dt.UTC)
            seen.setdefault(int(key), {})[moment] = round(final * 100)
    return {appid: tuple(sorted(by.items())) for appid, by in seen.items()}


def run_starts(
    observed: Observed, gap: dt.timedelta = dt.timedelta(days=14)
) -> list[tuple[dt.date, int]]:
    """Given one app's observations, return (day, cents) of the first observation of every run
    of one price: the first observation, each whose price differs from the one before, and each
    after more than ``gap`` without an observation."""
    return [
        (at.date(), cents)
        for i, (at, cents) in enumerate(observed)
        if i == 0 or observed[i - 1][1] != cents or at - observed[i - 1][0] > gap
    ]


@functools.cache
def raw_unpriced() -> dict[int, dt.datetime]:
    """Return, for every app whose newest row in the 2026 dumps has null prices (the
    storefront answered with no price: free or not for sale), that row's scrape time (UTC)."""
    newest: dict[int, tuple[dt.datetime, bool]] = {}
    for path in sorted(DUMPS.glob("prices.json@*.json.gz")):
        for key, row in orjson.loads(gzip.decompress(path.read_bytes()))["prices"].items():
            at = row.get("scraped_at")
            if not at:
                continue
            moment = dt.datetime.fromtimestamp(at, dt.UTC)
            empty = row.get("price_final") is None and row.get("price_initial") is None
            if int(key) not in newest or moment >= newest[int(key)][0]:
                newest[int(key)] = (moment, empty)
    return {appid: at for appid, (at, empty) in newest.items() if empty}


@functools.cache
def raw_newest() -> dict[int, tuple[dt.datetime, int, int]]:
    """Return every app's newest priced row in the 2026 dumps: ``(scrape time UTC,
    price_final, price_initial)``, prices in whole cents (rows left out as :func:`raw_prices`
    leaves them out)."""
    newest: dict[int, tuple[dt.datetime, int, int]] = {}
    for path in sorted(DUMPS.glob("prices.json@*.json.gz")):
        for key, row in orjson.loads(gzip.decompress(path.read_bytes()))["prices"].items():
            final, initial, at = (
                row.get("price_final"),
                row.get("price_initial"),
                row.get("scraped_at"),
            )
            if final is None or initial is None or not at or not 0 <= final <= initial:
                continue
            moment = dt.datetime.fromtimestamp(at, dt.UTC)
            if int(key) not in newest or moment >= newest[int(key)][0]:
                newest[int(key)] = (moment, round(final * 100), round(initial * 100))
    return newest


RECENT = DUMPS.parents[1] / "steam_review_playtime_2026/playtime.json.gz"


@functools.cache
def raw_recent_reviews() -> dict[int, tuple[int, int]]:
    """Return each game's recent review sample in the 2026 dump, ``(n_up, n_down)``."""
    rows = orjson.loads(gzip.decompress(RECENT.read_bytes()))["playtime"]
    return {int(k): (int(v[2] or 0), int(v[3] or 0)) for k, v in rows.items()}
