"""Readers of the 2024-2026 dumps (ingest.dumps.readers, .pics, .insights): what they translate
on the way in."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.ingest.dumps.insights import LOCALIZED_GENRES, observe_insights
from bangscore.ingest.dumps.pics import observe_pics
from bangscore.ingest.dumps.readers import (
    observe_delisted,
    observe_hltb_2025,
    observe_price_history,
)
from bangscore.ingest.resolve.checks import GAME_GENRES, SOFTWARE_GENRES
from bangscore.ingest.resolve.prices import Price, Seen
from tests.ingest.dumps import UNSAFE_IN_NAMES


@pytest.mark.parametrize(
    ("localized", "english"),
    [
        pytest.param("GDR", "RPG", id="italian-rpg"),  # Vampire Survivors in the 2024 catalogue
        pytest.param("Ролевые игры", "RPG", id="russian-rpg"),
        pytest.param("角色扮演", "RPG", id="chinese-rpg"),
        pytest.param("Стратегии", "Strategy", id="russian-strategy"),  # Shadow Tactics
        pytest.param("Экшены", "Action", id="russian-action"),  # Half-Life 2: Lost Coast
        pytest.param("Indépendant", "Indie", id="french-indie"),  # Doki Doki Literature Club!
        pytest.param("冒险", "Adventure", id="chinese-adventure"),  # Resident Evil 4
        pytest.param("Многопользовательские игры", "Massively Multiplayer", id="russian-mmo"),
        pytest.param("Utilidades", "Utilities", id="spanish-utilities"),
    ],
)
def test_localized_storefront_genres_read_as_english(localized: str, english: str) -> None:
    assert LOCALIZED_GENRES[localized] == english


def test_every_translation_is_a_steam_genre() -> None:
    steam = GAME_GENRES | SOFTWARE_GENRES | {"Free to Play", "Early Access"}
    assert set(LOCALIZED_GENRES.values()) <= steam
    assert not set(LOCALIZED_GENRES) & steam  # English names are kept as they are


def _price_file(folder: Path, name: str, prices: dict[str, dict[str, Any]]) -> None:
    (folder / "raw").mkdir(parents=True, exist_ok=True)
    body = {"generated_at": 0, "country": "US", "count": len(prices), "prices": prices}
    (folder / "raw" / name).write_bytes(gzip.compress(json.dumps(body).encode()))


def _row(
    final: float | None, initial: float | None, pct: int, at: int, ends: int | None = None
) -> dict[str, Any]:
    return {
        "price_initial": initial,
        "price_final": final,
        "discount_pct": pct,
        "discount_end": ends,
        "scraped_at": at,
    }


def test_price_history_reads_every_version_as_dated_points(tmp_path: Path) -> None:
    july_1, july_24 = 1782916800, 1784902420  # 2026-07-01 14:40, 2026-07-24 14:13:40 UTC
    _price_file(
        tmp_path,
        "prices.json@2026-07-01T1515_a.json.gz",
        {
            "1030300": _row(14.99, 19.99, 25, july_1, july_1 + 86400),
            "20": _row(None, None, 0, july_1),  # free or not for sale: no price
            "30": _row(25.0, 19.99, 0, july_1),  # above its list price: skipped
        },
    )
    _price_file(
        tmp_path,
        "prices.json@2026-07-24T1418_b.json.gz",
        {"1030300": _row(19.99, 19.99, 0, july_24)},
    )
    seen = {(o.appid, o.field): o.value for o in observe_price_history(tmp_path, "history")}
    assert set(seen) == {
        (1030300, "price_points"),
        (1030300, "price"),
        (1030300, "usd_price_seen"),
        (20, "unpriced_at"),
    }
    assert seen[20, "unpriced_at"] == dt.date(2026, 7, 1)
    first, newest = seen[1030300, "price_points"]
    assert first == Seen(
        dt.datetime.fromtimestamp(july_1, dt.UTC),
        Price(14.99, 19.99, 25),
        "history",
        dt.datetime.fromtimestamp(july_1 + 86400, dt.UTC),
    )
    assert newest.at == dt.datetime(2026, 7, 24, 14, 13, 40, tzinfo=dt.UTC)
    assert seen[1030300, "price"] == Price(19.99, 19.99, 0)
    assert seen[1030300, "usd_price_seen"] == 14.99


def test_price_history_converts_shared_and_malformed_stamps_per_row(tmp_path: Path) -> None:
    july_24 = 1784902420  # every row of a version shares its scrape time
    malformed = _row(9.99, 19.99, 50, july_24)
    malformed["discount_end"] = [july_24]  # not a number: no known end, the row still counts
    _price_file(
        tmp_path,
        "prices.json@2026-07-24T1418_b.json.gz",
        {
            "10": _row(4.99, 9.99, 50, july_24, july_24 + 3600),
            "20": _row(7.49, 14.99, 50, july_24, july_24 + 3600),
            "30": malformed,
            "40": _row(1.99, 1.99, 0, july_24, 0),  # 0: no end
        },
    )
    points = {
        o.appid: o.value[0]
        for o in observe_price_history(tmp_path, "history")
        if o.field == "price_points"
    }
    at = dt.datetime(2026, 7, 24, 14, 13, 40, tzinfo=dt.UTC)
    assert {appid: (p.at, p.discount_end) for appid, p in points.items()} == {
        10: (at, at + dt.timedelta(hours=1)),
        20: (at, at + dt.timedelta(hours=1)),
        30: (at, None),
        40: (at, None),
    }


@pytest.mark.parametrize(
    ("descriptors", "expected"),
    [
        # Baldur's Gate 3 (1086940) in steam_pics_2026: {"0": "1", "1": "2", "2": "5"}.
        pytest.param({"0": "1", "1": "2", "2": "5"}, (1, 2, 5), id="in-order"),
        pytest.param({"1": "4", "0": "3", "2": "x"}, (3, 4), id="unordered-and-junk"),
        pytest.param(None, None, id="none"),
    ],
)
def test_pics_content_descriptors(
    tmp_path: Path, descriptors: dict[str, str] | None, expected: tuple[int, ...] | None
) -> None:
    (tmp_path / "lookups").mkdir()
    (tmp_path / "pics_raw").mkdir()
    for name in ("tags", "genres", "categories"):
        (tmp_path / "lookups" / f"{name}.json").write_text("{}")
    app: dict[str, Any] = {"name": "Game", "type": "Game"}
    if descriptors is not None:
        app["content_descriptors"] = descriptors
    shard = {"_schema": "pics_raw_v2", "apps": {"1086940": app}}
    (tmp_path / "pics_raw" / "shard_00.json.gz").write_bytes(
        gzip.compress(json.dumps(shard).encode())
    )
    found = {o.field: o.value for o in observe_pics(tmp_path)}
    assert found.get("content_descriptors") == expected


def _pics_names(folder: Path, name: str) -> list[str]:
    (folder / "lookups").mkdir()
    (folder / "pics_raw").mkdir()
    for table in ("tags", "genres", "categories"):
        (folder / "lookups" / f"{table}.json").write_text("{}")
    shard = {"_schema": "pics_raw_v2", "apps": {"220": {"name": name, "type": "Game"}}}
    (folder / "pics_raw" / "shard_00.json.gz").write_bytes(gzip.compress(orjson.dumps(shard)))
    return [o.value for o in observe_pics(folder) if o.field == "name"]


def _mysql_zip(path: Path, header: list[str], rows: list[list[str]]) -> None:
    """Write a zip holding one CSV as steam_insights_2024's MySQL export writes it: every cell
    quoted, quotes and backslashes escaped by a backslash."""
    text = io.StringIO()
    out = csv.writer(text, dialect="mysql", quoting=csv.QUOTE_ALL, lineterminator="\n")
    out.writerows([header, *rows])
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(path.stem + ".csv", text.getvalue())


INSIGHTS_SPY = ["app_id", "developer", "publisher", "price", "initial_price", "discount"]


def _insights_folder(
    folder: Path,
    games: list[list[str]],
    spy: tuple[list[str], list[list[str]]] = ([*INSIGHTS_SPY, "owners_range"], []),
) -> Path:
    """Write a steam_insights_2024 folder holding ``games`` rows and SteamSpy (header, rows)."""
    header = ["app_id", "name", "release_date", "is_free", "price_overview", "languages", "type"]
    _mysql_zip(folder / "games.zip", header, games)
    _mysql_zip(folder / "genres.zip", ["app_id", "genre"], [])
    _mysql_zip(folder / "reviews.zip", ["app_id", "positive", "negative", "metacritic_score"], [])
    _mysql_zip(folder / "steamspy_insights.zip", *spy)
    (folder / "tags.csv.gz").write_bytes(gzip.compress(b"app_id,tag\n"))
    return folder


def _insights_names(folder: Path, name: str) -> list[str]:
    _insights_folder(folder, [["220", name, "2004-11-16", "0", "", "", "game"]])
    return [o.value for o in observe_insights(folder) if o.field == "name"]


def _gzip_csv(path: Path, header: list[str], row: list[str]) -> Path:
    text = io.StringIO()
    csv.writer(text, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([header, row])
    path.write_bytes(gzip.compress(text.getvalue().encode()))
    return path


def _delisted_names(folder: Path, name: str) -> list[str]:
    header = ["appid", "name", "first_seen_in_list", "last_seen_in_list", "in_latest_list"]
    row = ["220", name, "2026-06-01", "2026-08-22", "True"]
    path = _gzip_csv(folder / "delisted_first_last_seen.csv.gz", header, row)
    return [o.value for o in observe_delisted(path) if o.field == "name"]


def _hltb_2025_names(folder: Path, name: str) -> list[str]:
    header = ["steam_id", "game_name", "comp_main", "comp_plus", "comp_100"]
    path = _gzip_csv(folder / "howlongtobeat_games.csv.gz", header, ["220", name, "1", "2", "3"])
    return [o.value for o in observe_hltb_2025(path) if o.field == "play_length_name"]


@pytest.mark.parametrize(
    "read_names",
    [
        pytest.param(_pics_names, id="pics-2026"),
        pytest.param(_insights_names, id="insights-2024"),
        pytest.param(_delisted_names, id="delisted-2026"),
        pytest.param(_hltb_2025_names, id="hltb-2025"),
    ],
)
@pytest.mark.parametrize("unsafe", UNSAFE_IN_NAMES)
def test_names_lose_control_and_bidi_characters(
    tmp_path: Path, read_names: Callable[[Path, str], list[str]], unsafe: str
) -> None:
    assert read_names(tmp_path, f"{unsafe}Half{unsafe}-Life 2{unsafe}") == ["Half-Life 2"]


def test_a_name_of_only_unsafe_characters_is_no_name(tmp_path: Path) -> None:
    assert _pics_names(tmp_path, "\u202e\x00\x1b ") == []


RAW = Path(__file__).resolve().parents[3] / "data/raw"


def test_insights_developer_loses_bidi_controls_in_the_real_dump_row(tmp_path: Path) -> None:
    """Issue 45 finding 11: steam_insights_2024's SteamSpy table gives Minecraft Dungeons'
    developer with U+202A (left-to-right embedding), as the SteamSpy dumps do."""
    path = RAW / "steam_insights_2024/steamspy_insights.zip"
    with zipfile.ZipFile(path) as archive, archive.open(archive.namelist()[0]) as raw:
        rows = csv.reader(io.TextIOWrapper(raw, encoding="utf-8", newline=""), dialect="mysql")
        header = next(rows)
        [row] = [r for r in rows if r[:1] == ["1672970"]]
    developer = row[header.index("developer")]
    assert "\u202a" in developer  # the raw dump's own row, as bundled
    _insights_folder(tmp_path, [], (header, [row]))
    found = {(o.field, o.value) for o in observe_insights(tmp_path) if o.appid == 1672970}
    assert ("developer", "Mojang Studios, Double Eleven") in found
    assert ("publisher", "Xbox Game Studios") in found


@pytest.mark.parametrize("unsafe", UNSAFE_IN_NAMES)
def test_pics_developers_and_publishers_lose_control_and_bidi_characters(
    tmp_path: Path, unsafe: str
) -> None:
    _pics_names(tmp_path, "Half-Life 2")
    people = {
        "0": {"type": "developer", "name": f"{unsafe}Valve{unsafe}"},
        "1": {"type": "publisher", "name": f"Valve{unsafe} Corp"},
        "2": {"type": "publisher", "name": f"{unsafe}"},
    }
    app = {"name": "Half-Life 2", "type": "Game", "associations": people}
    shard = {"_schema": "pics_raw_v2", "apps": {"220": app}}
    (tmp_path / "pics_raw" / "shard_00.json.gz").write_bytes(gzip.compress(orjson.dumps(shard)))
    found = [(o.field, o.value) for o in observe_pics(tmp_path) if o.field != "name"]
    assert [f for f in found if f[0] in ("developer", "publisher")] == [
        ("developer", "Valve"),
        ("publisher", "Valve Corp"),
    ]


def test_a_newest_row_without_a_price_is_dated(tmp_path: Path) -> None:
    # Horizon Zero Dawn Complete Edition: priced, then no price (no longer sold); an app
    # priced again after an empty row is sold.
    july_1, july_24 = 1782916800, 1784902420
    _price_file(
        tmp_path,
        "prices.json@2026-07-01T1515_a.json.gz",
        {"1151640": _row(49.99, 49.99, 0, july_1), "5": _row(None, None, 0, july_1)},
    )
    _price_file(
        tmp_path,
        "prices.json@2026-07-24T1418_b.json.gz",
        {"1151640": _row(None, None, 0, july_24), "5": _row(9.99, 9.99, 0, july_24)},
    )
    seen = {(o.appid, o.field): o.value for o in observe_price_history(tmp_path, "history")}
    assert seen[1151640, "unpriced_at"] == dt.date(2026, 7, 24)
    assert seen[1151640, "price"] == Price(49.99, 49.99, 0)
    assert (5, "unpriced_at") not in seen
