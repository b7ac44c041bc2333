"""The app against docs/API.md#endpoints, endpoint by endpoint, on a real snapshot and a real
store."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.build.openapi import DETAIL_PROPERTIES, GAME_PROPERTIES, SCHEMAS
from bangscore.contract.filters import precomputed_combos
from bangscore.contract.objects import list_key
from bangscore.manifest import read_body
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.value import SCORE_VERSION
from bangscore.storage import MemoryStorage, ObjectStorage
from bangscore.stores import Stores
from tests.support import factories
from tests.support.factories import NOT_RATED, SITE, add_key
from tests.support.filter_reference import select

ClientFactory = Callable[..., tuple[TestClient, Stores]]
PROBLEM_PROPERTIES = SCHEMAS["Problem"]["properties"]
RATE_HEADERS = (
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-used",
    "x-ratelimit-reset",
    "ratelimit-policy",
    "ratelimit",
)


@pytest.fixture
def api(
    client_factory: ClientFactory, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> tuple[TestClient, Stores, dict[str, str]]:
    """A client over the small catalog, its store, and auth headers of a free key."""
    client, store = client_factory(small_snapshot[0])
    key = add_key(store)
    return client, store, {"Authorization": f"Bearer {key}"}


def games_of(response: Any) -> list[dict[str, Any]]:
    body = response.json()
    return list(body["games"])


# -- root listing and documents ---------------------------------------------------------------


def test_root_listing_needs_no_key_and_lists_every_endpoint(api: Any) -> None:
    client, _, _ = api
    response = client.get("/api/v1")
    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "BangScore"
    assert body["prices_as_of"] == "2026-07-24T14:13:40Z"
    assert body["attribution"] == {
        "required": True,
        "text": "Game value ratings by BangScore",
        "url": SITE,
    }
    assert body["openapi_url"] == f"{SITE}/api/v1/openapi.json"
    paths = {e["path"] for e in body["endpoints"]}
    assert {"/api/v1/games", "/api/v1/games/{appid}", "/api/v1/search", "/api/v1"} <= paths
    games = next(e for e in body["endpoints"] if e["path"] == "/api/v1/games")
    assert games["auth"] is True
    assert {p["name"] for p in games["parameters"]} == {
        "genre",
        "tag",
        "year_from",
        "year_to",
        "on_sale",
        "max_price",
        "steam_deck",
        "controller",
        "language",
        "audio",
        "min_reviews",
        "page",
        "api_key",
    }
    assert all(
        set(p) == {"name", "in", "type", "required", "description"} for p in games["parameters"]
    )
    for name in RATE_HEADERS:
        assert name in response.headers


def test_root_listing_and_openapi_come_from_one_route_table(api: Any) -> None:
    client, _, _ = api
    listing = client.get("/api/v1").json()
    openapi = client.get("/api/v1/openapi.json").json()
    assert openapi["openapi"] == "3.1.0"
    assert {e["path"] for e in listing["endpoints"]} == set(openapi["paths"])


def test_docs_and_home_pages_are_html(api: Any) -> None:
    client, _, _ = api
    for path in ("/docs", "/docs/errors", "/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
    docs = client.get("/docs").text
    assert 'id="quota_exceeded"' in docs and "Attribution is required" in docs


# -- authentication ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "query", "code", "challenge"),
    [
        ({}, "", "missing_key", 'Bearer realm="bangscore"'),
        (
            {"Authorization": "Bearer nonsense"},
            "",
            "invalid_key",
            'Bearer realm="bangscore", error="invalid_token"',
        ),
        (
            {},
            "?api_key=bsk_tooshort",
            "invalid_key",
            'Bearer realm="bangscore", error="invalid_token"',
        ),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "", "missing_key", 'Bearer realm="bangscore"'),
    ],
    ids=["missing", "malformed-header", "malformed-query", "wrong-scheme"],
)
def test_bad_keys_get_401_problems(
    api: Any, headers: dict[str, str], query: str, code: str, challenge: str
) -> None:
    client, _, _ = api
    response = client.get("/api/v1/games" + query, headers=headers)
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["www-authenticate"] == challenge
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["code"] == code
    assert body["status"] == 401
    assert body["type"] == f"{SITE}/docs/errors#{code}"


def test_unknown_well_formed_key_is_invalid(api: Any) -> None:
    client, _, _ = api
    from bangscore.stores.keys import generate_key

    response = client.get("/api/v1/games", headers={"Authorization": f"Bearer {generate_key()}"})
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_key"


def test_revoked_key_answers_401_revoked(api: Any) -> None:
    client, store, headers = api
    key = headers["Authorization"].removeprefix("Bearer ")
    assert client.get("/api/v1/games", headers=headers).status_code == 200
    from bangscore.stores.keys import key_id

    store.keys.revoke_key(key_id(key))
    response = client.get("/api/v1/games", headers=headers)
    assert response.status_code == 401
    assert response.json()["code"] == "revoked_key"


def test_header_wins_over_query_key(api: Any) -> None:
    client, store, headers = api
    other = add_key(store, account="b@x.io")
    response = client.get(f"/api/v1/games?api_key={other}", headers=headers)
    assert response.status_code == 200
    # The query key was ignored: only the header's key was counted.
    from bangscore.stores.keys import key_id

    counts = {v.record.key_id: v.today for v in store.keys.list_keys(factories_today())}
    assert counts[key_id(other)] == 0
    bad = client.get(f"/api/v1/games?api_key={other}", headers={"Authorization": "Bearer x"})
    assert bad.status_code == 401


def factories_today() -> Any:
    import datetime as dt

    return dt.datetime.now(dt.UTC).date()


def test_query_key_works_alone(api: Any) -> None:
    client, _, headers = api
    key = headers["Authorization"].removeprefix("Bearer ")
    assert client.get(f"/api/v1/games?api_key={key}").status_code == 200


def test_401s_are_never_charged_to_a_key_but_count_per_ip(api: Any) -> None:
    client, store, _ = api
    client.get("/api/v1/games", headers={"Authorization": "Bearer nope"})
    second = client.get("/api/v1/games")
    assert second.status_code == 401
    assert int(second.headers["x-ratelimit-used"]) == 2  # the client IP's anonymous count
    assert int(second.headers["x-ratelimit-limit"]) == 1000
    assert all(v.today == 0 for v in store.keys.list_keys(factories_today()))


# -- list endpoint ----------------------------------------------------------------------------


def all_pages(client: TestClient, headers: dict[str, str], query: str = "") -> list[dict[str, Any]]:
    first = client.get(f"/api/v1/games?{query}", headers=headers).json()
    games = list(first["games"])
    for page in range(2, first["pages"] + 1):
        games += client.get(f"/api/v1/games?{query}&page={page}", headers=headers).json()["games"]
    assert len(games) == first["total"]
    return games


def test_list_is_ranked_and_paginated(api: Any, small_snapshot: Any) -> None:
    client, _, headers = api
    _, scored = small_snapshot
    response = client.get("/api/v1/games", headers=headers)
    body = response.json()
    assert (body["page"], body["pages"], body["total"]) == (1, math.ceil(45 / 10), 45)
    assert len(body["games"]) == 10
    games = all_pages(client, headers)
    expected = sorted(scored, key=lambda g: (-g.bang_score, -g.score, g.record.appid))
    assert [g["appid"] for g in games] == [g.record.appid for g in expected]
    assert all(a["bang_score"] >= b["bang_score"] for a, b in itertools.pairwise(games))
    assert set(games[0]) == set(GAME_PROPERTIES)


def test_page_past_the_last_is_empty_with_real_totals(api: Any) -> None:
    client, _, headers = api
    body = client.get("/api/v1/games?page=99", headers=headers).json()
    assert body == {
        "page": 99,
        "pages": 5,
        "prices_as_of": "2026-07-24T14:13:40Z",
        "total": 45,
        "games": [],
    }
    body = client.get("/api/v1/games?genre=rpg&tag=nosuchtag", headers=headers).json()
    assert body == {
        "page": 1,
        "pages": 0,
        "prices_as_of": "2026-07-24T14:13:40Z",
        "total": 0,
        "games": [],
    }


@pytest.mark.parametrize(
    ("query", "check"),
    [
        ("genre=rpg", lambda g: g["genre"] == "rpg"),
        ("genre=RPG,Shooter", lambda g: g["genre"] in {"rpg", "shooter"}),
        ("genre=rpg&genre=strategy", lambda g: g["genre"] in {"rpg", "strategy"}),
        ("on_sale=true", lambda g: g["discount_percent"] > 0),
        (
            "on_sale=TRUE&genre=action",
            lambda g: g["discount_percent"] > 0 and g["genre"] == "action",
        ),
        ("year_from=2014&year_to=2016", lambda g: 2014 <= g["release_year"] <= 2016),
        ("year_from=2016&year_to=2016", lambda g: g["release_year"] == 2016),
    ],
    ids=[
        "genre",
        "genre-list-case",
        "genre-repeated",
        "on-sale",
        "on-sale-genre",
        "years",
        "years-inclusive",
    ],
)
def test_filters_keep_exactly_the_matching_games(
    api: Any, small_snapshot: Any, query: str, check: Callable[[dict[str, Any]], bool]
) -> None:
    client, _, headers = api
    everything = all_pages(client, headers)
    games = all_pages(client, headers, query)
    assert games, "each case matches something in the small catalog"
    assert all(check(g) for g in games)
    assert [g["appid"] for g in games] == [g["appid"] for g in everything if check(g)]


def test_tags_are_anded_and_case_insensitive(api: Any, small_snapshot: Any) -> None:
    client, _, headers = api
    _, scored = small_snapshot
    games = all_pages(client, headers, "tag=rpg,CO-OP")
    expected = {
        g.record.appid for g in scored if {"rpg", "co-op"} <= {t.lower() for t in g.record.tags}
    }
    assert {g["appid"] for g in games} == expected
    assert len(expected) == 3  # Rpg Quest 0, 2 and 4 carry both tags


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("genre=platformer", "genre"),
        ("genre=", "genre"),
        ("tag=" + "x" * 65, "tag"),
        ("tag=" + ",".join(f"t{i}" for i in range(21)), "tag"),
        ("year_from=15", "year_from"),
        ("year_to=20x5", "year_to"),
        ("year_from=0999", "year_from"),
        ("year_to=10000", "year_to"),
        ("on_sale=false", "on_sale"),
        ("on_sale=1", "on_sale"),
        ("page=0", "page"),
        ("page=-1", "page"),
        ("page=abc", "page"),
        ("page=1&page=2", "page"),
        ("on_sale=true&on_sale=true", "on_sale"),
        ("sort=price", "sort"),
    ],
    ids=lambda v: v if "=" in v else None,
)
def test_bad_list_parameters_are_400_naming_the_parameter(
    api: Any, query: str, parameter: str
) -> None:
    client, _, headers = api
    response = client.get(f"/api/v1/games?{query}", headers=headers)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_parameter"
    assert parameter in {e["parameter"] for e in body["errors"]}
    assert all(e["message"] for e in body["errors"])


def test_a_year_range_ending_before_it_starts_is_a_400_naming_both(api: Any) -> None:
    # docs/API.md#list-games (issue 55 restores the 400 after issue 48's empty page).
    client, _, headers = api
    response = client.get("/api/v1/games?year_from=2020&year_to=2010", headers=headers)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_parameter"
    assert body["errors"] == [
        {"parameter": "year_from", "message": "2020 is after year_to (2010)"},
        {"parameter": "year_to", "message": "2010 is before year_from (2020)"},
    ]
    # One year alone, or equal ones, stays valid.
    same = client.get("/api/v1/games?year_from=2016&year_to=2016", headers=headers)
    assert same.status_code == 200 and same.json()["total"] > 0


def test_link_header_has_first_prev_next_last(api: Any) -> None:
    client, _, headers = api
    link = client.get("/api/v1/games?genre=rpg,shooter&page=1", headers=headers).headers["link"]
    assert link == (
        f'<{SITE}/api/v1/games?genre=rpg%2Cshooter&page=1>; rel="first", '
        f'<{SITE}/api/v1/games?genre=rpg%2Cshooter&page=1>; rel="last"'
    )
    link = client.get("/api/v1/games?page=3", headers=headers).headers["link"]
    rels = dict(
        (part.split("; rel=")[1].strip('"'), part.split(">")[0].lstrip("<"))
        for part in link.split(", ")
    )
    assert rels == {
        "first": f"{SITE}/api/v1/games?page=1",
        "prev": f"{SITE}/api/v1/games?page=2",
        "next": f"{SITE}/api/v1/games?page=4",
        "last": f"{SITE}/api/v1/games?page=5",
    }
    assert (
        "api_key"
        not in client.get("/api/v1/games?api_key=" + headers["Authorization"][7:]).headers["link"]
    )


def test_composed_pages_equal_precomputed_bytes(small_snapshot: Any, client_factory: Any) -> None:
    storage, _ = small_snapshot
    from bangscore.shim.source import SnapshotSource

    source = SnapshotSource(storage, cache_bytes=1 << 24, poll_seconds=60)
    source.refresh()
    snap = source.current
    assert snap is not None
    checked = 0
    for filters in precomputed_combos():
        page = 1
        while (key := list_key(filters.combo_key or "", page)) in snap.manifest.entries:
            stored = read_body(storage, snap.manifest.entries[key])
            assert snap.index.page(filters, page)[0] == stored
            page += 1
            checked += 1
    games = small_snapshot[1]
    expected = sum(max(1, -(-len(select(games, f)) // 10)) for f in precomputed_combos())
    assert checked == expected >= 2 * (5 + 2 + 9 * 2)  # every combination, with and without adult


def test_on_sale_composed_with_years_matches_reference(api: Any, small_snapshot: Any) -> None:
    client, _, headers = api
    _, scored = small_snapshot
    games = all_pages(client, headers, "on_sale=true&year_from=2012&genre=rpg,strategy,action")
    expected = [
        g.record.appid
        for g in scored
        if g.record.discount_percent > 0
        and (g.record.release_year or 0) >= 2012
        and g.genre in {"rpg", "strategy", "action"}
    ]
    assert [g["appid"] for g in games] == expected


# -- detail -----------------------------------------------------------------------------------


def test_detail_holds_every_field_with_contract_rounding(api: Any, small_snapshot: Any) -> None:
    client, _, headers = api
    _, scored = small_snapshot
    game = scored[0]
    response = client.get(f"/api/v1/games/{game.record.appid}", headers=headers)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == set(DETAIL_PROPERTIES)
    assert body["appid"] == game.record.appid
    assert body["bang_score"] == game.bang_score and isinstance(body["bang_score"], int)
    assert body["review_score"] == round(game.record.review_score or 0, 3)
    assert body["refunded_review_share"] is None and body["early_window_reviews"] is None
    assert body["sources"]["storefront"] == "2025-01-01"
    assert body["sources"]["wiki"] is None
    assert body["length_source"] == game.record.length_source == "hltb"
    assert body["drivers"] == game.drivers
    assert set(body["drivers"]) == {"raises", "lowers", "neutral"}
    assert body["score_version"] == SCORE_VERSION
    assert body["prices_as_of"] == "2026-07-24T14:13:40Z"
    assert (
        body["url"]
        == f"{SITE}/game/{game.record.appid}/{game.record.name.lower().replace(' ', '-')}"
    )
    listed = next(g for g in all_pages(client, headers) if g["appid"] == game.record.appid)
    assert {k: body[k] for k in listed} == listed


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/api/v1/games/999999", 404, "game_not_found"),
        ("/api/v1/games/12ab", 400, "invalid_parameter"),
        ("/api/v1/games/-5", 400, "invalid_parameter"),
        ("/api/v1/games/..%2F..%2Fetc%2Fpasswd", 404, "not_found"),
        ("/api/v1/nope", 404, "not_found"),
    ],
    ids=["unknown-appid", "letters", "negative", "traversal", "unknown-path"],
)
def test_detail_errors(api: Any, path: str, status: int, code: str) -> None:
    client, _, headers = api
    response = client.get(path, headers=headers)
    assert response.status_code == status
    assert response.json()["code"] == code


@pytest.mark.parametrize(
    ("appid", "name", "reason"),
    [(a.appid, a.name, a.reason) for a in NOT_RATED],
    ids=[a.reason for a in NOT_RATED],
)
def test_known_app_that_is_not_rated_says_why(api: Any, appid: int, name: str, reason: str) -> None:
    client, _, headers = api
    response = client.get(f"/api/v1/games/{appid}", headers=headers)
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert (body["code"], body["reason"], body["appid"], body["name"]) == (
        "game_not_rated",
        reason,
        appid,
        name,
    )
    assert name in body["detail"] and "not rated" in body["detail"]
    assert body["type"].endswith("/docs/errors#game_not_rated")
    # Only a superseded listing names the edition that replaces it.
    assert body.get("superseded_by") == (10_000 if reason == "superseded" else None)
    assert set(body) <= set(PROBLEM_PROPERTIES)  # the document declares every member


# -- search -----------------------------------------------------------------------------------


def test_search_envelope_and_ranking(api: Any) -> None:
    client, _, headers = api
    body = client.get("/api/v1/search?q=rpg quest 2", headers=headers).json()
    assert body["query"] == "rpg quest 2"
    assert [g["name"] for g in body["games"]] == ["Rpg Quest 2"]
    body = client.get("/api/v1/search?q=QUEST", headers=headers).json()
    assert body["total"] == 45 and body["pages"] == 5
    # ties (no name equals or starts with "quest") go by bang_score desc, then appid
    scores = [(-g["bang_score"], g["appid"]) for g in body["games"]]
    assert scores == sorted(scores)


@pytest.mark.parametrize("q", ["", "   ", "x" * 101], ids=["empty", "blank", "too-long"])
def test_search_rejects_bad_q(api: Any, q: str) -> None:
    client, _, headers = api
    response = client.get("/api/v1/search", params={"q": q}, headers=headers)
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "q"


def test_search_without_q_is_400(api: Any) -> None:
    client, _, headers = api
    assert client.get("/api/v1/search", headers=headers).status_code == 400


# -- quota, caching and headers ---------------------------------------------------------------


def test_limit_then_429_with_retry_after_and_reset(
    client_factory: ClientFactory, small_snapshot: Any
) -> None:
    clock = factories.Clock(1_795_000_000.0)  # 2026-11-18 11:06:40 UTC
    client, store = client_factory(small_snapshot[0], clock=clock)
    key = add_key(store, limit=3)
    headers = {"Authorization": f"Bearer {key}"}
    remaining = [
        client.get("/api/v1/games", headers=headers).headers["x-ratelimit-remaining"]
        for _ in range(3)
    ]
    assert remaining == ["2", "1", "0"]
    over = client.get("/api/v1/games", headers=headers)
    assert over.status_code == 429
    reset = 1_795_046_400  # next 00:00:00 UTC after the clock
    assert over.headers["retry-after"] == str(reset - 1_795_000_000)
    assert over.headers["x-ratelimit-reset"] == str(reset)
    assert over.headers["ratelimit"] == f'"daily";r=0;t={reset - 1_795_000_000}'
    assert over.headers["ratelimit-policy"] == '"daily";q=3;w=86400'
    body = over.json()
    assert body["code"] == "quota_exceeded" and body["violated-policies"] == ["daily"]
    assert set(body) <= set(PROBLEM_PROPERTIES)
    assert over.headers["cache-control"] == "no-store"
    # 429s are not counted: the used count stays at the limit.
    assert client.get("/api/v1/games", headers=headers).headers["x-ratelimit-used"] == "3"
    clock.now = reset  # a new UTC day
    again = client.get("/api/v1/games", headers=headers)
    assert again.status_code == 200 and again.headers["x-ratelimit-remaining"] == "2"


def test_etag_revalidation_is_304_and_not_counted_unless_star(api: Any) -> None:
    client, _, headers = api
    first = client.get("/api/v1/games?genre=rpg", headers=headers)
    etag = first.headers["etag"]
    assert first.headers["cache-control"] == "private, max-age=300"
    assert first.headers["x-snapshot"] == "s1"
    assert etag.startswith('"') and len(etag) == 34
    used = int(first.headers["x-ratelimit-used"])
    for match in (etag, f"W/{etag}", f'"other", {etag}'):
        again = client.get("/api/v1/games?genre=rpg", headers={**headers, "If-None-Match": match})
        assert again.status_code == 304
        assert again.content == b""
        assert again.headers["etag"] == etag
        assert int(again.headers["x-ratelimit-used"]) == used
    changed = client.get("/api/v1/games?genre=rpg", headers={**headers, "If-None-Match": '"x"'})
    assert changed.status_code == 200
    assert int(changed.headers["x-ratelimit-used"]) == used + 1
    # `*` proves nothing about the body the client holds: a 304, counted like a 200.
    star = client.get("/api/v1/games?genre=rpg", headers={**headers, "If-None-Match": "*"})
    assert (star.status_code, star.content) == (304, b"")
    assert int(star.headers["x-ratelimit-used"]) == used + 2


def test_errors_with_a_valid_key_are_counted(api: Any) -> None:
    client, _, headers = api
    used = [
        int(client.get(p, headers=headers).headers["x-ratelimit-used"])
        for p in ("/api/v1/games", "/api/v1/games?page=0", "/api/v1/games/1")
    ]
    assert used == [1, 2, 3]


def test_usage_is_free_and_reports_counts(api: Any) -> None:
    client, _, headers = api
    client.get("/api/v1/games", headers=headers)
    client.get("/api/v1/games", headers=headers)
    usage = client.get("/api/v1/usage", headers=headers)
    assert usage.status_code == 200
    body = usage.json()
    assert (body["plan"], body["limit"], body["used"], body["remaining"]) == ("free", 1000, 2, 998)
    assert len(body["days"]) == 30 and body["days"][-1]["count"] == 2
    assert client.get("/api/v1/usage", headers=headers).json()["used"] == 2


def test_every_response_has_request_id_cors_and_rate_headers(api: Any) -> None:
    client, _, headers = api
    for path, h in (
        ("/api/v1", {}),
        ("/api/v1/games", headers),
        ("/api/v1/games", {}),
        ("/nope", {}),
        ("/api/v1/games/1", headers),
    ):
        response = client.get(path, headers=h)
        assert len(response.headers["x-request-id"]) == 16
        assert response.headers["access-control-allow-origin"] == "*"
        assert "X-RateLimit-Remaining" in response.headers["access-control-expose-headers"]
        assert response.headers["x-content-type-options"] == "nosniff"
        for name in RATE_HEADERS:
            assert name in response.headers, (path, name)
        assert "server" not in response.headers


def test_other_methods_are_405_with_allow(api: Any) -> None:
    client, _, headers = api
    response = client.post("/api/v1/games", headers=headers)
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"
    assert response.json()["code"] == "method_not_allowed"


def test_cors_preflight(api: Any) -> None:
    client, _, _ = api
    response = client.options(
        "/api/v1/games",
        headers={"Origin": "https://example.org", "Access-Control-Request-Method": "GET"},
    )
    assert response.status_code == 204
    assert "Authorization" in response.headers["access-control-allow-headers"]


def test_server_fault_is_500_problem_without_trace(api: Any, monkeypatch: Any) -> None:
    client, _, headers = api
    from bangscore.shim.compose import CompactIndex

    def boom(*_: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(CompactIndex, "page", boom)
    client_no_raise = TestClient(client.app, raise_server_exceptions=False)
    with client_no_raise:
        response = client_no_raise.get("/api/v1/games?tag=rpg", headers=headers)
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "internal_error"
    assert body["request_id"] == response.headers["x-request-id"]
    assert "secret" not in response.text and "Traceback" not in response.text


def test_no_snapshot_published_is_503(client_factory: ClientFactory) -> None:
    client, store = client_factory(MemoryStorage())
    key = add_key(store)
    response = client.get("/api/v1/games", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 503
    assert response.headers["retry-after"] == "5"
    assert response.json()["code"] == "unavailable"
    assert client.get("/api/v1").status_code == 503


# -- website ----------------------------------------------------------------------------------


def test_game_page_and_slug_redirect(api: Any, small_snapshot: Any) -> None:
    client, _, _ = api
    game = small_snapshot[1][0].record
    slug = game.name.lower().replace(" ", "-")
    page = client.get(f"/game/{game.appid}/{slug}")
    assert page.status_code == 200 and game.name in page.text
    assert "Game value ratings by BangScore" in page.text
    assert 'id="drivers"' in page.text and "What drives the score" in page.text
    assert "score version" in page.text
    for wrong in (f"/game/{game.appid}/wrong-slug", f"/game/{game.appid}"):
        redirect = client.get(wrong, follow_redirects=False)
        assert redirect.status_code == 301
        assert redirect.headers["location"] == f"{SITE}/game/{game.appid}/{slug}"
    assert client.get("/game/1/x").status_code == 404


def test_corrupt_manifest_at_start_is_a_clear_503(client_factory: ClientFactory) -> None:
    from bangscore.manifest import manifest_key
    from bangscore.storage import StoredObject

    storage = MemoryStorage()
    storage.put_many([StoredObject(manifest_key("bad"), b"{truncated")])
    storage.swap_pointer("bad", None)
    client, store = client_factory(storage)
    response = client.get("/api/v1/games", headers={"Authorization": f"Bearer {add_key(store)}"})
    assert response.status_code == 503
    assert response.json()["detail"] == "The published snapshot could not be loaded; retry shortly."


# -- hardening round 2: oversized integers, headers everywhere, one URL, what failed ---------


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("/api/v1/games?page=" + "9" * 4301, "page"),
        ("/api/v1/games?page=" + "1" * 11, "page"),
        ("/api/v1/search?q=quest&page=" + "1" * 5000, "page"),
        ("/api/v1/games?year_from=" + "2" * 5000, "year_from"),
        ("/api/v1/games?year_to=" + "2" * 5000, "year_to"),
        ("/api/v1/games/" + "6" * 5000, "appid"),
        ("/api/v1/games/%C2%B2", "appid"),
    ],
    ids=["page-4301", "page-11", "search-page", "year_from", "year_to", "appid", "appid-unicode"],
)
def test_oversized_integers_are_400_naming_the_parameter(
    api: Any, path: str, parameter: str
) -> None:
    client, _, headers = api
    response = client.get(path, headers=headers)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert [e["parameter"] for e in response.json()["errors"]] == [parameter]


@pytest.mark.parametrize("appid", ["%C2%B2", "9" * 5000, "%D9%A3"], ids=["sup2", "5000", "arabic"])
def test_game_pages_take_ascii_appids_only(api: Any, appid: str) -> None:
    client, _, _ = api
    response = client.get(f"/game/{appid}/x", follow_redirects=False)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")  # a page, not JSON


def test_a_trailing_slash_is_answered_directly_never_redirected_by_host(api: Any) -> None:
    client, _, headers = api
    plain = client.get("/api/v1/games?genre=rpg", headers=headers)
    for path in ("/api/v1/games/?genre=rpg", "/api/v1/games//?genre=rpg"):
        slashed = client.get(
            path, headers={**headers, "Host": "evil.example"}, follow_redirects=False
        )
        assert slashed.status_code == 200 and "location" not in slashed.headers
        assert slashed.content == plain.content
        assert "evil.example" not in slashed.headers.get("link", "")
    assert client.get("/api/v1/", follow_redirects=False).status_code == 200


def test_uncounted_responses_carry_the_ip_allowance_too(api: Any, monkeypatch: Any) -> None:
    client, _, headers = api
    used = int(client.get("/api/v1").headers["x-ratelimit-used"])
    preflight = {"Origin": "https://example.org", "Access-Control-Request-Method": "GET"}
    answers = {
        "metrics": client.get("/metrics"),
        "cors-204": client.options("/api/v1/games", headers=preflight),
        "export-download": client.get("/export/s1/games.csv.gz?expires=1&signature=x"),
    }
    from bangscore.shim.compose import CompactIndex

    def boom(*_: Any) -> Any:
        raise RuntimeError("fault")

    monkeypatch.setattr(CompactIndex, "page", boom)
    with TestClient(client.app, raise_server_exceptions=False, base_url=SITE) as faulty:
        answers["500"] = faulty.get("/api/v1/games?tag=rpg", headers=headers)
    assert [r.status_code for r in answers.values()] == [200, 204, 404, 500]
    for name, response in answers.items():
        for header in RATE_HEADERS:
            assert header in response.headers, (name, header)
    # Not counted: the anonymous count is where the root listing left it.
    assert int(answers["metrics"].headers["x-ratelimit-used"]) == used


def test_a_deleted_object_and_a_key_store_outage_say_what_failed(
    client_factory: ClientFactory, monkeypatch: Any
) -> None:
    from bangscore.errors import StoreUnavailable
    from bangscore.manifest import object_key, read_manifest

    storage, _ = factories.publish_catalog(factories.small_catalog())
    client, store = client_factory(storage)
    headers = {"Authorization": f"Bearer {add_key(store)}"}
    sha = read_manifest(storage, "s1").entries["games/10101.json"].stored[0]
    storage.delete_many([object_key(sha)])
    missing = client.get("/api/v1/games/10101", headers=headers)
    assert missing.status_code == 503
    assert missing.json()["detail"] == (
        "A stored object of this snapshot is missing from the object store."
    )

    def down(*_: Any) -> Any:
        raise StoreUnavailable("sqlite: disk I/O error")

    monkeypatch.setattr(store.counter, "history", down)
    outage = client.get("/api/v1/usage", headers=headers)
    assert outage.status_code == 503
    assert outage.json()["detail"] == "The key store is unreachable; retry shortly."
    assert "object store" not in outage.text


def test_bodies_and_link_headers_follow_the_served_address_not_the_build_s(
    client_factory: ClientFactory,
) -> None:
    """A snapshot built for :9123 served at SITE: its bodies' addresses and its Link headers
    both say SITE (issue 56: the address is given at serve time), so they still agree."""
    built_for = "http://127.0.0.1:9123"
    storage, _ = factories.publish_catalog(factories.small_catalog(), site_url=built_for)
    client, store = client_factory(storage)  # the serving process says SITE
    response = client.get("/api/v1/games", headers={"Authorization": f"Bearer {add_key(store)}"})
    assert response.json()["games"][0]["url"].startswith(f"{SITE}/game/")
    assert response.headers["link"].startswith(f"<{SITE}/api/v1/games?page=1>")
    assert "127.0.0.1:9123" not in response.text


def test_slug_redirect_follows_the_served_origin_not_the_snapshots(
    client_factory: ClientFactory, small_snapshot: Any
) -> None:
    """A snapshot built for :8000 served elsewhere redirects to where it is served
    (docs/API.md, network edge: links follow the host and port served)."""
    storage, games = small_snapshot
    game = games[0].record
    client, _ = client_factory(storage, site_url="http://bangscore.test:9000")
    redirect = client.get(f"/game/{game.appid}/wrong-slug", follow_redirects=False)
    assert redirect.status_code == 301
    assert redirect.headers["location"].startswith(f"http://bangscore.test:9000/game/{game.appid}/")
