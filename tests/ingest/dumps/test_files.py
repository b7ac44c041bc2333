"""Tests of the raw dump readers (ingest.dumps.files) on small hand-made files with broken rows."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from bangscore.errors import RowError
from bangscore.ingest.dumps.files import (
    parse_hltb_duration,
    read_hltb,
    read_itad_games,
    read_players_2018,
    read_steamspy,
    read_store_games_2019,
)
from tests.ingest.dumps import UNSAFE_IN_NAMES

WriteFile = Callable[[str, str | bytes], Path]


@pytest.fixture
def write_file(tmp_path: Path) -> WriteFile:
    """Return a factory writing text or bytes under tmp_path (gzip when the name ends .gz)."""

    def write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        raw = content.encode() if isinstance(content, str) else content
        path.write_bytes(gzip.compress(raw) if name.endswith(".gz") else raw)
        return path

    return write


def _spy(appid: int, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "appid": appid,
        "name": f"Game {appid}",
        "developer": "Dev",
        "publisher": "",
        "positive": 10,
        "negative": 2,
        "owners": "0 .. 20,000",
        "average_forever": 0,
        "median_forever": 0,
        "price": "999",
        "initialprice": "1999",
        "discount": "50",
        "ccu": 3,
    }
    return base | fields


def test_read_steamspy_keeps_good_apps_and_counts_broken_ones(write_file: WriteFile) -> None:
    page0 = {
        "10": _spy(10, average_forever=120, median_forever=60),
        "11": _spy(11, price=None, initialprice=None, discount=None),
        "12": _spy(12, price="abc"),
        "13": _spy(13, name=""),
        "14": _spy(14, discount="150"),
        "15": _spy(16),
        "17": "not an object",
    }
    page1 = {"10": _spy(10, name="Later copy"), "18": _spy(18, positive="many")}
    folder = write_file("spy/x_page_0.json.gz", orjson.dumps(page0)).parent
    write_file("spy/x_page_1.json", orjson.dumps(page1))
    write_file("spy/x_page_2.json.gz", b"{broken")

    result = read_steamspy(folder)

    assert [app.appid for app in result.rows] == [10, 11]
    first = result.rows[0]
    assert (first.name, first.developer, first.publisher) == ("Game 10", "Dev", None)
    assert (first.price_cents, first.list_price_cents, first.discount_percent) == (999, 1999, 50)
    assert (first.positive, first.negative, first.median_forever_min) == (10, 2, 60)
    assert result.rows[1].price_cents is None  # unknown, not broken
    assert result.read == 9
    assert result.skipped == {
        "bad price": 1,
        "missing name": 1,
        "bad discount": 1,
        "bad appid": 1,
        "not an object": 1,
        "duplicate appid": 1,
        "bad review count": 1,
        "corrupt page": 1,
    }


STORE_HEADER = (
    "appid,name,release_date,english,developer,publisher,platforms,required_age,categories,"
    "genres,steamspy_tags,achievements,positive_ratings,negative_ratings,average_playtime,"
    "median_playtime,owners,price\n"
)


def test_read_store_games_2019(write_file: WriteFile) -> None:
    text = STORE_HEADER + (
        "220,Half-Life 2,2004-11-16,1,Valve,Valve,windows,0,Single-player,Action,"
        "FPS;Action;Sci-fi,33,67902,2419,691,402,10000000-20000000,7.19\n"
        "221,Broken Date,2004-13-40,1,V,V,windows,0,x,Action,FPS,0,1,1,0,0,0-20000,0.0\n"
        "222,,2004-11-16,1,V,V,windows,0,x,Action,FPS,0,1,1,0,0,0-20000,0.0\n"
        "223,Software,2010-01-02,1,V,V,windows,0,x,Utilities;Design & Illustration,,"
        "0,1,1,0,0,0-20000,3.99\n"
        "570,Dota 2,2013-07-09,1,Valve,Valve,windows,0,x,Action;Free to Play;Strategy,"
        "Free to Play;MOBA;Strategy,0,1,1,0,0,0-20000,0.0\n"
        "224,Odd Price,2010-01-02,1,V,V,windows,0,x,Action,,0,1,1,0,0,0-20000,n/a\n"
    )
    result = read_store_games_2019(write_file("steam.csv.gz", text))

    assert result.read == 6
    assert result.skipped == {"bad date": 1, "missing name": 1}
    hl2, software, dota, odd = result.rows
    assert hl2.appid == 220
    assert hl2.release_date == dt.date(2004, 11, 16)
    assert hl2.genres == ("Action",)
    assert hl2.tags == ("FPS", "Action", "Sci-fi")
    assert (hl2.average_playtime_min, hl2.median_playtime_min) == (691, 402)
    assert software.genres == ("Utilities", "Design & Illustration")
    assert software.tags == ()
    # The GBP price is read only as "sold for money or not"; a broken cell is unknown.
    assert (hl2.paid, dota.paid, odd.paid) == (True, False, None)


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        pytest.param("23h 17m", 23 + 17 / 60, id="hours-minutes"),
        pytest.param("45m", 0.75, id="minutes"),
        pytest.param("362h", 362.0, id="hours"),
        pytest.param("1h 0m", 1.0, id="zero-minutes"),
        pytest.param(" 2h 30m ", 2.5, id="padded"),
        pytest.param("1.5h", 1.5, id="decimal-hours"),
        pytest.param("", None, id="empty"),
        pytest.param("--", None, id="dashes"),
        pytest.param("0m", None, id="zero"),
    ],
)
def test_parse_hltb_duration(text: str, hours: float | None) -> None:
    result = parse_hltb_duration(text)
    if hours is None:
        assert result is None
    else:
        assert result == pytest.approx(hours)


@pytest.mark.parametrize("text", ["abc", "h", "5x", "3 hours", "m 5"], ids=str)
def test_parse_hltb_duration_rejects_garbage(text: str) -> None:
    with pytest.raises(RowError, match="bad duration"):
        parse_hltb_duration(text)


HLTB_HEADER = "Name,Release_date,Genres,Review_score,steam_app_id,main_story,extras,completionist\n"


def test_read_hltb(write_file: WriteFile) -> None:
    text = HLTB_HEADER + (
        'Borderlands 3,2019-09-13,"First-Person, Action, Shooter",76,397540,23h 17m,47h 3m,'
        "77h 27m\n"
        "Morrowind GOTY,2003-00-00,RPG,80,22320,46h 2m,,392h 59m\n"
        "The Spirit and the Mouse,0000-09-26,Adventure,77,1679210,4h 21m,,5h 40m\n"
        "Console Only,2010-02-19,Action,80,,--,,\n"
        "Broken Time,2010-02-19,Action,80,5,soon,,\n"
        ",2010-02-19,Action,80,6,1h,,\n"
    )
    result = read_hltb(write_file("hltb.csv", text))

    assert result.read == 6
    assert result.skipped == {"bad date": 1, "bad duration": 1, "missing name": 1}
    borderlands, morrowind, console = result.rows
    assert borderlands.steam_appid == 397540
    assert borderlands.release_date == dt.date(2019, 9, 13)
    assert borderlands.main_story_hours == pytest.approx(23 + 17 / 60)
    assert borderlands.completionist_hours == pytest.approx(77 + 27 / 60)
    assert (morrowind.release_year, morrowind.release_date) == (2003, None)
    assert (console.steam_appid, console.main_story_hours) == (None, None)
    assert borderlands.genres == ("First-Person", "Action", "Shooter")  # HLTB's order
    assert morrowind.genres == ("RPG",)


def test_read_players_2018_handles_cr_lines_and_latin1(write_file: WriteFile) -> None:
    lines = [
        "Title, Players Estimate ,Steam App ID",
        'Team Fortress 2," 50,191,347 ",440',
        'Pok\xe9mon Thing," 1,234 ",12345',
        'Paladins," 14,371,946 "',
        '," 9 ",17760',
        'Bad Count," many ",99',
    ]
    raw = "\r".join(lines).encode("latin-1") + b"\r"
    result = read_players_2018(write_file("players.csv", raw))

    assert [(p.appid, p.players) for p in result.rows] == [
        (440, 50_191_347),
        (12345, 1234),
        (17760, 9),
    ]
    assert result.rows[1].name == "Pokémon Thing"
    assert result.read == 5
    assert result.skipped == {"missing appid": 1, "bad player count": 1}


ITAD_HEADER = (
    "Game Name,ITAD Game ID,ITAD Release Date,ITAD Tags,ITAD Metacritic Rating,"
    "Max Discount (%),Date Range End,Min Price (€)\n"
)


def test_read_itad_games(write_file: WriteFile) -> None:
    text = ITAD_HEADER + (
        ' Hades,id-1,2020-09-17,"Action Roguelike, Indie",93.0,75,2025-10-16 19:18:50,4.99\n'
        "Quiet Game,id-2,,,,0,2025-08-01 10:00:00,1.00\n"
        "Bad Discount,id-3,2020-01-01,,,lots,2025-08-01 10:00:00,1.00\n"
        "Bad Score,id-4,2020-01-01,,180,10,2025-08-01 10:00:00,1.00\n"
        ",id-5,2020-01-01,,,10,2025-08-01 10:00:00,1.00\n"
    )
    result = read_itad_games(write_file("itad.csv.gz", text))

    assert result.read == 5
    assert result.skipped == {"bad discount": 1, "bad metacritic": 1, "missing name": 1}
    hades, quiet = result.rows
    assert hades.name == "Hades"
    assert (hades.metacritic, hades.max_discount_percent) == (93, 75)
    assert hades.tags == ("Action Roguelike", "Indie")
    assert (hades.release_year, hades.last_seen) == (2020, dt.date(2025, 10, 16))
    assert (quiet.metacritic, quiet.release_year, quiet.tags) == (None, None, ())


def _line(*cells: str) -> str:
    """Given one row's cells, return its CSV line, quoted as the dumps quote theirs."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()


