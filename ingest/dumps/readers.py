"""Readers of the bundled 2024-2026 dumps, each yielding :class:`Observation` s by appid.

One function per dump (provenance of every file: ``data/README.md``). A reader never raises on
a bad row: it skips what it cannot read (an unparsable number, a missing id) and yields the
rest; it raises ``OSError`` only when the file itself cannot be read. Field names are the
catalog's (:mod:`ingest.catalog` lists them all); values are plain Python values in the
record's units: US dollars, hours, fractions 0..1, ``datetime.date``.

The readers of the older dumps (SteamSpy, the 2019 store dump, HowLongToBeat 2023, ITAD,
players 2018) parse rows with :mod:`ingest.dumps.files` and turn them into observations in
:mod:`ingest.dumps.legacy`.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import gzip
import io
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from bangscore.ingest.dumps.pics_facets import (
    pics_ai_content,
    pics_controller,
    pics_deck,
    pics_languages,
)
from bangscore.ingest.resolve.names import display_cell, display_name
from bangscore.ingest.resolve.observations import Observation
from bangscore.ingest.resolve.prices import Price, Seen

# MySQL's CSV export (steam_insights_2024): backslash escapes, \N for NULL.
csv.register_dialect("mysql", escapechar="\\", doublequote=False, strict=False)
csv.field_size_limit(1 << 24)


def _json(path: Path) -> Any:
    raw = path.read_bytes()
    return orjson.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number else None


def _day(timestamp: Any) -> dt.date | None:
    seconds = _int(timestamp)
    if seconds is None or seconds <= 0:
        return None
    return dt.datetime.fromtimestamp(seconds, dt.UTC).date()


def _zip_rows(path: Path, *columns: str) -> Iterator[list[str]]:
    """Given a zip of steam_insights_2024 holding one MySQL-dialect CSV, yield each row's
    ``columns`` in that order ("" for NULL or a missing cell)."""
    with zipfile.ZipFile(path) as archive, archive.open(archive.namelist()[0]) as raw:
        rows = csv.reader(io.TextIOWrapper(raw, encoding="utf-8", newline=""), dialect="mysql")
        header = next(rows, [])
        where = [header.index(c) for c in columns]
        for row in rows:
            if len(row) == len(header):
                # The dialect reads MySQL's \N (NULL) as "N".
                yield [("" if row[i] == "N" else row[i]) for i in where]


# -- Steam PICS app info, July 2026 (MLMariss/SteamQTPD) ---------------------------------------

PICS_TYPES = {
    "game": "game",
    "dlc": "dlc",
    "demo": "demo",
    "application": "application",
    "tool": "tool",
    "music": "music",
    "video": "video",
    "beta": "beta",
}


def _ordered(block: Any) -> list[str]:
    """Given PICS's ``{"0": v, "1": v}`` list encoding, return the values in index order.

    The shards list the indexes in order (JSON objects keep their order when parsed), so the
    values are taken as they come unless a key is out of place."""
    if not isinstance(block, dict):
        return []
    values = [str(v) for v in block.values()]
    if all(key == str(i) for i, key in enumerate(block)):
        return values
    pairs = sorted(((_int(k), str(v)) for k, v in block.items()), key=lambda kv: kv[0] or 0)
    return [v for k, v in pairs if k is not None]


# Steam's review summary (PICS ``review_score``, 1-9) names a band of review counts as well as a
# share: "Very Positive" (8) and "Very Negative" (2) need at least 50 reviews,
# "Overwhelmingly Positive" (9) and "Overwhelmingly Negative" (1) at least 500. The other
# summaries start at 10 reviews, under any rating gate.
REVIEW_COUNT_FLOOR: dict[int, int] = {9: 500, 8: 50, 2: 50, 1: 500}


@dataclass(frozen=True)
class _PicsLookups:
    """The id -> name tables of ``steam_pics_2026/lookups``: tags, genres, store categories."""

    tags: dict[str, str]
    genres: dict[str, str]
    categories: dict[str, str]


Field = tuple[str, Any]  # a field and the value an app's record observes for it


def _pics_name(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    name = app.get("name")
    if isinstance(name, str) and (name := display_name(name)):
        yield "name", name


def _pics_type(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    kind = PICS_TYPES.get(str(app.get("type", "")).lower())
    if kind:
        yield "app_type", kind


def _pics_people(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    for assoc in (app.get("associations") or {}).values():
        role = assoc.get("type") if isinstance(assoc, dict) else None
        if role in ("developer", "publisher") and (name := display_cell(assoc.get("name"))):
            yield role, name


def _pics_release(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    released = _day(app.get("steam_release_date")) or _day(app.get("original_release_date"))
    if released is not None:
        yield "release_date", released


def _pics_tags(app: dict[str, Any], lookups: _PicsLookups) -> Iterator[Field]:
    ranked = [lookups.tags[t] for t in _ordered(app.get("store_tags")) if t in lookups.tags]
    if ranked:
        yield "tags", tuple(ranked[:20])


def _pics_genres(app: dict[str, Any], lookups: _PicsLookups) -> Iterator[Field]:
    named = [lookups.genres[g] for g in _ordered(app.get("genres")) if g in lookups.genres]
    if named:
        yield "storefront_genres", tuple(named)


def _pics_categories(app: dict[str, Any], lookups: _PicsLookups) -> Iterator[Field]:
    # ``category`` maps "category_<id>" to "1" for each store category the app has.
    block = app.get("category") or {}
    flags = block.items() if isinstance(block, dict) else ()
    features = [
        lookups.categories[k] for k, on in flags if str(on) == "1" and k in lookups.categories
    ]
    if features:
        yield "categories", tuple(dict.fromkeys(features))


def _pics_reviews(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    percent = _float(app.get("review_percentage"))
    if percent is not None and 0 <= percent <= 100:
        yield "review_score", percent / 100
    floor = REVIEW_COUNT_FLOOR.get(_int(app.get("review_score")) or 0)
    if floor:
        yield "review_count_floor", floor


def _pics_metacritic(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    metacritic = _int(app.get("metacritic_score"))
    if metacritic is not None and 0 < metacritic <= 100:
        yield "metacritic", metacritic


# What one PICS app record observes, field by field, in this order.
def _pics_descriptors(app: dict[str, Any], _: _PicsLookups) -> Iterator[Field]:
    descriptors = sorted({d for d in map(_int, _ordered(app.get("content_descriptors"))) if d})
    if descriptors:
        yield "content_descriptors", tuple(descriptors)


PICS_FIELDS: tuple[Callable[[dict[str, Any], _PicsLookups], Iterator[Field]], ...] = (
    _pics_name,
    _pics_type,
    _pics_people,
    _pics_release,
    _pics_tags,
    _pics_genres,
    _pics_categories,
    _pics_reviews,
    _pics_metacritic,
    _pics_descriptors,
    pics_deck,
    pics_controller,
    pics_languages,
    pics_ai_content,
)


def observe_pics(folder: Path) -> Iterator[Observation]:
    """Given ``steam_pics_2026`` (``pics_raw/shard_*.json.gz`` and ``lookups/*.json``), yield
    name, app type, developer, publisher, release date, ranked tags (up to 20, most-voted
    first), storefront genres, store categories (``categories``), review score (Steam's
    percentage / 100), the least review count Steam's review summary implies
    (``review_count_floor``, :data:`REVIEW_COUNT_FLOOR`), Metacritic score and the storefront's
    content descriptor ids (``content_descriptors``, sorted; :mod:`scoring.flags` names them)
    of each app, and its platform facets (:mod:`ingest.dumps.pics_facets`: Steam Deck status
    and test date, controller support, languages, AI disclosure); one reader per field:
    :data:`PICS_FIELDS`."""
    lookups = _PicsLookups(
        *(
            {str(k): v for k, v in _json(folder / "lookups" / f"{name}.json").items()}
            for name in ("tags", "genres", "categories")
        )
    )
    for shard in sorted((folder / "pics_raw").glob("shard_*.json*")):
        for key, app in (_json(shard).get("apps") or {}).items():
            appid = _int(key)
            if appid is None or appid <= 0 or not isinstance(app, dict):
                continue
            for read in PICS_FIELDS:
                for field, value in read(app, lookups):
                    yield Observation(appid, field, value)


# -- Steam store catalogue, Oct 2024 (NewbieIndieGameDev/steam-insights) ------------------------

# The 2024 catalogue names about 1% of its apps' storefront genres in the language its scraper
# was served (``Экшены``, ``GDR``, ``角色扮演``...). Steam's genres are a fixed list, so each
# localized name seen in the dump maps back to the English one the rest of the catalog uses;
# an English or unknown name is kept as it is.
_LOCALIZED_NAMES: dict[str, str] = {
    "Action": "Экшены|Бойовики|Acción|Ação|Actie|Azione|Akcja|Akční|动作|動作|アクション",
    "Adventure": "Приключенческие игры|Пригоди|Aventura|Abenteuer|Aventure|Avontuur|Avventura|"
    "Dobrodružné|Eventyr|Seikkailu|冒险|冒險|アドベンチャー",
    "RPG": "Ролевые игры|Rollenspiel|Rol|GDR|Roolipelit|角色扮演",
    "Strategy": "Стратегии|Strategie|Stratégie|Estrategia|Estratégia|Strategia|Strategi|策略|"
    "ストラテジー",
    "Simulation": "Симуляторы|Simuladores|Simulationen|Simulação|Simulering|Simulaatio|"
    "Simulatie|模拟|模擬",
    "Casual": "Казуальные игры|Казуальні ігри|Gelegenheitsspiele|Occasionnel|Passatempo|休闲|"
    "休閒|カジュアル",
    "Indie": "Инди|Інді|Indépendant|Niezależne|独立|獨立製作|インディー",
    "Free to Play": "Бесплатные|Kostenlos spielbar|Free-to-play|Free To Play|Grátis para Jogar|"
    "免费开玩|無料プレイ",
    "Massively Multiplayer": "Многопользовательские игры|Multijugador masivo|"
    "Massivement multijoueur|MMO|大型多人連線",
    "Sports": "Спортивные игры|Deportes|Sport|体育",
    "Racing": "Гонки|Carreras|Course automobile|Race",
    "Early Access": "Ранний доступ|Acceso anticipado|抢先体验|搶先體驗",
    "Utilities": "Utilidades",
}
LOCALIZED_GENRES: dict[str, str] = {
    name: english for english, names in _LOCALIZED_NAMES.items() for name in names.split("|")
}


def _insights_games(folder: Path, _: dict[str, str]) -> Iterator[Observation]:
    for appid_text, name, released, is_free, kind in _zip_rows(
        folder / "games.zip", "app_id", "name", "release_date", "is_free", "type"
    ):
        appid = _int(appid_text)
        if appid is None or appid <= 0:
            continue
        if name := display_name(name):
            yield Observation(appid, "name", name)
        if kind.lower() in PICS_TYPES:
            yield Observation(appid, "app_type", kind.lower())
        with contextlib.suppress(ValueError):
            yield Observation(appid, "release_date", dt.date.fromisoformat(released))
        if is_free in ("0", "1"):
            yield Observation(appid, "free", is_free == "1")


def _insights_genres(folder: Path, names: dict[str, str]) -> Iterator[Observation]:
    grouped: dict[int, list[str]] = {}
    for appid_text, genre in _zip_rows(folder / "genres.zip", "app_id", "genre"):
        appid = _int(appid_text)
        if appid is not None and genre:
            english = LOCALIZED_GENRES.get(genre, genre)
            grouped.setdefault(appid, []).append(names.setdefault(english, english))
    for appid, found in grouped.items():
        yield Observation(appid, "storefront_genres", tuple(dict.fromkeys(found)))


def _insights_tags(folder: Path, names: dict[str, str]) -> Iterator[Observation]:
    grouped: dict[int, list[str]] = {}
    with gzip.open(folder / "tags.csv.gz", "rt", encoding="utf-8", newline="") as text:
        rows = csv.reader(text)
        next(rows, None)
        for appid_text, tag in rows:
            appid = _int(appid_text)
            if appid is not None and tag:
                grouped.setdefault(appid, []).append(names.setdefault(tag, tag))
    for appid, found in grouped.items():
        yield Observation(appid, "tags", tuple(found[:20]))
        yield Observation(appid, "tags_unranked", True)  # ingest.resolve.tags restores an order


def _insights_reviews(folder: Path, _: dict[str, str]) -> Iterator[Observation]:
    for appid_text, positive_text, negative_text, metacritic_text in _zip_rows(
        folder / "reviews.zip", "app_id", "positive", "negative", "metacritic_score"
    ):
        appid = _int(appid_text)
        positive, negative = _int(positive_text), _int(negative_text)
        if appid is None or positive is None or negative is None or min(positive, negative) < 0:
            continue
        total = positive + negative
        yield Observation(appid, "review_count", total)
        if total:
            yield Observation(appid, "review_score", positive / total)
        metacritic = _int(metacritic_text)
        if metacritic is not None and 0 < metacritic <= 100:
            yield Observation(appid, "metacritic", metacritic)


def _insights_price(appid: int, row: list[str]) -> Iterator[Observation]:
    """Given an appid and its SteamSpy row's price, initial price and discount (cents, cents,
    percent), yield its USD price and whether it was ever paid for."""
    price, initial = _int(row[0]), _int(row[1])
    if price is not None and initial is not None and 0 <= price <= initial:
        discount = _int(row[2]) or 0
        yield Observation(appid, "price", (price / 100, initial / 100, discount))
        yield Observation(appid, "usd_price_seen", price / 100)
        if initial > 0:
            yield Observation(appid, "paid_before", True)


def _insights_steamspy(folder: Path, _: dict[str, str]) -> Iterator[Observation]:
    columns = ("developer", "publisher", "price", "initial_price", "discount", "owners_range")
    for appid_text, developer, publisher, *price, owners in _zip_rows(
        folder / "steamspy_insights.zip", "app_id", *columns
    ):
        appid = _int(appid_text)
        if appid is None:
            continue
        for role, value in (("developer", developer), ("publisher", publisher)):
            if shown := display_cell(value):
                yield Observation(appid, role, shown)
        yield from _insights_price(appid, price)
        if owners:
            yield Observation(appid, "owners_range", owners)


# The tables of steam_insights_2024, read in this order, each by its reader.
INSIGHTS_TABLES: tuple[Callable[[Path, dict[str, str]], Iterator[Observation]], ...] = (
    _insights_games,
    _insights_genres,
    _insights_tags,
    _insights_reviews,
    _insights_steamspy,
)


def observe_insights(folder: Path) -> Iterator[Observation]:
    """Given ``steam_insights_2024``, yield name, app type, release date, storefront genres
    (in English: :data:`LOCALIZED_GENRES`), tag sets (alphabetical: the vote order was lost),
    review totals, Metacritic, developer, publisher and SteamSpy's USD price of each app
    (prices in cents there), one table after another (:data:`INSIGHTS_TABLES`)."""
    names: dict[str, str] = {}  # one string object per distinct tag or genre name
    for read in INSIGHTS_TABLES:
        yield from read(folder, names)


def _unix(value: Any) -> dt.datetime | None:
    seconds = _float(value)
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
        for key, row in (_json(path).get("prices") or {}).items():
            appid = _int(key)
            final, initial = _float(row.get("price_final")), _float(row.get("price_initial"))
            at = _moment(row.get("scraped_at"), moments)
            if appid is None or at is None or (until is not None and at.date() > until):
                continue
            if final is None and initial is None:
                unpriced[appid] = max(at, unpriced.get(appid, at))
            if final is None or initial is None or not 0 <= final <= initial:
                continue
            discount = _int(row.get("discount_pct")) or 0
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
            appid = _int(row.get("steam_id"))
            if not appid or appid in seen:
                continue
            seen.add(appid)
            if title := display_name(row.get("game_name") or ""):
                yield Observation(appid, "play_length_name", title)
            main, complete = _int(row.get("comp_main")) or 0, _int(row.get("comp_100")) or 0
            if main > 0:
                yield Observation(appid, "main_story_hours", main / 3600)
            if complete > 0:
                yield Observation(appid, "completionist_hours", complete / 3600)


def observe_hltb_2026(path: Path) -> Iterator[Observation]:
    """Given ``hltb.json.gz`` (HLTB matched by title similarity, June 2026), yield only the
    times HLTB itself returned (``raw``), never the repository's estimates."""
    for key, row in (_json(path).get("hltb") or {}).items():
        appid = _int(key)
        raw = row.get("raw") if isinstance(row, dict) else None
        if appid is None or not isinstance(raw, dict):
            continue
        main, complete = _float(raw.get("main")), _float(raw.get("complete"))
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
    for key, row in (_json(path).get("playtime") or {}).items():
        appid = _int(key)
        if appid is None or not isinstance(row, list) or len(row) != 4:
            continue
        up, down, n_up, n_down = row
        n_up, n_down = _int(n_up) or 0, _int(n_down) or 0
        up_min, down_min = _float(up), _float(down)
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
            appid = _int(row.get("appid"))
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
    for row in _json(path):
        appid = _int(row.get("AppID")) if isinstance(row, dict) else None
        percent = _float(row.get("Rarest Achievement %")) if appid else None
        if appid and percent is not None and 0 <= percent <= 100:
            yield Observation(appid, "rarest_achievement_percent", percent)
