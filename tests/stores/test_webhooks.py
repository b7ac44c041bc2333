"""The webhook store (stores/webhooks.py) in a real SQLite file: endpoints, deliveries unique
per endpoint, event, snapshot and game, claims, backoff, the last 100 kept, and the stores
it refuses."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from bangscore.errors import StoreMissing, WatchStoreError
from bangscore.stores.webhooks import (
    KEEP_DELIVERIES,
    MAX_TRIES,
    RETRY_DELAYS,
    Delivery,
    SQLiteWebhookStore,
    open_webhook_store,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteWebhookStore]:
    """An empty store in a fresh SQLite file."""
    opened = SQLiteWebhookStore(tmp_path / "s.sqlite3")
    yield opened
    opened.close()


def delivery(endpoint: str, n: int, created: int = 0) -> Delivery:
    """Given an endpoint and a number, a pending delivery for game n of snapshot s1."""
    return Delivery(
        f"m{n}", endpoint, "price.dropped", "s1", n, b"{}", created, 0, "pending", None, None, None
    )


def test_an_endpoint_reads_back_and_its_secret_is_a_whsec(store: SQLiteWebhookStore) -> None:
    added = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (1, 2), 5)
    assert store.endpoint(added.id) == added
    assert added.secret.startswith("whsec_") and len(added.secret) == 6 + 32
    assert store.endpoints("a@x.io") == [added] and store.endpoints("b@x.io") == []


def test_the_same_event_is_enqueued_once(store: SQLiteWebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    assert store.enqueue(delivery(endpoint.id, 1))
    # Another message id for the same endpoint, event, snapshot and game adds nothing.
    assert not store.enqueue(dataclasses.replace(delivery(endpoint.id, 1), id="other"))
    assert store.enqueue(delivery(endpoint.id, 2))
    assert [d.id for d in store.due(0)] == ["m1", "m2"]


def test_a_delivery_is_retried_after_each_delay_then_failed(store: SQLiteWebhookStore) -> None:
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


def test_the_last_100_finished_deliveries_are_kept(store: SQLiteWebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    for n in range(KEEP_DELIVERIES + 20):
        store.enqueue(delivery(endpoint.id, n, created=n))
        store.finish(f"m{n}", n, 200, None)
    store.prune(endpoint.id)
    kept = store.deliveries(endpoint.id, 1000)
    assert [d.appid for d in kept] == list(range(KEEP_DELIVERIES + 19, 19, -1))


def test_removing_an_endpoint_removes_its_deliveries(store: SQLiteWebhookStore) -> None:
    endpoint = store.add_endpoint("a@x.io", "https://h.test/x", ("price.dropped",), (), 0)
    store.enqueue(delivery(endpoint.id, 1))
    store.remove_endpoint(endpoint.id)
    assert store.endpoint(endpoint.id) is None and store.deliveries(endpoint.id) == []
    with pytest.raises(WatchStoreError, match="no webhook endpoint"):
        store.remove_endpoint(endpoint.id)


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "postgres://x/y"])
def test_other_stores_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="SQLite"):
        open_webhook_store(url)


def test_a_missing_file_is_refused_unless_created(tmp_path: Path) -> None:
    with pytest.raises(StoreMissing):
        open_webhook_store(f"sqlite:///{tmp_path / 'none.sqlite3'}", create=False)
