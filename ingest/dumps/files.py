"""Readers of the bundled raw dumps under ``data/raw`` (provenance in ``data/README.md``).

One function per source file. Each returns a :class:`DumpRead`: the typed rows it could read,
the number of rows it saw, and a count of skipped rows per reason. A row with a broken field
(non-numeric price, impossible date, missing name or id) is skipped whole and counted; a field
that is merely unknown in the source (empty cell, ``null``) becomes None. Readers never raise on
bad rows; they raise ``OSError`` only if the file itself cannot be read.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import orjson

from bangscore.errors import CatalogError, RowError
from bangscore.ingest.resolve.names import display_cell, display_name

T = TypeVar("T")


@dataclass
class DumpRead(Generic[T]):
    """Rows read from one dump: ``rows`` kept, ``read`` seen, ``skipped`` reason -> count."""

    rows: list[T] = field(default_factory=list)
    read: int = 0
    skipped: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True, slots=True)
class SteamSpyApp:
    """One app of a SteamSpy ``request=all`` snapshot. Prices in US cents; None if unknown."""

    appid: int
    name: str
    developer: str | None
    publisher: str | None
    price_cents: int | None
    list_price_cents: int | None
    discount_percent: int | None
    positive: int
    negative: int
    owners: str | None
    average_forever_min: int
    median_forever_min: int
    ccu: int


@dataclass(frozen=True, slots=True)
class StoreGame:
    """One row of the 2019 Steam store dump (genres, top-3 tags, release date, playtime).

    ``paid`` says whether it was sold for money then (its price, GBP, above 0); None if the
    price cell is empty or not a number. The amount itself is not kept: it is not in dollars.
    """

    appid: int
    name: str
    release_date: dt.date
    genres: tuple[str, ...]
    tags: tuple[str, ...]
    average_playtime_min: int
    median_playtime_min: int
    paid: bool | None = None
    categories: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HltbGame:
    """One HowLongToBeat entry. Hours are None when HLTB has no time for it. ``genres`` are
    HLTB's own (``"Role-Playing"``, ``"Point-and-Click"``...), in HLTB's order, not vote order;
    they are not storefront genres."""

    name: str
    release_year: int | None
    release_date: dt.date | None
    steam_appid: int | None
    main_story_hours: float | None
    completionist_hours: float | None
    genres: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayerCount:
    """One row of the July-2018 achievement-derived exact player counts."""

    appid: int
    name: str
    players: int


@dataclass(frozen=True, slots=True)
class ItadGame:
    """One game of the IsThereAnyDeal Steam price-history summary (prices there are EUR)."""

    name: str
    itad_id: str
    release_year: int | None
    tags: tuple[str, ...]
    metacritic: int | None
    max_discount_percent: int
    last_seen: dt.date


_DURATION = re.compile(r"^(?:(\d+(?:\.\d+)?)h)?\s*(?:(\d+(?:\.\d+)?)m)?$")
_PAGE = re.compile(r"(\d+)\.json")
_INTEGER = re.compile(r"^-?[0-9]+$")
_HLTB_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def parse_hltb_duration(text: str) -> float | None:
    """Given an HLTB time such as ``"23h 17m"``, ``"45m"``, ``"362h"``, return hours as float.

    Empty, ``"--"`` and zero times mean "unknown" and return None. Raises :class:`RowError`
    for any other text.
    """
    value = text.strip()
    if value in ("", "--"):
        return None
    found = _DURATION.match(value)
    if found is None or not any(found.groups()):
        raise RowError("bad duration")
    hours = float(found.group(1) or 0) + float(found.group(2) or 0) / 60
    return hours if hours > 0 else None


def _int(value: Any, reason: str) -> int:
    """Given a JSON/CSV cell, return it as int; raise RowError(reason) if it is not one."""
    if isinstance(value, bool):
        raise RowError(reason)
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INTEGER.match(value.strip()):
        return int(value.strip())
    raise RowError(reason)


def _optional_int(value: Any, reason: str) -> int | None:
    """Like :func:`_int`, but None and empty strings read as None (unknown)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _int(value, reason)


def _text(value: Any) -> str | None:
    """Given a cell, return it stripped, or None if empty or not a string."""
    return value.strip() or None if isinstance(value, str) else None


def _iso_date(value: str, reason: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value.strip())
    except ValueError:
        raise RowError(reason) from None


