"""The edge's fast path answers exactly as the full route does, and never over-counts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.shim import api
from bangscore.shim.lru import AnswerBudgets
from bangscore.shim.memo import Rejected
from bangscore.stores import Stores
from tests.support.factories import Clock, add_key

ClientFactory = Callable[..., tuple[TestClient, Stores]]
PATHS = [
    "/api/v1/games?genre=rpg",
    "/api/v1/games?tag=co-op&year_from=2012",
    "/api/v1/games/10001",
    "/api/v1/search?q=quest",
]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each request that takes the full route (:func:`bangscore.shim.api.keyed`)."""
    calls: list[str] = []
    original = api.keyed

    async def spy(request: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(request.url.path)
        return await original(request, *args, **kwargs)

    monkeypatch.setattr(api, "keyed", spy)
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


def test_fast_path_304_is_free_and_answers_429_itself(
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
    assert counted == ["/api/v1/games"]  # only the first: the same policy answers the rest


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


def test_fast_and_full_route_give_the_same_bytes_for_304_and_429(
    client_factory: ClientFactory, small_snapshot: Any, counted: list[str]
) -> None:
    # A still clock: the headers carry seconds to the quota's reset (RateLimit, Retry-After),
    # which would differ between the two answers of a pair that straddled a second.
    client, store = client_factory(small_snapshot[0], clock=Clock(time.time()))
    memo = client.app.state.source.current.memo  # type: ignore[attr-defined]
    spent = {"Authorization": f"Bearer {add_key(store, limit=2)}"}
    other = {"Authorization": f"Bearer {add_key(store)}"}
    path = "/api/v1/games?genre=rpg"
    etag = client.get(path, headers=spent).headers["etag"]

    def pair(headers: dict[str, str]) -> tuple[Any, Any]:
        """Return the same request answered by the full route, then by the fast path."""
        memo.entries.clear()
        before = len(counted)
        full = client.get(path, headers=headers)
        assert len(counted) == before + 1  # nothing remembered: the full route
        client.get(path, headers=other)  # the answer is remembered (again)
        before = len(counted)
        fast = client.get(path, headers=headers)
        assert len(counted) == before  # the fast path
        return full, fast

    for headers, status in (({**spent, "If-None-Match": etag}, 304), (spent, 429)):
        if status == 429:
            assert client.get(path, headers=spent).status_code == 200  # the last one allowed
        full, fast = pair(headers)
        assert full.status_code == fast.status_code == status
        ids = (full.headers["x-request-id"], fast.headers["x-request-id"])
        assert fast.content == full.content.replace(ids[0].encode(), ids[1].encode())
        assert list(fast.headers.items()) == [
            (k, ids[1] if v == ids[0] else v) for k, v in full.headers.items()
        ]


def test_spellings_of_one_query_share_one_answer_and_a_400_keeps_no_exception(
    client_factory: ClientFactory, small_snapshot: Any, counted: list[str]
) -> None:
    client, store = client_factory(small_snapshot[0])
    headers = {"Authorization": f"Bearer {add_key(store)}"}
    spellings = [
        "/api/v1/games?tag=co-op&year_from=2012",
        "/api/v1/games?year_from=02012&tag=CO-OP",
        "/api/v1/games?tag=co-op&year_from=2012&page=1",
    ]
    bodies = {client.get(path, headers=headers).content for path in spellings}
    assert len(bodies) == 1
    snap = client.app.state.source.current  # type: ignore[attr-defined]
    kept = list(snap.memo.entries._data)
    readings = [key for kind, key in kept if kind == "read"]
    spelled = [key for kind, key in kept if kind == "spelled"]
    assert len(readings) == 1 and len(spelled) == 3
    assert all(snap.remembered(spelling) is not None for spelling in spelled)
    # Each spelling now takes the fast path: the route ran once per spelling, never again.
    for path in spellings:
        assert client.get(path, headers=headers).content in bodies
    assert len(counted) == 3
    refused = client.get("/api/v1/games?colour=red", headers=headers)
    again = client.get("/api/v1/games?colour=red", headers=headers)
    assert refused.status_code == again.status_code == 400
    assert again.json()["errors"] == refused.json()["errors"]
    kept = snap.remembered(("/api/v1/games", b"colour=red"))
    assert isinstance(kept, Rejected) and kept.errors[0].parameter == "colour"
    assert not any(isinstance(v, BaseException) for v in snap.memo.entries._data.values())


def test_remembered_answers_stay_within_their_byte_budgets(
    client_factory: ClientFactory, small_snapshot: Any
) -> None:
    budgets = AnswerBudgets(1 << 20)  # 768 KiB of answers and their spellings
    client, store = client_factory(small_snapshot[0], budgets=budgets)
    headers = {"Authorization": f"Bearer {add_key(store)}"}
    snap = client.app.state.source.current  # type: ignore[attr-defined]
    for i in range(300):
        client.get(f"/api/v1/games?genre=rpg&page={i + 1}", headers=headers)
        client.get(f"/api/v1/games?{'x' * 2000}{i}=1", headers=headers)
    assert budgets.answers // 2 < snap.memo.size <= budgets.answers
    readings = [key for kind, key in snap.memo.entries._data if kind == "read"]
    assert len(readings) < 300  # the oldest pages went: the budget, not a count, bounds
