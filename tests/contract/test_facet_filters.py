"""bangscore/contract/facet_filters.py: the platform facets' list filters
(docs/API.md#platform-facets): refused values are a 400 naming the parameter, the OpenAPI
document states their vocabularies, the client sends them, and over the real catalogue each
answers exactly the games a count over the raw PICS record joined to our scores finds, best
first."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.build.openapi import openapi_document
from bangscore.client_core import list_query
from bangscore.contract.compact import cents
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import ObjectStorage
from bangscore.stores import Stores
from tests.support import factories
from tests.support.factories import SITE
from tests.support.pics_raw import RawFacets, read_raw_facets

Clients = Callable[..., tuple[TestClient, Stores]]


def _answer(client: TestClient, store: Stores, query: str) -> Any:
    key = factories.add_key(store, limit=10_000)
    return client.get(f"/api/v1/games?{query}", headers={"Authorization": f"Bearer {key}"})


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        pytest.param("steam_deck=great", "steam_deck", id="deck-unknown"),
        pytest.param("steam_deck=verified,", "steam_deck", id="deck-trailing-comma"),
        pytest.param("controller=none", "controller", id="controller-none"),
        pytest.param("language=xx", "language", id="language-unknown"),
        pytest.param("language=german", "language", id="language-storefront-name"),
        pytest.param("audio=de,fr", "audio", id="audio-two"),
        pytest.param("min_reviews=-1", "min_reviews", id="min-reviews-negative"),
        pytest.param("min_reviews=10000001", "min_reviews", id="min-reviews-past-max"),
    ],
)
def test_an_unknown_value_is_a_400_naming_the_parameter(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
    client_factory: Clients,
    query: str,
    parameter: str,
) -> None:
    client, store = client_factory(small_snapshot[0])
    answer = _answer(client, store, query)
    assert answer.status_code == 400
    problem = answer.json()
    assert problem["code"] == "invalid_parameter"
    assert [e["parameter"] for e in problem["errors"]] == [parameter]


def test_the_small_catalogue_answers_a_facet_query_best_first(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]], client_factory: Clients
) -> None:
    client, store = client_factory(small_snapshot[0])
    body = _answer(client, store, "steam_deck=Verified,playable&controller=full").json()
    by_appid = {g.record.appid: g.record for g in small_snapshot[1]}
    expected = [
        r
        for r in by_appid.values()
        if r.steam_deck in ("verified", "playable") and r.controller_support == "full"
    ]
    assert body["total"] == len(expected) > 0
    assert all(g["steam_deck"] in ("verified", "playable") for g in body["games"])
    assert all(g["controller_support"] == "full" for g in body["games"])
    scores = [g["bang_score"] for g in body["games"]]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        pytest.param("steam_deck", ["verified", "Playable, unsupported"], ["great", ""], id="deck"),
        pytest.param("controller", ["full", "FULL,partial"], ["none", "full,"], id="controller"),
        pytest.param("language", ["de", "zh-Hans", "PT-br"], ["xx", "de,fr"], id="language"),
        pytest.param("audio", ["ja", "es-419"], ["japanese"], id="audio"),
    ],
)
def test_the_openapi_document_states_each_vocabulary(
    name: str, good: list[str], bad: list[str]
) -> None:
    parameters = openapi_document(SITE, SITE)["paths"]["/api/v1/games"]["get"]["parameters"]
    (parameter,) = [p for p in parameters if p["name"] == name]
    pattern = re.compile(parameter["schema"]["pattern"])
    assert all(pattern.search(value) for value in good)
    assert not any(pattern.search(value) for value in bad)


def test_min_reviews_is_an_integer_parameter_with_its_bounds() -> None:
    parameters = openapi_document(SITE, SITE)["paths"]["/api/v1/games"]["get"]["parameters"]
    (parameter,) = [p for p in parameters if p["name"] == "min_reviews"]
    assert parameter["schema"] == {"type": "integer", "minimum": 0, "maximum": 10_000_000}


def test_the_client_sends_the_facet_keywords() -> None:
    chosen = {"steam_deck": ["verified", "playable"], "controller": "full", "language": "de"}
    query = list_query({**chosen, "min_reviews": 0}, 1)
    assert query["steam_deck"] == "verified,playable"
    assert query["controller"] == "full"
    assert query["language"] == "de"
    assert query["min_reviews"] == "0"
    assert "audio" not in query


# -- the real catalogue against the raw PICS record ---------------------------------------------


@pytest.fixture(scope="module")
def raw_facets() -> dict[int, RawFacets]:
    """Every PICS app's facets, read from data/raw (not through ingest)."""
    return read_raw_facets()


def _written(raw: RawFacets | None) -> set[str]:
    languages = raw.languages if raw else ()
    return {lang["code"] for lang in languages if lang["interface"] or lang["subtitles"]}


def _spoken(raw: RawFacets | None) -> set[str]:
    return {lang["code"] for lang in (raw.languages if raw else ()) if lang["audio"]}


# Each query with the raw data's verdict on one of our games: (its record, its raw facets).
CASES: list[Any] = [
    pytest.param(
        "steam_deck=verified&max_price=10",
        lambda rec, raw: (
            raw is not None and raw.steam_deck == "verified" and cents(rec.price_usd) <= 1000
        ),
        id="deck-verified-under-10",
    ),
    pytest.param(
        "language=de&audio=de",
        lambda rec, raw: "de" in _written(raw) and "de" in _spoken(raw),
        id="german-audio",
    ),
    pytest.param(
        "controller=full", lambda rec, raw: raw is not None and raw.controller == "full", id="pad"
    ),
    pytest.param("min_reviews=10000", lambda rec, raw: rec.review_count >= 10_000, id="reviews"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("query", "keeps"), CASES)
def test_each_facet_query_totals_the_raw_count_joined_to_our_scores(
    real_snapshot: tuple[ObjectStorage, list[ScoredGame]],
    raw_facets: dict[int, RawFacets],
    client_factory: Clients,
    query: str,
    keeps: Callable[[Any, RawFacets | None], bool],
) -> None:
    games = real_snapshot[1]
    expected = [g for g in games if keeps(g.record, raw_facets.get(g.record.appid))]
    client, store = client_factory(real_snapshot[0])
    body = _answer(client, store, query).json()
    assert body["total"] == len(expected) > 100
    # Best first: the first page is the raw count's ten best, in list order.
    assert [g["appid"] for g in body["games"]] == [g.record.appid for g in expected[:10]]
    last = _answer(client, store, f"{query}&page={body['pages']}").json()
    assert [g["appid"] for g in last["games"]] == [
        g.record.appid for g in expected[(body["pages"] - 1) * 10 :]
    ]
