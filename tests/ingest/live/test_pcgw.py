"""PCGamingWiki Cargo adapter on hand-built responses (no real recording exists)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bangscore.ingest.live.pcgw import PcgwAdapter, parse_infobox, wiki_fields
from bangscore.scoring.records import GameRecord
from tests.ingest.replay import fixture_json, mock_replay, ok, quiet_client, stop_replay


def make_record(**overrides: object) -> GameRecord:
    base: dict[str, object] = {
        "appid": 620,
        "name": "Portal 2",
        "price_usd": 9.99,
        "list_price_usd": 9.99,
        "discount_percent": 0,
        "review_score": 1.0,
        "review_count": 100,
    }
    return GameRecord.model_validate(base | overrides)


def test_parse_infobox() -> None:
    box = parse_infobox(fixture_json("pcgw/handbuilt_cargoquery_620.json"), 620)
    assert box is not None
    assert box.appids == (620, 323180)
    assert box.developers == ("Valve Corporation",)
    assert box.publishers == ("Valve Corporation", "Electronic Arts")
    assert box.released == dt.date(2011, 4, 18)  # earliest of the listed dates
    assert box.genres == ("Puzzle", "Platform")
    assert parse_infobox(fixture_json("pcgw/handbuilt_cargoquery_620.json"), 400) is None
    assert parse_infobox(fixture_json("pcgw/handbuilt_cargoquery_empty.json"), 620) is None


def test_wiki_fills_gaps_only() -> None:
    box = parse_infobox(fixture_json("pcgw/handbuilt_cargoquery_620.json"), 620)
    assert box is not None
    assert wiki_fields(box, make_record()) == {
        "developer": "Valve Corporation",
        "publisher": "Valve Corporation",
        "release_date": dt.date(2011, 4, 18),
    }
    known = make_record(developer="Valve", publisher="Valve", release_date=dt.date(2011, 4, 18))
    assert wiki_fields(box, known) == {}


def test_adapter_queries_by_appid(tmp_path: Path) -> None:
    body = fixture_json("pcgw/handbuilt_cargoquery_620.json")
    server = mock_replay({("GET", "/w/api.php"): lambda q, b: ok(body)})
    try:
        with quiet_client(tmp_path, server) as client:
            patch = PcgwAdapter(server.base_url).fetch(client, make_record(developer="Valve"))
    finally:
        stop_replay(server)
    assert patch is not None and "developer" not in patch
    query = server.hits[0].query
    assert (query["action"], query["tables"]) == ("cargoquery", "Infobox_game")
    assert query["where"] == 'Infobox_game.Steam_AppID HOLDS "620"'