def _csv_rows(path: Path, encoding: str = "utf-8") -> Iterator[dict[str, str]]:
    """Yield the rows of a CSV file (gzip if it ends in ``.gz``) as dicts keyed by header."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    yield from csv.DictReader(io.StringIO(raw.decode(encoding), newline=""))


def _steamspy_app(key: str, item: Any) -> SteamSpyApp:
    if not isinstance(item, dict):
        raise RowError("not an object")
    appid = _int(item.get("appid", key), "bad appid")
    if str(appid) != key or appid <= 0:
        raise RowError("bad appid")
    name = display_cell(item.get("name"))
    if name is None:
        raise RowError("missing name")
    discount = _optional_int(item.get("discount"), "bad discount")
    if discount is not None and not 0 <= discount <= 100:
        raise RowError("bad discount")
    price = _optional_int(item.get("price"), "bad price")
    list_price = _optional_int(item.get("initialprice"), "bad price")
    if (price is not None and price < 0) or (list_price is not None and list_price < 0):
        raise RowError("bad price")
    positive = _int(item.get("positive", 0), "bad review count")
    negative = _int(item.get("negative", 0), "bad review count")
    if positive < 0 or negative < 0:
        raise RowError("bad review count")
    average = _optional_int(item.get("average_forever"), "bad playtime") or 0
    median = _optional_int(item.get("median_forever"), "bad playtime") or 0
    if average < 0 or median < 0:
        raise RowError("bad playtime")
    return SteamSpyApp(
        appid=appid,
        name=name,
        developer=display_cell(item.get("developer")),
        publisher=display_cell(item.get("publisher")),
        price_cents=price,
        list_price_cents=list_price,
        discount_percent=discount,
        positive=positive,
        negative=negative,
        owners=_text(item.get("owners")),
        average_forever_min=average,
        median_forever_min=median,
        ccu=max(_optional_int(item.get("ccu"), "bad ccu") or 0, 0),
    )


def _page_number(path: Path) -> tuple[int, str]:
    """Sort key of a page file: its number before ``.json`` (``..._page_12.json.gz`` -> 12)."""
    found = _PAGE.search(path.name)
    return (int(found.group(1)) if found else -1, path.name)


def read_steamspy(folder: Path) -> DumpRead[SteamSpyApp]:
    """Given a folder of SteamSpy ``request=all`` pages (``*.json`` or ``*.json.gz``, each an
    object ``{"<appid>": {...}}``), return its apps in page-number order, the first occurrence
    of an appid winning (the pages overlap with identical rows). Source: woctezuma/steamspy-data.
    A page that is not valid JSON is counted under ``"corrupt page"`` and its apps are missing.
    """
    result: DumpRead[SteamSpyApp] = DumpRead()
    seen: set[int] = set()
    pages = sorted(folder.glob("*.json*"), key=_page_number)
    for page in pages:
        raw = page.read_bytes()
        try:
            data = orjson.loads(gzip.decompress(raw) if page.suffix == ".gz" else raw)
        except (orjson.JSONDecodeError, OSError, EOFError):
            result.skipped["corrupt page"] += 1
            continue
        if not isinstance(data, dict):
            result.skipped["corrupt page"] += 1
            continue
        for key, item in data.items():
            result.read += 1
            # Pages overlap (identical rows); skipping before parsing keeps the read fast.
            if key.isdigit() and int(key) in seen:
                result.skipped["duplicate appid"] += 1
                continue
            try:
                app = _steamspy_app(key, item)
            except RowError as err:
                result.skipped[str(err)] += 1
                continue
            if app.appid in seen:
                result.skipped["duplicate appid"] += 1
                continue
            seen.add(app.appid)
            result.rows.append(app)
    return result


def _split(value: str, sep: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(sep) if part.strip())


def _paid(value: str) -> bool | None:
    """Given a price cell in any currency, return whether it is above 0; None if not a number."""
    try:
        return float(value) > 0
    except ValueError:
        return None


def read_store_games_2019(path: Path) -> DumpRead[StoreGame]:
    """Given ``steam.csv(.gz)`` of the 2019 Steam Store Games dump (Nik Davis, Kaggle), return
    its games: storefront genres and categories (``;``-separated), the top-3 user tags
    most-voted first (``steamspy_tags``) and playtimes in minutes (0 = unknown). Its ``price``
    is GBP: only whether it is above 0 is read (``paid``), never the amount.
    """
    result: DumpRead[StoreGame] = DumpRead()
    for row in _csv_rows(path):
        result.read += 1
        try:
            appid = _int(row.get("appid"), "bad appid")
            name = display_cell(row.get("name"))
            if name is None:
                raise RowError("missing name")
            game = StoreGame(
                appid=appid,
                name=name,
                release_date=_iso_date(row.get("release_date") or "", "bad date"),
                genres=_split(row.get("genres") or "", ";"),
                tags=_split(row.get("steamspy_tags") or "", ";"),
                categories=_split(row.get("categories") or "", ";"),
                average_playtime_min=_optional_int(row.get("average_playtime"), "bad playtime")
                or 0,
                median_playtime_min=_optional_int(row.get("median_playtime"), "bad playtime") or 0,
                paid=_paid(row.get("price") or ""),
            )
        except RowError as err:
            result.skipped[str(err)] += 1
            continue
        result.rows.append(game)
    return result


def _hltb_release(value: str) -> tuple[int | None, dt.date | None]:
    """Given HLTB's ``Release_date`` (``YYYY-MM-DD``, ``YYYY-00-00`` when only the year is
    known, or empty), return (year, full date or None)."""
    if not value.strip():
        return None, None
    found = _HLTB_DATE.match(value.strip())
    if found is None:
        raise RowError("bad date")
    year, month, day = (int(part) for part in found.groups())
    if month == 0 or day == 0:
        return (year, None) if year >= 1970 else (None, None)
    try:
        return year, dt.date(year, month, day)
    except ValueError:
        raise RowError("bad date") from None


def read_hltb(path: Path) -> DumpRead[HltbGame]:
    """Given ``hltb_clean.csv`` (HowLongToBeat scrape, 2023, via the IF36 project), return its
    entries with main-story and completionist hours and the Steam appid where it has one.
    """
    result: DumpRead[HltbGame] = DumpRead()
    for row in _csv_rows(path):
        result.read += 1
        try:
            name = display_cell(row.get("Name"))
            if name is None:
                raise RowError("missing name")
            year, date = _hltb_release(row.get("Release_date") or "")
            if year is not None and year < 1970:
                year, date = None, None
            appid = _optional_int(row.get("steam_app_id"), "bad appid")
            game = HltbGame(
                name=name,
                release_year=year,
                release_date=date,
                steam_appid=appid if appid and appid > 0 else None,
                main_story_hours=parse_hltb_duration(row.get("main_story") or ""),
                completionist_hours=parse_hltb_duration(row.get("completionist") or ""),
                genres=_split(row.get("Genres") or "", ","),
            )
        except RowError as err:
            result.skipped[str(err)] += 1
            continue
        result.rows.append(game)
    return result


PLAYERS_2018_COLUMNS = ["Title", "Players Estimate", "Steam App ID"]


def read_players_2018(path: Path) -> DumpRead[PlayerCount]:
    """Given ``games_achievements_players_2018-07-01.csv`` (Ars Technica, July 2018: lines end
    in CR only and the text is latin-1), return its exact player counts by appid.
    """
    result: DumpRead[PlayerCount] = DumpRead()
    lines = path.read_bytes().decode("latin-1").splitlines()
    reader = csv.reader(lines)
    # Read by position: a header of other columns is another table, refused (issue 55).
    header = [cell.strip() for cell in next(reader, [])]
    if header != PLAYERS_2018_COLUMNS:
        raise CatalogError(f"{path}: columns {header[:5]}, expected {PLAYERS_2018_COLUMNS}")
    for cells in reader:
        if not any(cell.strip() for cell in cells):
            continue
        result.read += 1
        try:
            if len(cells) < 3 or not cells[2].strip():
                raise RowError("missing appid")
            appid = _int(cells[2], "bad appid")
            players = _int(cells[1].replace(",", ""), "bad player count")
            # A few rows lost their title; the appid still identifies the game.
            name = display_name(cells[0])
        except RowError as err:
            result.skipped[str(err)] += 1
            continue
        result.rows.append(PlayerCount(appid=appid, name=name, players=players))
    return result


def _metacritic(value: str) -> int | None:
    if not value.strip():
        return None
    try:
        score = round(float(value))
    except ValueError:
        raise RowError("bad metacritic") from None
    if not 0 <= score <= 100:
        raise RowError("bad metacritic")
    return score


def read_itad_games(path: Path) -> DumpRead[ItadGame]:
    """Given ``steam_games_analysis.csv(.gz)`` (IsThereAnyDeal Steam-shop price history,
    2025-07-15 to 2025-10-16, via jbenigeri/Video-Game-Price-Analysis), return one summary per
    game: deepest discount seen (percent), Metacritic score, ITAD tags, release year and the
    last date observed. Its prices are EUR and are deliberately not read.
    """
    result: DumpRead[ItadGame] = DumpRead()
    for row in _csv_rows(path):
        result.read += 1
        try:
            name = display_cell(row.get("Game Name"))
            itad_id = _text(row.get("ITAD Game ID"))
            if name is None or itad_id is None:
                raise RowError("missing name")
            discount_text = (row.get("Max Discount (%)") or "").strip()
            try:
                discount = round(float(discount_text))
            except ValueError:
                raise RowError("bad discount") from None
            if not 0 <= discount <= 100:
                raise RowError("bad discount")
            released = (row.get("ITAD Release Date") or "").strip()
            year = _iso_date(released, "bad date").year if released else None
            last = _iso_date((row.get("Date Range End") or "")[:10], "bad date")
            game = ItadGame(
                name=name,
                itad_id=itad_id,
                release_year=year,
                tags=_split(row.get("ITAD Tags") or "", ","),
                metacritic=_metacritic(row.get("ITAD Metacritic Rating") or ""),
                max_discount_percent=discount,
                last_seen=last,
            )
        except RowError as err:
            result.skipped[str(err)] += 1
            continue
        result.rows.append(game)
    return result
