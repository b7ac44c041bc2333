"""``GET /api/v1/lookup`` (docs/API.md#lookup) in-process over the small catalogue: the route
(shim/routes.py), its parameter check (shim/params.py) and its composition from the compact
index (shim/compose.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.contract.records import Lookup
from bangscore.manifest import gzip_body
from bangscore.scoring.pipeline import ScoredGame
from bangscore.shim import answer
from bangscore.storage import ObjectStorage
from bangscore.stores import Stores
from tests.support.factories import add_key

ClientFactory = Callable[..., tuple[TestClient, Stores]]


@pytest.fixture
def api(
    client_factory: ClientFactory, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> tuple[TestClient, dict[str, str], list[int]]:
    """A client over the small catalogue, auth headers of a free key, the rated appids in
    list order."""
    client, store = client_factory(small_snapshot[0])
    key = add_key(store)
    return client, {"Authorization": f"Bearer {key}"}, [g.record.appid for g in small_snapshot[1]]


def _used(response: Any) -> int:
    return int(response.headers["x-ratelimit-used"])


def test_every_appid_is_answered_once_in_the_order_asked(api: Any) -> None:
    client, auth, rated = api
    asked = [rated[5], 80, 999_999_999, rated[0], rated[5], 77, rated[3], 81]
    response = client.get(
        "/api/v1/lookup", params={"appids": ",".join(map(str, asked))}, headers=auth
    )
    assert response.status_code == 200
    body = response.json()
    Lookup.model_validate(body)
    assert [g["appid"] for g in body["games"]] == [rated[5], rated[0], rated[3]]
    assert body["not_rated"] == [
        {"appid": 80, "reason": "not_a_game", "superseded_by": None},
        {"appid": 77, "reason": "too_few_reviews", "superseded_by": None},
        {"appid": 81, "reason": "superseded", "superseded_by": 10_000},
    ]
    assert body["not_found"] == [999_999_999]
    assert body["prices_as_of"] == "2026-07-24T14:13:40Z"
    # The same list items the list endpoint serves, verdict included.
    listed = client.get("/api/v1/games", headers=auth).json()["games"]
    assert body["games"][1] == listed[0]
    assert {"verdict", "verdict_price_usd", "price_observed_at"} <= set(listed[0])


def test_a_hundred_appids_are_one_counted_request_with_a_strong_etag(api: Any) -> None:
    client, auth, rated = api
    asked = (rated * 3)[:100]
    query = {"appids": ", ".join(str(a) for a in asked)}
    first = client.get("/api/v1/lookup", params=query, headers=auth)
    assert first.status_code == 200
    assert len(first.json()["games"]) == len(set(asked)) == len(rated)
    assert _used(first) == 1
    etag = first.headers["etag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    again = client.get("/api/v1/lookup", params=query, headers={**auth, "If-None-Match": etag})
    assert again.status_code == 304
    after = client.get("/api/v1/usage", headers=auth).json()
    assert after["used"] == 1  # the 304 was not counted


@pytest.mark.parametrize(
    ("query", "message"),
    [
        pytest.param(
            "appids=" + ",".join(["620"] * 101), "at most 100 appids, given 101", id="101"
        ),
        pytest.param("", "required", id="missing"),
        pytest.param("appids=", "decimal digits; item 1 is empty", id="empty"),
        pytest.param("appids=620,,10", "decimal digits; item 2 is empty", id="empty item"),
        pytest.param("appids=620,x", "item 2 is 'x', not decimal digits", id="not digits"),
        pytest.param("appids=-620", "item 1 is '-620', not decimal digits", id="signed"),
        pytest.param("appids=1234567890123", "item 1 has 13 digits", id="13 digits"),
        pytest.param(
            "appids=1,2,%E2%91%A0%3Cb%3E", r"item 3 is '\u2460<b>', not", id="echo-escaped"
        ),
        pytest.param("appids=620&appids=10", "more than once", id="repeated"),
    ],
)
def test_a_bad_appids_is_a_400_naming_it_once(api: Any, query: str, message: str) -> None:
    client, auth, _ = api
    response = client.get(f"/api/v1/lookup?{query}", headers=auth)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_parameter"
    assert [e["parameter"] for e in body["errors"]] == ["appids"]
    assert message in body["errors"][0]["message"]


def test_a_repeated_unknown_parameter_is_named_once(api: Any) -> None:
    client, auth, rated = api
    response = client.get(f"/api/v1/lookup?appids={rated[0]}&x=1&x=2&x=3", headers=auth)
    assert response.status_code == 400
    body = response.json()
    assert [e["parameter"] for e in body["errors"]] == ["x"]
    assert body["detail"].count("x:") == 1


@pytest.mark.parametrize("gzip_ok", [True, False], ids=["gzip", "identity"])
def test_a_lookup_304_compresses_nothing(
    api: Any, monkeypatch: pytest.MonkeyPatch, gzip_ok: bool
) -> None:
    client, auth, rated = api
    headers = {**auth, "Accept-Encoding": "gzip" if gzip_ok else "identity"}
    path = "/api/v1/lookup?appids=" + ",".join(map(str, rated))
    first = client.get(path, headers=headers)
    assert first.headers.get("content-encoding") == ("gzip" if gzip_ok else None)
    etag = first.headers["etag"]
    compressed: list[int] = []

    def spy(body: bytes) -> bytes:
        compressed.append(len(body))
        return gzip_body(body)

    monkeypatch.setattr(answer, "gzip_body", spy)
    again = client.get(path, headers={**headers, "If-None-Match": etag})
    assert (again.status_code, again.headers["etag"], again.headers["vary"]) == (
        304, etag, "Accept-Encoding"
    )  # fmt: skip
    assert compressed == []
    # The gzip tag is derived from the identity's, never the digest of compressed bytes.
    identity = client.get(path, headers={**auth, "Accept-Encoding": "identity"})
    packed = client.get(path, headers={**auth, "Accept-Encoding": "gzip"})
    assert packed.headers["etag"] == answer.gzip_etag_of(identity.headers["etag"])
    assert packed.headers["etag"] != identity.headers["etag"]


@pytest.mark.parametrize(
    ("accept", "compressions"),
    [("gzip", 1), ("identity", 0), (None, 0)],
    ids=["gzip", "identity", "no-accept-encoding"],
)
def test_a_lookup_200_is_compressed_only_for_a_client_that_takes_gzip(
    api: Any, monkeypatch: pytest.MonkeyPatch, accept: str | None, compressions: int
) -> None:
    client, auth, rated = api
    compressed: list[int] = []

    def spy(body: bytes) -> bytes:
        compressed.append(len(body))
        return gzip_body(body)

    monkeypatch.setattr(answer, "gzip_body", spy)
    headers = {**auth, "Accept-Encoding": accept} if accept else auth
    request = client.build_request("GET", "/api/v1/lookup?appids=" + ",".join(map(str, rated)))
    request.headers.update(headers)
    if accept is None:  # httpx sends "gzip, deflate" unless told otherwise
        del request.headers["accept-encoding"]
    response = client.send(request)
    assert response.status_code == 200
    assert response.headers.get("content-encoding") == ("gzip" if compressions else None)
    assert len(compressed) == compressions
    assert Lookup.model_validate(response.json()).games
