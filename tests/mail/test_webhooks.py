"""Webhook delivery (mail/webhooks.py) to a real receiver on loopback, each request verified
by the ``standardwebhooks`` package as a customer's receiver verifies it: once per change and
event, retried after failures (the fourth try of a receiver failing three times), claimed
before it is sent, an endpoint failing for 3 days disabled and its owner told, and the
Discord and Slack bodies; over both store backends (SQLite and a real redis-server)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from standardwebhooks.webhooks import Webhook

from bangscore.build.push_state import PushState, advance
from bangscore.mail.webhooks import (
    body_for,
    deliver,
    disabled_message,
    enqueue,
    event_types,
    service,
    sign,
)
from bangscore.stores import open_webhook_store
from bangscore.stores.webhooks import RETRY_DELAYS, Endpoint, WebhookStore
from tests.support.receiver import Received, receiver

T0 = dt.datetime(2026, 12, 1, 3, 15, tzinfo=dt.UTC)


def item(appid: int, **fields: Any) -> dict[str, Any]:
    """A list item's compared fields and name."""
    return {
        "appid": appid,
        "name": f"Game {appid}",
        "bang_score": 60,
        "tier": "fair",
        "verdict": "skip",
        "price_usd": 19.99,
        "verdict_price_usd": None,
        "next_sale_starts": None,
        "genre": "rpg",
        **fields,
    }


def two_steps() -> PushState:
    """A push state whose last step changes game 1's price down and verdict, game 2's tier,
    game 3's price up, and game 9 (watched by nobody) down."""
    first = advance(
        None, [item(1), item(2), item(3), item(9)], snapshot_id="s1", created_at=T0, as_of=T0.date()
    )
    after = [
        item(1, price_usd=4.99, verdict="buy_now"),
        item(2, tier="worth_it", bang_score=70),
        item(3, price_usd=24.99),
        item(9, price_usd=1.99),
    ]
    return advance(
        first, after, snapshot_id="s2", created_at=T0 + dt.timedelta(days=1), as_of=T0.date()
    )


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[WebhookStore]:
    """An empty webhook store: in a fresh SQLite file, or on the session's real Redis
    (emptied)."""
    url = (
        f"sqlite:///{tmp_path / 'store.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("redis_url")
    )
    opened = open_webhook_store(url)
    yield opened
    opened.close()


def verified(endpoint: Endpoint, request: Received) -> Any:
    """Given an endpoint and a request it received, return the payload standardwebhooks
    verified (it raises on a bad signature or a stale timestamp)."""
    return Webhook(endpoint.secret).verify(request.body, request.headers)


@pytest.mark.parametrize(
    ("fields", "events"),
    [
        pytest.param({"price_usd": [9.99, 4.99]}, ["price.dropped"], id="price-down"),
        pytest.param({"price_usd": [4.99, 9.99]}, [], id="price-up"),
        pytest.param(
            {"verdict": ["skip", "buy_now"], "tier": ["fair", "banger"]},
            ["verdict.changed", "tier.changed"],
            id="verdict-and-tier",
        ),
        pytest.param({"price_usd": [None, 4.99], "verdict": [None, "skip"]}, [], id="newly-rated"),
        pytest.param({"bang_score": [50, 51]}, [], id="score-only"),
    ],
)
def test_event_types_of_a_change(fields: dict[str, list[Any]], events: list[str]) -> None:
    assert event_types(fields) == events


def test_the_signature_is_the_one_standardwebhooks_verifies() -> None:
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    now = int(dt.datetime.now(dt.UTC).timestamp())
    body = b'{"type":"price.dropped"}'
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(now),
        "webhook-signature": sign(secret, "msg_1", now, body),
    }
    assert Webhook(secret).verify(body, headers) == {"type": "price.dropped"}
    with pytest.raises(Exception, match="signature"):
        Webhook(secret).verify(body + b" ", headers)


def test_each_event_reaches_the_receiver_once_signed(store: WebhookStore) -> None:
    state = two_steps()
    with receiver() as rx:
        now = int(dt.datetime.now(dt.UTC).timestamp())
        endpoint = store.add_endpoint(
            "a@x.io", rx.url, ("verdict.changed", "price.dropped", "tier.changed"), (), 0
        )
        watched = {"a@x.io": {1, 2, 3}}
        added = enqueue(store, state.log, lambda a: watched[a], site_url="http://s", now=now)
        again = enqueue(store, state.log, lambda a: watched[a], site_url="http://s", now=now)
        run = deliver(store, lambda: now, holder="t", allow_loopback=True)
        second = deliver(store, lambda: now, holder="t", allow_loopback=True)
    assert (added, again) == (3, 0)
    assert (len(run.delivered), run.failed, second.delivered) == (3, [], [])
    payloads = [verified(endpoint, r) for r in rx.received]
    assert sorted((p["type"], p["data"]["appid"]) for p in payloads) == [
        ("price.dropped", 1),
        ("tier.changed", 2),
        ("verdict.changed", 1),
    ]
    assert {p["data"]["snapshot"] for p in payloads} == {"s2"}
    assert len({r.headers["webhook-id"] for r in rx.received}) == 3
    dropped = next(p for p in payloads if p["type"] == "price.dropped")
    assert dropped["data"]["changes"]["price_usd"] == [19.99, 4.99]
    assert [d.state for d in store.deliveries(endpoint.id)] == ["delivered"] * 3