def _spy_name(write: WriteFile, name: str) -> str:
    page = write(
        "spy/20250101_steamspy_page_0.json.gz", orjson.dumps({"570": _spy(570, name=name)})
    )
    return read_steamspy(page.parent).rows[0].name


def _store_name(write: WriteFile, name: str) -> str:
    row = _line("220", name, "2004-11-16", "1", "Valve", "Valve", "windows", "0", "x", "Action")
    return read_store_games_2019(write("steam.csv.gz", STORE_HEADER + row)).rows[0].name


def _hltb_name(write: WriteFile, name: str) -> str:
    row = _line(name, "2019-09-13", "Action", "76", "397540", "23h 17m", "", "77h 27m")
    return read_hltb(write("hltb_clean.csv", HLTB_HEADER + row)).rows[0].name


def _itad_name(write: WriteFile, name: str) -> str:
    row = _line(name, "id-1", "2020-09-17", "Indie", "93.0", "75", "2025-10-16 19:18:50", "4.99")
    return read_itad_games(write("itad.csv.gz", ITAD_HEADER + row)).rows[0].name


@pytest.mark.parametrize(
    "read_name",
    [
        pytest.param(_spy_name, id="steamspy"),
        pytest.param(_store_name, id="store-2019"),
        pytest.param(_hltb_name, id="hltb-2023"),
        pytest.param(_itad_name, id="itad-2025"),
    ],
)
@pytest.mark.parametrize("unsafe", UNSAFE_IN_NAMES)
def test_names_lose_control_and_bidi_characters(
    write_file: WriteFile, read_name: Callable[[WriteFile, str], str], unsafe: str
) -> None:
    assert read_name(write_file, f"{unsafe}Half{unsafe}-Life 2{unsafe}") == "Half-Life 2"


