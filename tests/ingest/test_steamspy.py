"""SteamSpy adapter on a real ``request=all`` page excerpt and hand-built appdetails."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.records import GameRecord
from ingest.steamspy import (
    SteamSpyAdapter,
    parse_steamspy_app,
    parse_steamspy_page,
    steamspy_fields,
)
from tests.ingest.replay import fixture_json, ok, quiet_client, start_replay, stop_replay


def test_parse_recorded_all_page_excerpt() -> None:
    apps = parse_steamspy_page(fixture_json("steamspy/all_page_1_2023-02-04_excerpt.json"))
    assert sorted(apps) == [32440, 337320, 715210, 977400]
    pillage = apps[715210]
    assert (pillage.owners_range, pillage.median_forever_minutes) == ("1,000,000 .. 2,000,000", 118)


@pytest.mark.parametrize(
    ("appid", "expected"),
    [
        # 118 min -> 2.0 h (1.97 rounded); 381 min -> 6.35 -> 6.3 or 6.4; use 297 min -> 4.95 -> 5.0
        (715210, {"owners_range": "1,000,000 .. 2,000,000", "median_playtime_hours": 2.0}),
        (32440, {"owners_range": "1,000,000 .. 2,000,000", "median_playtime_hours": 5.0}),
        # A median of 0 means SteamSpy has no playtime for the app: the field is left out.
        (977400, {"owners_range": "1,000,000 .. 2,000,000"}),
    ],
    ids=["short", "medium", "no-playtime"],
)
def test_steamspy_fields(appid: int, expected: dict[str, object]) -> None:
    apps = parse_steamspy_page(fixture_json("steamspy/all_page_1_2023-02-04_excerpt.json"))
    assert steamspy_fields(apps[appid]) == expected


def test_unknown_app_is_none() -> None:
    assert parse_steamspy_app(fixture_json("steamspy/handbuilt_appdetails_unknown.json")) is None


def test_adapter_fetch_over_replay(tmp_path: Path) -> None:
    server = start_replay(
        {
            ("GET", "/api.php"): lambda q, b: ok(
                fixture_json("steamspy/handbuilt_appdetails_620.json")
            )
        }
    )
    record = GameRecord(
        appid=620,
        name="Portal 2",
        price_usd=9.99,
        list_price_usd=9.99,
        discount_percent=0,
        review_positive=1,
        review_negative=0,
    )
    try:
        with quiet_client(tmp_path) as client:
            patch = SteamSpyAdapter(server.base_url).fetch(client, record)
    finally:
        stop_replay(server)
    # 651 minutes -> 10.85 h -> 10.8 (round half to even on the float 10.85)
    assert patch == {
        "owners_range": "20,000,000 .. 50,000,000",
        "median_playtime_hours": round(651 / 60, 1),
    }
    assert server.hits[0].query == {"request": "appdetails", "appid": "620"}
