"""Readers of the bundled 2024-2026 dumps, each yielding :class:`Observation` s by appid.

One function per dump (provenance of every file: ``data/README.md``). A reader never raises on
a bad row: it skips what it cannot read (an unparsable number, a missing id) and yields the
rest; it raises ``OSError`` only when the file itself cannot be read. Field names are the
catalog's (:mod:`ingest.catalog` lists them all); values are plain Python values in the
record's units: US dollars, hours, fractions 0..1, ``datetime.date``.

The reader of Steam's PICS app info is :mod:`ingest.dumps.pics`, the 2024 store catalogue's
:mod:`ingest.dumps.insights`; the cells all of them read (a number, a day, a JSON file) are
:mod:`ingest.dumps.cells`. The readers of the older dumps (SteamSpy, the 2019 store dump,
HowLongToBeat 2023, ITAD, players 2018) parse rows with :mod:`ingest.dumps.files` and turn them
into observations in :mod:`ingest.dumps.legacy`.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bangscore.ingest.dumps.cells import float_of, int_of, json_of
from bangscore.ingest.resolve.names import display_name
from bangscore.ingest.resolve.observations import Observation
from bangscore.ingest.resolve.prices import Price, Seen

__all__ = [
    "REVIEW_SAMPLE_CAP",
    "observe_delisted",
    "observe_hltb_2025",
    "observe_hltb_2026",
    "observe_price_history",
    "observe_rarest_achievement",
    "observe_review_playtime",
]


# -- Steam prices in US dollars, 2026 history (steam_prices_usd_2026-07_history) ---------------


def _unix(value: Any) -> dt.datetime | None:
    seconds = float_of(value)
    return None if seconds is None or seconds <= 0 else dt.datetime.fromtimestamp(seconds, dt.UTC)


def _moment(value: Any, memo: dict[Any, dt.datetime | None]) -> dt.datetime | None:
    """Given a unix time as a dump stores it and the conversions made so far, return
    :func:`_unix` of it, converting each distinct hashable value once."""
    try:
        return memo[value]
    except KeyError:
        found = memo[value] = _unix(value)
        return found
    except TypeError:  # a list or an object where a number belongs: nothing to remember
        return _unix(value)


def observe_price_history(
    folder: Path, source: str, *, until: dt.date | None = None
) -> Iterator[Observation]:
    """Given ``steam_prices_usd_2026-07_history`` (``raw/prices.json@<commit date>_<id>.json.gz``,
    each ``{"prices": {"<appid>": {"price_initial", "price_final", "discount_pct",
    "discount_end", "scraped_at"}}}``, dollars and unix seconds), yield per app every dated
    observation as ``price_points`` (:class:`ingest.resolve.prices.Seen` s of layer ``source``,
    oldest first; one per ``scraped_at``), and its newest as ``price`` (a
    :class:`ingest.resolve.prices.Price`),
    with its lowest as ``usd_price_seen``. A row whose price exceeds its list price is skipped;
    an app stored with null prices (free or not for sale) is no price, and when such a row is
    its newest, its day is yielded as ``unpriced_at`` (:mod:`ingest.resolve.unsold`); with
    ``until``, a row scraped after that day (UTC) is skipped too."""
    seen: dict[int, dict[dt.datetime, Seen]] = {}
    unpriced: dict[int, dt.datetime] = {}
    # A version's rows share one scrape time and a handful of sale ends: each distinct stamp
    # is converted once, not once per row (about 400,000 rows).
    moments: dict[Any, dt.datetime | None] = {}
    for path in sorted((folder / "raw").glob("prices.json@*.json.gz")):
        for key, row in (json_of(path).get("prices") or {}).items():
            appid = int_of(key)
            final, initial = float_of(row.get("price_final")), float_of(row.get("price_initial"))
            at = _moment(row.get("scraped_at"), moments)
            if appid is None or at is None or (until is not None and at.date() > until):
                continue
            if final is None and initial is None:
                unpriced[appid] = max(at, unpriced.get(appid, at))
            if final is None or initial is None or not 0 <= final <= initial:
                continue
            discount = int_of(row.get("discount_pct")) or 0
            price = Price(final, initial, discount if 0 <= discount <= 100 else 0)
            ends = _moment(row.get("discount_end"), moments)
            seen.setdefault(appid, {})[at] = Seen(at, price, source, ends)
    yield from _price_observations(seen, unpriced)


def _price_observations(
    seen: dict[int, dict[dt.datetime, Seen]], unpriced: dict[int, dt.datetime]
) -> Iterator[Observation]:
    """Given each app's priced rows by scrape time and the time of its newest row with null
    prices, yield :func:`observe_price_history`'s observations."""
    for appid, by_time in seen.items():
        points = tuple(by_time[at] for at in sorted(by_time))
        newest = points[-1].price
        yield Observation(appid, "price_points", points)
        yield Observation(appid, "price", newest)
        yield Observation(appid, "usd_price_seen", min(p.price.price_usd for p in points))
    for appid, at in unpriced.items():
        if appid not in seen or at > max(seen[appid]):
            yield Observation(appid, "unpriced_at", at.date())


