"""The edge's fast path answers exactly as the full route does, and never over-counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.shim.handlers import Shim
from bangscore.shim.sqlite_store import SQLiteKeyStore
from tests.factories import add_key

ClientFactory = Callable[..., tuple[TestClient, SQLiteKeyStore]]
PATHS = [
    "/api/v1/games?genre=rpg",
    "/api/v1/games?tag=co-op&year_from=2012",
    "/api/v1/games/10001",
    "/api/v1/search?q=quest",
]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each request that takes the full route (Shim.keyed)."""
    calls: list[str] = []
    original = Shim.keyed

    async def spy(self: Shim, request: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(request.url.path)
        return await original(self, request, *args, **kwargs)

    monkeypatch.setattr(Shim, "keyed", spy)
    return calls


@pytest.mark.parametrize("path", PATHS, ids=["precomputed", "composed", "detail", "search"])
def test_repeat_answers_take_the_fast_path_with_the_same_bytes_and_headers(
    client_factory: ClientFactory, small_snapshot: Any, counted: list[str], path: str
) -> None:
    client, store = client_factory(small_snapshot[0])
    headers = {"Authorization": f"Bearer {add_key(store)}"}
    first = client.get(path, headers=headers)
    second = client.get(path, headers=headers)
    assert len(counted) == 1  # only the first went through the route
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    volatile = {"x-request-id", "x-ratelimit-remaining", "x-ratelimit-used", "ratelimit", "date"}
    assert {k: v for k, v in second.headers.items() if k not in volatile} == {
        k: v for k, v in first.headers.items() if k not in volatile
    }
    assert (first.headers["x-ratelimit-used"], second.headers["x-ratelimit-used"]) == ("1", "2")
    assert second.headers["x-request-id"] != first.headers["x-request-id"]


def test_fast_path_304_is_free_and_429_falls_back(
    client_factory: ClientFactory, small_snapshot: Any, counted: list[str]
) -> None:
    client, store = client_factory(small_snapshot[0])
    headers = {"Authorization": f"Bearer {add_key(store, limit=2)}"}
    etag = client.get("/api/v1/games", headers=headers).headers["etag"]
    again = client.get("/api/v1/games", headers={**headers, "If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["x-ratelimit-used"] == "1" and again.headers["etag"] == etag
    assert "content-type" not in again.headers
    assert client.get("/api/v1/games", headers=headers).status_code == 200
    over = client.get("/api/v1/games", headers=headers)
    assert over.status_code == 429 and over.json()["code"] == "quota_exceeded"
    assert over.headers["x-ratelimit-used"] == "2"
    assert counted == ["/api/v1/games", "/api/v1/games"]  # the first and the 429


def test_query_keys_and_bad_keys_take_the_full_route(
    client_factory: ClientFactory, small_snapshot: Any, counted: list[str]
) -> None:
    client, store = client_factory(small_snapshot[0])
    key = add_key(store)
    client.get("/api/v1/games", headers={"Authorization": f"Bearer {key}"})
    assert client.get(f"/api/v1/games?api_key={key}").status_code == 200
    bad = client.get("/api/v1/games", headers={"Authorization": "Bearer bsk_nope"})
    assert bad.status_code == 401
    assert len(counted) == 3
