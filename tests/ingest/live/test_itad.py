"""IsThereAnyDeal v2 adapter on hand-built responses (no real recording exists)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bangscore.ingest.live.itad import ItadAdapter, parse_history_low, parse_lookup
from bangscore.scoring.records import GameRecord
from tests.ingest.replay import fixture_json, mock_replay, ok, quiet_client, stop_replay

GAME_ID = "018d937f-07fa-73d5-b4c4-cb6d4a25dd54"


def test_parse_lookup() -> None:
    assert parse_lookup(fixture_json("itad/handbuilt_lookup_620.json")) == GAME_ID
    assert parse_lookup(fixture_json("itad/handbuilt_lookup_not_found.json")) is None


@pytest.mark.parametrize(
    ("price", "expected"),
    [
        ({"amount": 0.99, "amountInt": 99, "currency": "USD"}, 0.99),
        ({"amount": 4.5, "currency": "USD"}, 4.5),
        ({"amount": 0.89, "amountInt": 89, "currency": "EUR"}, None),
    ],
    ids=["usd-cents", "usd-amount-only", "eur-refused"],
)
def test_parse_history_low(price: dict[str, object], expected: float | None) -> None:
    payload = [{"id": GAME_ID, "low": {"price": price}}]
    assert parse_history_low(payload, GAME_ID) == expected
    assert parse_history_low(payload, "other") is None


def test_adapter_sends_key_and_country(tmp_path: Path) -> None:
    server = mock_replay(
        {
            ("GET", "/games/lookup/v1"): lambda q, b: ok(
                fixture_json("itad/handbuilt_lookup_620.json")
            ),
            ("POST", "/games/historylow/v1"): lambda q, b: ok(
                fixture_json("itad/handbuilt_historylow_620.json")
            ),
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
            patch = ItadAdapter(server.base_url, "secret-key").fetch(client, record)
    finally:
        stop_replay(server)
    assert patch == {"historical_low_usd": 0.99}
    lookup, low = server.hits
    assert lookup.query == {"key": "secret-key", "appid": "620"}
    assert low.query == {"key": "secret-key", "country": "US"}
    assert json.loads(low.body) == [GAME_ID]


def test_adapter_refuses_to_run_without_key() -> None:
    record = GameRecord(
        appid=620,
        name="Portal 2",
        price_usd=9.99,
        list_price_usd=9.99,
        discount_percent=0,
        review_score=1.0,
        review_count=100,
    )
    with quiet_client(None) as client, pytest.raises(ValueError, match="API key"):
        ItadAdapter("http://127.0.0.1:1", "").fetch(client, record)