# -- HowLongToBeat by Steam appid, Dec 2025 (julianxhokaxhiu/hltb-scraper) ---------------------


def observe_hltb_2025(path: Path) -> Iterator[Observation]:
    """Given ``howlongtobeat_games.csv.gz`` (times in seconds, 0 = unknown, keyed by HLTB's own
    Steam link), yield main-story and completionist hours per appid (first row of a duplicate
    appid wins; duplicates are identical paging repeats), and HLTB's title for the appid
    (``play_length_name``: a name for an app no storefront source knows)."""
    seen: set[int] = set()
    with gzip.open(path, "rt", encoding="utf-8", newline="") as text:
        for row in csv.DictReader(text):
            appid = int_of(row.get("steam_id"))
            if not appid or appid in seen:
                continue
            seen.add(appid)
            if title := display_name(row.get("game_name") or ""):
                yield Observation(appid, "play_length_name", title)
            main, complete = int_of(row.get("comp_main")) or 0, int_of(row.get("comp_100")) or 0
            if main > 0:
                yield Observation(appid, "main_story_hours", main / 3600)
            if complete > 0:
                yield Observation(appid, "completionist_hours", complete / 3600)


def observe_hltb_2026(path: Path) -> Iterator[Observation]:
    """Given ``hltb.json.gz`` (HLTB matched by title similarity, June 2026), yield only the
    times HLTB itself returned (``raw``), never the repository's estimates."""
    for key, row in (json_of(path).get("hltb") or {}).items():
        appid = int_of(key)
        raw = row.get("raw") if isinstance(row, dict) else None
        if appid is None or not isinstance(raw, dict):
            continue
        main, complete = float_of(raw.get("main")), float_of(raw.get("complete"))
        if main is not None and main > 0:
            yield Observation(appid, "main_story_hours", main)
        if complete is not None and complete > 0:
            yield Observation(appid, "completionist_hours", complete)


# -- Reviewers' playtime, June-July 2026 (MLMariss/SteamQTPD) ----------------------------------


# The recent-review sampler stops at 1,000 reviews a game (7,534 games sit at exactly 1,000,
# 112 at 2,000 from two passes, 185 between): a sample that reached it is a lower bound on the
# count; one that stopped short ran out of reviews, so its size is the game's total.
REVIEW_SAMPLE_CAP = 1000


def observe_review_playtime(path: Path) -> Iterator[Observation]:
    """Given ``playtime.json.gz``, yield per game the positive and negative reviewers' median
    playtime (hours) and counts as ``reviewer_playtime`` = (up_hours|None, down_hours|None,
    n_up, n_down), plus the recent sample's positive share and its size: the review count
    when the sample ran out of reviews, a lower bound (``review_count_floor``) when it reached
    :data:`REVIEW_SAMPLE_CAP`."""
    for key, row in (json_of(path).get("playtime") or {}).items():
        appid = int_of(key)
        if appid is None or not isinstance(row, list) or len(row) != 4:
            continue
        up, down, n_up, n_down = row
        n_up, n_down = int_of(n_up) or 0, int_of(n_down) or 0
        up_min, down_min = float_of(up), float_of(down)
        up_h = up_min / 60 if up_min is not None else None
        down_h = down_min / 60 if down_min is not None else None
        yield Observation(appid, "reviewer_playtime", (up_h, down_h, n_up, n_down))
        if n_up + n_down:
            capped = n_up + n_down >= REVIEW_SAMPLE_CAP
            yield Observation(
                appid, "review_count_floor" if capped else "review_count", n_up + n_down
            )
            yield Observation(appid, "review_score", n_up / (n_up + n_down))


# -- Delisted apps, Aug 2026 (steam-tracker via Epithalamium/Steam_delisted_done) ---------------


def observe_delisted(path: Path, *, until: dt.date | None = None) -> Iterator[Observation]:
    """Given ``delisted_first_last_seen.csv.gz``, yield ``delisted`` = the date the app was
    first seen in the list, for every app still in the latest list (with ``until``: first
    seen on or before that day)."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as text:
        for row in csv.DictReader(text):
            appid = int_of(row.get("appid"))
            if appid is None or row.get("in_latest_list") != "True":
                continue
            try:
                first = dt.date.fromisoformat(row.get("first_seen_in_list") or "")
            except ValueError:
                continue
            if until is not None and first > until:
                continue
            yield Observation(appid, "delisted", first)
            if name := display_name(row.get("name") or ""):
                yield Observation(appid, "name", name)


# -- Rarest achievement, Dec 2024 (mori-bund/SteamCompletionist) -------------------------------


def observe_rarest_achievement(path: Path) -> Iterator[Observation]:
    """Given ``steam_hltb_map.json.gz``, yield each app's rarest global achievement percentage
    (an upper bound on the share of players who earned every achievement)."""
    for row in json_of(path):
        appid = int_of(row.get("AppID")) if isinstance(row, dict) else None
        percent = float_of(row.get("Rarest Achievement %")) if appid else None
        if appid and percent is not None and 0 <= percent <= 100:
            yield Observation(appid, "rarest_achievement_percent", percent)