LATIN_1_UNSAFE = [p for p in UNSAFE_IN_NAMES if all(ord(c) < 256 for c in str(p.values[0]))]


@pytest.mark.parametrize("unsafe", LATIN_1_UNSAFE)
def test_players_2018_names_lose_control_characters(write_file: WriteFile, unsafe: str) -> None:
    # The file is latin-1 with CR line ends: only the characters latin-1 can hold.
    lines = ["Title, Players Estimate ,Steam App ID", f'Half{unsafe}-Life 2," 1,234 ",220']
    raw = "\r".join(lines).encode("latin-1") + b"\r"
    assert read_players_2018(write_file("players.csv", raw)).rows[0].name == "Half-Life 2"


RAW = Path(__file__).resolve().parents[3] / "data/raw"


@pytest.mark.parametrize(
    ("page", "appid", "role", "shown"),
    [
        pytest.param(
            "steamspy_all_2025-01-01/20250101_steamspy_page_1.json.gz",
            "1672970",
            "developer",
            "Mojang Studios, Double Eleven",
            id="Minecraft Dungeons-2025",
        ),
        pytest.param(
            "steamspy_all_2023-02-04/20230204_steamspy_page_1.json.gz",
            "1672970",
            "developer",
            "Mojang Studios, Double Eleven",
            id="Minecraft Dungeons-2023",
        ),
        pytest.param(
            "steamspy_all_2025-01-01/20250101_steamspy_page_2.json.gz",
            "808290",
            "publisher",
            "Gameforge 4D GmbH",
            id="Runes of Magic",
        ),
    ],
)
def test_a_developer_or_publisher_loses_bidi_controls_as_names_do(
    tmp_path: Path, page: str, appid: str, role: str, shown: str
) -> None:
    """Issue 45 finding 11: Minecraft Dungeons' developer in the bundled SteamSpy dumps holds
    U+202A (left-to-right embedding), which reached the API, the export and the page."""
    row = orjson.loads(gzip.decompress((RAW / page).read_bytes()))[appid]
    assert set(row[role]) & {"\u202a", "\u202c"}  # the raw dump's own row, as bundled
    folder = tmp_path / "steamspy"
    folder.mkdir()
    (folder / Path(page).name).write_bytes(gzip.compress(orjson.dumps({appid: row})))
    [app] = read_steamspy(folder).rows
    assert getattr(app, role) == shown
