"""The reader of the Steam store catalogue, Oct 2024 (``steam_insights_2024``,
NewbieIndieGameDev/steam-insights): one reader per table (:data:`INSIGHTS_TABLES`), storefront
genres named in another language read as the English genre (:data:`LOCALIZED_GENRES`).
Provenance of the dump: ``data/README.md``; the rules every reader keeps:
:mod:`ingest.dumps.readers`.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import gzip
import io
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from bangscore.ingest.dumps.cells import int_of
from bangscore.ingest.dumps.pics import PICS_TYPES
from bangscore.ingest.resolve.names import display_cell, display_name
from bangscore.ingest.resolve.observations import Observation

__all__ = ["INSIGHTS_TABLES", "LOCALIZED_GENRES", "observe_insights"]

# MySQL's CSV export (steam_insights_2024): backslash escapes, \N for NULL.
csv.register_dialect("mysql", escapechar="\\", doublequote=False, strict=False)


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
        appid = int_of(appid_text)
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
        appid = int_of(appid_text)
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
            appid = int_of(appid_text)
            if appid is not None and tag:
                grouped.setdefault(appid, []).append(names.setdefault(tag, tag))
    for appid, found in grouped.items():
        yield Observation(appid, "tags", tuple(found[:20]))
        yield Observation(appid, "tags_unranked", True)  # ingest.resolve.tags restores an order


def _insights_reviews(folder: Path, _: dict[str, str]) -> Iterator[Observation]:
    for appid_text, positive_text, negative_text, metacritic_text in _zip_rows(
        folder / "reviews.zip", "app_id", "positive", "negative", "metacritic_score"
    ):
        appid = int_of(appid_text)
        positive, negative = int_of(positive_text), int_of(negative_text)
        if appid is None or positive is None or negative is None or min(positive, negative) < 0:
            continue
        total = positive + negative
        yield Observation(appid, "review_count", total)
        if total:
            yield Observation(appid, "review_score", positive / total)
        metacritic = int_of(metacritic_text)
        if metacritic is not None and 0 < metacritic <= 100:
            yield Observation(appid, "metacritic", metacritic)


def _insights_price(appid: int, row: list[str]) -> Iterator[Observation]:
    """Given an appid and its SteamSpy row's price, initial price and discount (cents, cents,
    percent), yield its USD price and whether it was ever paid for."""
    price, initial = int_of(row[0]), int_of(row[1])
    if price is not None and initial is not None and 0 <= price <= initial:
        discount = int_of(row[2]) or 0
        yield Observation(appid, "price", (price / 100, initial / 100, discount))
        yield Observation(appid, "usd_price_seen", price / 100)
        if initial > 0:
            yield Observation(appid, "paid_before", True)


def _insights_steamspy(folder: Path, _: dict[str, str]) -> Iterator[Observation]:
    columns = ("developer", "publisher", "price", "initial_price", "discount", "owners_range")
    for appid_text, developer, publisher, *price, owners in _zip_rows(
        folder / "steamspy_insights.zip", "app_id", *columns
    ):
        appid = int_of(appid_text)
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