def test_a_receiver_failing_three_times_gets_the_event_on_the_fourth_try(
    store: WebhookStore,
) -> None:
    real = int(dt.datetime.now(dt.UTC).timestamp())
    start = real - sum(RETRY_DELAYS[:3])  # the fourth try lands at the real time
    clock = [start]
    with receiver([500, 500, 500]) as rx:
        endpoint = store.add_endpoint("a@x.io", rx.url, ("price.dropped",), (1,), 0)
        enqueue(store, two_steps().log, lambda _: set(), site_url="http://s", now=start)
        outcomes = []
        for delay in (0, *RETRY_DELAYS[:3]):
            clock[0] += delay
            # Not due again before its next try's time.
            assert deliver(store, lambda: clock[0] - 1, holder="t").delivered == []
            run = deliver(store, lambda: clock[0], holder="t", allow_loopback=True)
            outcomes.append((len(run.delivered), len(run.failed), len(rx.received)))
    assert outcomes == [(0, 1, 1), (0, 1, 2), (0, 1, 3), (1, 0, 4)]
    assert len({r.headers["webhook-id"] for r in rx.received}) == 1
    assert verified(endpoint, rx.received[-1])["type"] == "price.dropped"
    (delivery,) = store.deliveries(endpoint.id)
    assert (delivery.state, delivery.tries, delivery.last_status) == ("delivered", 4, 200)
    assert store.endpoint(endpoint.id).failing_since is None  # type: ignore[union-attr]


def test_a_claimed_delivery_is_sent_by_no_other_run_until_its_claim_lapses(
    store: WebhookStore,
) -> None:
    # A run killed between its claim and its send: the delivery is neither lost nor sent
    # twice. Another run leaves it while claimed, and sends it once the claim lapses.
    now = int(dt.datetime.now(dt.UTC).timestamp())
    with receiver() as rx:
        store.add_endpoint("a@x.io", rx.url, ("price.dropped",), (1,), 0)
        enqueue(store, two_steps().log, lambda _: set(), site_url="http://s", now=now)
        (due,) = store.due(now)
        assert store.claim(due.id, now, 120)  # the killed run's claim
        assert not store.claim(due.id, now, 120)
        assert deliver(store, lambda: now + 60, holder="t", allow_loopback=True).delivered == []
        assert rx.received == []
        later = deliver(store, lambda: now + 121, holder="t", allow_loopback=True)
        final = deliver(store, lambda: now + 240, holder="t", allow_loopback=True)
    assert (later.delivered, final.delivered) == ([due.id], [])
    assert [r.headers["webhook-id"] for r in rx.received] == [due.id]


def test_an_endpoint_failing_for_3_days_is_disabled_and_its_owner_told(
    store: WebhookStore,
) -> None:
    told: list[Endpoint] = []
    clock = [int(dt.datetime.now(dt.UTC).timestamp())]
    with receiver([500] * 20) as rx:
        endpoint = store.add_endpoint("a@x.io", rx.url, ("price.dropped",), (1, 9), 0)
        enqueue(store, two_steps().log, lambda _: set(), site_url="http://s", now=clock[0])
        for delay in (0, *RETRY_DELAYS):
            clock[0] += delay
            deliver(store, lambda: clock[0], holder="t", allow_loopback=True, tell=told.append)
        assert store.endpoint(endpoint.id).disabled_at is None  # type: ignore[union-attr]
        # A new change three days after the first failure: one more failure disables it.
        later = advance(
            two_steps(),
            [item(1, price_usd=1.00)],
            snapshot_id="s3",
            created_at=T0 + dt.timedelta(days=2),
            as_of=T0.date(),
        )
        clock[0] += 3 * 24 * 3600
        enqueue(store, later.log, lambda _: set(), site_url="http://s", now=clock[0])
        run = deliver(store, lambda: clock[0], holder="t", allow_loopback=True, tell=told.append)
        sent = len(rx.received)
        after = deliver(store, lambda: clock[0] + 10**6, holder="t", allow_loopback=True)
        assert len(rx.received) == sent  # nothing more goes to a disabled endpoint
    assert run.disabled == [endpoint.id] and [e.id for e in told] == [endpoint.id]
    assert after.delivered == after.failed == []
    assert [d.state for d in store.deliveries(endpoint.id)].count("failed") == 2
    message = disabled_message(told[0], "BangScore <alerts@bangscore.local>", "bangscore.local")
    assert message["To"] == "a@x.io"
    assert "127.0.0.1" in message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "/hook" not in str(message)


@pytest.mark.parametrize(
    ("url", "kind", "member"),
    [
        pytest.param("https://discord.com/api/webhooks/1/abc", "discord", "content", id="discord"),
        pytest.param("https://hooks.slack.com/services/T/B/x", "slack", "text", id="slack"),
        pytest.param("https://example.com/hooks", None, "type", id="plain"),
    ],
)
def test_discord_and_slack_urls_get_their_body_shape(
    url: str, kind: str | None, member: str
) -> None:
    event = {
        "type": "price.dropped",
        "timestamp": "2026-12-02T03:15:00Z",
        "data": {
            "appid": 1,
            "name": "Hades",
            "url": "http://s/game/1",
            "snapshot": "s2",
            "changes": {"price_usd": [24.99, 9.99]},
        },
    }
    assert service(url) == kind
    body = orjson.loads(body_for(url, event))
    assert list(body) == [member] if kind else body == event
    if kind:
        assert body[member] == "Hades: price.dropped (price_usd 24.99 -> 9.99) http://s/game/1"
