"""The webhook store on both backends (stores/webhooks.py in a real SQLite file,
stores/redis_webhooks.py on a real redis-server): endpoints, deliveries unique per endpoint,
event, snapshot and game, claims, backoff, the last 100 kept, disabling, and the stores it
refuses."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from bangscore.errors import StoreMissing, WatchStoreError
from bangscore.stores import open_webhook_store
from bangscore.stores.redis_webhooks import RedisWebhookStore
from bangscore.stores.webhooks import (
    DISABLE_AFTER_SECONDS,
    KEEP_DELIVERIES,
    MAX_TRIES,
    RETRY_DELAYS,
    Delivery,
    WebhookStore,
)


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[WebhookStore]:
    """An empty store: in a fresh SQLite file, or on the session's real Redis (emptied)."""
    url = (
        f"sqlite:///{tmp_path / 's.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("redis_url")
    )
    opened = open_webhook_store(url)
    yield opened
    opened.close()


def delivery(endpoint: str, n: int, created: int = 0) -> Delivery:
    """Given an endpoint and a number, a pending delivery for game n of snapshot s1."""
    return Delivery(
        f"m{n}", endpoint, "price.dropped", "s1", n, b"{}", created, 0, "pending", None, None, None
    )


def test_an_endpoint_reads_back_and_its_secret_is_a_whsec(store: WebhookStore) -> None:
    added = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (1, 2), 5)
    assert store.endpoint(added.id) == added
    assert added.secret.startswith("whsec_") and len(added.secret) == 6 + 32
    assert store.endpoints("a@x.io") == [added] and store.endpoints("b@x.io") == []


def test_the_same_event_is_enqueued_once(store: WebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    assert store.enqueue(delivery(endpoint.id, 1))
    # Another message id for the same endpoint, event, snapshot and game adds nothing.
    assert not store.enqueue(dataclasses.replace(delivery(endpoint.id, 1), id="other"))
    assert store.enqueue(delivery(endpoint.id, 2))
    assert [d.id for d in store.due(0)] == ["m1", "m2"]


def test_a_delivery_is_retried_after_each_delay_then_failed(store: WebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    store.enqueue(delivery(endpoint.id, 1))
    now = 0
    for n, delay in enumerate(RETRY_DELAYS, start=1):
        assert store.claim("m1", now, 60)
        done = store.finish("m1", now, 500, "answered 500")
        assert (done.state, done.tries) == ("pending", n)
        assert store.due(now + delay - 1) == []
        now += delay
        assert [d.id for d in store.due(now)] == ["m1"]
    assert store.claim("m1", now, 60)
    done = store.finish("m1", now, 500, "answered 500")
    assert (done.state, done.tries, done.done_at) == ("failed", MAX_TRIES, now)
    assert store.due(now + 10**9) == []


def test_the_last_100_finished_deliveries_are_kept(store: WebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    for n in range(KEEP_DELIVERIES + 20):
        store.enqueue(delivery(endpoint.id, n, created=n))
        store.finish(f"m{n}", n, 200, None)
    store.prune(endpoint.id)
    kept = store.deliveries(endpoint.id, 1000)
    assert [d.appid for d in kept] == list(range(KEEP_DELIVERIES + 19, 19, -1))


def test_removing_an_endpoint_removes_its_deliveries(store: WebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    store.enqueue(delivery(endpoint.id, 1))
    store.remove_endpoint(endpoint.id)
    assert store.endpoint(endpoint.id) is None and store.deliveries(endpoint.id) == []
    with pytest.raises(WatchStoreError, match="no webhook endpoint"):
        store.remove_endpoint(endpoint.id)


def test_a_claim_is_held_until_it_lapses_and_ends_with_the_try(store: WebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    store.enqueue(delivery(endpoint.id, 1))
    assert store.claim("m1", 10, 60)
    assert not store.claim("m1", 69, 60)  # another run, while the claim lasts
    assert store.due(69) == []  # nor is it due meanwhile
    assert store.claim("m1", 70, 60)  # a killed run's claim lapsed
    done = store.finish("m1", 75, 204, None)
    assert (done.state, done.tries, done.last_status, done.done_at) == ("delivered", 1, 204, 75)
    assert not store.claim("m1", 10**9, 60)  # delivered: never again
    assert store.due(10**9) == []


def test_three_days_of_failures_disable_an_endpoint_once(store: WebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    assert store.failed(endpoint.id, 100) is None
    store.succeeded(endpoint.id)  # a success starts the count again
    assert store.failed(endpoint.id, 1000) is None
    assert store.failed(endpoint.id, 1000 + DISABLE_AFTER_SECONDS - 1) is None
    cut = store.failed(endpoint.id, 1000 + DISABLE_AFTER_SECONDS)
    assert cut is not None and cut.disabled_at == 1000 + DISABLE_AFTER_SECONDS
    assert store.failed(endpoint.id, 2 * DISABLE_AFTER_SECONDS) is None  # told once
    store.enqueue(delivery(endpoint.id, 1))
    assert store.due(10**9) == []  # a disabled endpoint gets nothing
    store.succeeded("wh_gone")  # a removed endpoint is not brought back
    assert store.endpoint("wh_gone") is None


def test_endpoints_are_listed_per_owner_oldest_first(store: WebhookStore) -> None:
    second = store.add_endpoint("a@x.io", "https://h.test/2", ("tier.changed",), (620,), 9)
    first = store.add_endpoint("a@x.io", "https://h.test/1", ("price.dropped",), (), 5)
    other = store.add_endpoint("b@x.io", "https://h.test/3", ("verdict.changed",), (), 7)
    assert store.endpoints("a@x.io") == [first, second]
    assert store.endpoints() == [first, other, second]


@pytest.mark.parametrize("url", ["postgres://x/y", "memory://"], ids=["postgres", "memory"])
def test_other_stores_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="unsupported store"):
        open_webhook_store(url)


def test_a_redis_url_opens_the_redis_store(redis_url: str) -> None:
    opened = open_webhook_store(redis_url)
    assert isinstance(opened, RedisWebhookStore)
    opened.close()


def test_a_missing_file_is_refused_unless_created(tmp_path: Path) -> None:
    with pytest.raises(StoreMissing):
        open_webhook_store(f"sqlite:///{tmp_path / 'none.sqlite3'}", create=False)
