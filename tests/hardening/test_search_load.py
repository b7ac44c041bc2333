"""One client sending the costliest searches it can construct, back to back, against a real
``bangscore serve`` (one worker): every answer stays a bounded page, and the other clients'
requests keep being answered (docs/API.md#search-limits). The latency figures of the same
attack on the real catalogue are in ``bench/search.py``'s output, not here."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import httpx
import pytest

from bangscore.scoring.records import GameRecord
from tests.hardening.conftest import ServerFactory, add_key, publish_into
from tests.support import factories
from tests.support.live import wait_for

pytestmark = [pytest.mark.server, pytest.mark.serial]  # timings: run alone
WORDS = ["the", "them", "then", "thea", "sim", "star", "war", "dark", "a", "of", "souls", "quest"]
WORST = [
    " ".join(f"the{c}" for c in "abcdefghijklmnopqrst"),
    " ".join("abcdefghijklmnopqrstuvwxyz"),
    "thee thea theo thei",
    "a",
    "t",
    "sima simb simc simd sime simf simg simh",
]
MAX_BODY = 100_000


def catalogue(count: int) -> list[GameRecord]:
    """``count`` games whose names share short words, so broad queries match most of them."""
    return [
        factories.make_record(
            appid=10_000 + n,
            name=f"{WORDS[n % 12].title()} {WORDS[(n // 12) % 12]}{n % 9} {n}",
            review_count=500 + n,
        )
        for n in range(count)
    ]


def test_worst_queries_answer_bounded_pages_and_others_keep_being_served(
    server_factory: ServerFactory, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    publish_into(state, catalogue(1_500), "s1")
    key = add_key(state)
    server = server_factory(state, env={"BANGSCORE_PAGE_DAILY_LIMIT": "1000000"})
    auth = {"Authorization": f"Bearer {key}"}
    stop = threading.Event()
    answers: list[tuple[str, int, int, int]] = []  # (where, status, bytes, games)

    def attack() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for n in itertools.count():
                if stop.is_set():
                    return
                # Case changes defeat the answer caches; search folds them to the same work.
                query = WORST[n % len(WORST)]
                query = query.upper() if (n // len(WORST)) % 2 else query
                api = client.get(
                    "/api/v1/search", params={"q": query, "page": n % 3 + 1}, headers=auth
                )
                answers.append(("api", api.status_code, len(api.content), len(api.json()["games"])))
                site = client.get("/search", params={"q": f"{query} "[: 1 + len(query) + n % 2]})
                answers.append(("site", site.status_code, len(site.content), 0))

    attacker = threading.Thread(target=attack)
    attacker.start()
    try:
        wait_for(lambda: len(answers) >= 4, 60, "attacking")
        with httpx.Client(base_url=server.url, timeout=10) as client:
            for n in range(200):
                appid = 10_000 + n
                detail = client.get(f"/api/v1/games/{appid}", headers=auth)
                assert detail.status_code == 200 and detail.json()["appid"] == appid
                listed = client.get("/api/v1/games", params={"page": n % 5 + 1}, headers=auth)
                assert listed.status_code == 200
        wait_for(lambda: len(answers) >= 2 * len(WORST) * 2, 120, "through every worst query")
    finally:
        stop.set()
        attacker.join()
    assert {status for _, status, _, _ in answers} == {200}
    assert max(size for _, _, size, _ in answers) < MAX_BODY
    assert max(games for _, _, _, games in answers) <= 10
