"""Readers of the 2024-2026 dumps (ingest.dumps.readers): what they translate on the way in."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from bangscore.ingest.dumps.readers import LOCALIZED_GENRES, observe_pics, observe_price_history
from bangscore.ingest.resolve.checks import GAME_GENRES, SOFTWARE_GENRES
from bangscore.ingest.resolve.prices import Price, Seen


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
    }
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
