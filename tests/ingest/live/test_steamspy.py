"""SteamSpy adapter on a real ``request=all`` page excerpt and hand-built appdetails."""

from __future__ import annotations

from pathlib import Path

import pytest

from bangscore.ingest.live.steamspy import SteamSpyAdapter, parse_steamspy_app, steamspy_fields
from bangscore.scoring.records import GameRecord
from tests.ingest.replay import fixture_json, mock_replay, ok, quiet_client, stop_replay

# A recorded ``request=all`` page: appid -> the same app object ``appdetails`` answers with.
ALL_PAGE = "steamspy/all_page_1_2023-02-04_excerpt.json"


def test_parse_recorded_all_page_excerpt() -> None:
    apps = {key: parse_steamspy_app(obj) for key, obj in fixture_json(ALL_PAGE).items()}
    parsed = sorted(app.appid for app in apps.values() if app is not None)
    assert parsed == [32440, 337320, 715210, 977400]
    pillage = apps["715210"]
    assert pillage is not None
    assert (pillage.owners_range, pillage.median_forever_minutes) == ("1,000,000 .. 2,000,000", 118)


@pytest.mark.parametrize(
    ("appid", "expected"),
    [
        # 118 min = 1.97 h -> 2.0 (hours to one decimal).
        (715210, {"owners_range": "1,000,000 .. 2,000,000", "median_playtime_hours": 2.0}),
        # A median of 0 means SteamSpy has no playtime for the app: the field is left out.
        (977400, {"owners_range": "1,000,000 .. 2,000,000"}),
    ],
    ids=["playtime", "no-playtime"],
)
def test_steamspy_fields(appid: int, expected: dict[str, object]) -> None:
    app = parse_steamspy_app(fixture_json(ALL_PAGE)[str(appid)])
    assert app is not None
    assert steamspy_fields(app) == expected


def test_unknown_app_is_none() -> None:
    assert parse_steamspy_app(fixture_json("steamspy/handbuilt_appdetails_unknown.json")) is None


def test_adapter_fetch_over_replay(tmp_path: Path) -> None:
    server = mock_replay(
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
        review_score=1.0,
        review_count=100,
    )
    try:
        with quiet_client(tmp_path, server) as client:
            patch = SteamSpyAdapter(server.base_url).fetch(client, record)
    finally:
        stop_replay(server)
    # 654 minutes = 10.9 h.
    assert patch == {
        "owners_range": "20,000,000 .. 50,000,000",
        "median_playtime_hours": 10.9,
    }
    assert server.hits[0].query == {"request": "appdetails", "appid": "620"}
