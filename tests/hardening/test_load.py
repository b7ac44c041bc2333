"""A bounded soak against the real server (2 uvicorn workers): concurrent clients across several
keys, each key driven past its limit. Counting must stay exact and every header honest."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

import httpx
import pytest

from tests.hardening.conftest import SharedServer

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # real servers; timings: run alone

LIMITS = (40, 75, 110, 150)
OVERDRIVE = 45  # requests per key beyond its limit
CLIENTS_PER_KEY = 4
REVALIDATE_EVERY = 7  # every 7th request revalidates with If-None-Match (304, not counted)
PATHS = (
    "/api/v1/games",
    "/api/v1/games?genre=rpg,shooter&tag=co-op&year_from=2010&year_to=2030",
    "/api/v1/games/10000",
    "/api/v1/search?q=quest",
)
TIMEOUT_SECONDS = 60.0


@dataclass(frozen=True)
class Answer:
    """One response of the soak: which key and client sent it, in what order, and its headers."""

    key: int
    client: int
    order: int
    status: int
    headers: httpx.Headers


async def _client(
    http: httpx.AsyncClient,
    key_index: int,
    client: int,
    key: str,
    budget: list[int],
    etags: dict[str, str],
    answers: list[Answer],
) -> None:
    auth = {"Authorization": f"Bearer {key}"}
    order = 0
    while budget[key_index] > 0:
        budget[key_index] -= 1
        path = PATHS[(order + client) % len(PATHS)]
        headers = dict(auth)
        if order % REVALIDATE_EVERY == REVALIDATE_EVERY - 1 and path in etags:
            headers["If-None-Match"] = etags[path]
        response = await http.get(path, headers=headers)
        answers.append(Answer(key_index, client, order, response.status_code, response.headers))
        order += 1


async def _soak(url: str, keys: list[str], etags: dict[str, str]) -> list[Answer]:
    answers: list[Answer] = []
    budget = [limit + OVERDRIVE for limit in LIMITS]
    limits = httpx.Limits(max_connections=len(keys) * CLIENTS_PER_KEY)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=10.0) as http:
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    _client(http, k, c, keys[k], budget, etags, answers)
                    for k in range(len(keys))
                    for c in range(CLIENTS_PER_KEY)
                )
            ),
            TIMEOUT_SECONDS,
        )
    return answers


def _draft(header: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r";(\w)=(\d+)", header)}


def test_soak_counts_exactly_with_honest_headers(shared_server: SharedServer) -> None:
    keys = [shared_server.key(plan="bulk", limit=limit) for limit in LIMITS]
    probe = shared_server.key()
    with httpx.Client(base_url=shared_server.server.url) as http:
        etags = {
            p: http.get(p, headers={"Authorization": f"Bearer {probe}"}).headers["etag"]
            for p in PATHS
        }
    answers = asyncio.run(_soak(shared_server.server.url, keys, etags))

    for index, limit in enumerate(LIMITS):
        mine = [a for a in answers if a.key == index]
        assert len(mine) == limit + OVERDRIVE
        assert {a.status for a in mine} <= {200, 304, 429}
        ok = [a for a in mine if a.status == 200]
        # Exactly the limit of 200s, each count handed out once: 1, 2, ..., limit.
        assert sorted(int(a.headers["x-ratelimit-used"]) for a in ok) == list(range(1, limit + 1))
        for a in mine:
            used = int(a.headers["x-ratelimit-used"])
            remaining = int(a.headers["x-ratelimit-remaining"])
            assert int(a.headers["x-ratelimit-limit"]) == limit
            assert remaining == limit - used
            assert _draft(a.headers["ratelimit"])["r"] == remaining
            assert _draft(a.headers["ratelimit-policy"])["q"] == limit
            if a.status == 429:
                assert used == limit and remaining == 0
                assert int(a.headers["retry-after"]) == _draft(a.headers["ratelimit"])["t"] > 0
        # Each client sends one request at a time: the counts it sees never go down, and its
        # own 200s see strictly rising counts.
        for client in range(CLIENTS_PER_KEY):
            seen = sorted((a for a in mine if a.client == client), key=lambda a: a.order)
            counts = [int(a.headers["x-ratelimit-used"]) for a in seen]
            assert counts == sorted(counts)
            counted = [int(a.headers["x-ratelimit-used"]) for a in seen if a.status == 200]
            assert len(set(counted)) == len(counted)
    assert sum(1 for a in answers if a.status == 304) > 0
