"""The account page's webhook section (shim/account/hooks.py) on a real server: add an
endpoint (its secret shown once, and it verifies what is posted), the refusals, the delivery
log after ``alerts send``, removal, another account's endpoint out of reach, and a server on a
Redis store keeping its webhooks there."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from bangscore.mail.webhooks import send_one
from bangscore.storage import LocalStorage
from bangscore.stores import open_webhook_store
from bangscore.stores.webhooks import Delivery
from tests.support import factories, signups
from tests.support.live import ShimServer
from tests.support.receiver import receiver

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
SECRET = re.compile(r'<code class="key">(whsec_[^<]+)</code>')


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ShimServer]:
    """A server over the small catalogue."""
    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog()[:5], LocalStorage(folder))
    shim = ShimServer(tmp_path / "state", tmp_path / "shim.log", snapshot=folder).start()
    yield shim
    shim.stop()


@pytest.fixture
def signed_up(server: ShimServer) -> Iterator[Callable[[str], tuple[httpx.Client, str]]]:
    """A maker of clients signed up as an address (with their CSRF token), closed after."""
    clients: list[httpx.Client] = []

    def make(email: str) -> tuple[httpx.Client, str]:
        client, csrf = signups.signed_up(server.url, server.state_dir, email)
        clients.append(client)
        return client, csrf

    yield make
    for client in clients:
        client.close()


SignUp = Callable[[str], tuple[httpx.Client, str]]


FORM = {"event_price.dropped": "on", "event_tier.changed": "on", "appids": "10001, 10002"}


@pytest.mark.server
def test_an_account_adds_lists_and_removes_a_webhook(server: ShimServer, signed_up: SignUp) -> None:
    owner, csrf = signed_up("hooks@example.com")
    url = "https://hooks.example.com/bangscore"
    assert (
        owner.post("/account/webhooks", data={**FORM, "url": url, "csrf": "x"}).status_code == 403
    )
    added = owner.post("/account/webhooks", data={**FORM, "url": url, "csrf": csrf})
    assert added.status_code == 200
    (secret,) = SECRET.findall(added.text)
    page = owner.get("/account").text
    assert url in page and "price.dropped, tier.changed" in page and "games 10001, 10002" in page
    assert secret not in page  # shown once
    store = open_webhook_store(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
    try:
        (endpoint,) = store.endpoints("hooks@example.com")
    finally:
        store.close()
    assert (endpoint.secret, endpoint.appids) == (secret, (10001, 10002))
    other, other_csrf = signed_up("other@example.com")
    removal = f"/account/webhooks/{endpoint.id}/remove"
    assert other.post(removal, data={"csrf": other_csrf}).status_code == 404
    assert url not in other.get("/account").text
    assert owner.post(removal, data={"csrf": csrf}).status_code == 303
    assert url not in owner.get("/account").text


@pytest.mark.server
@pytest.mark.parametrize(
    ("url", "said"),
    [
        pytest.param("http://hooks.example.com/x", "https", id="http"),
        pytest.param("https://127.0.0.1/x", "loopback", id="loopback"),
        pytest.param("https://169.254.169.254/x", "link-local", id="metadata"),
        pytest.param("https://[::ffff:10.0.0.1]/x", "private", id="mapped"),
    ],
)
def test_a_url_the_form_shows_is_private_is_refused(signed_up: SignUp, url: str, said: str) -> None:
    owner, csrf = signed_up("refused@example.com")
    answer = owner.post("/account/webhooks", data={**FORM, "url": url, "csrf": csrf})
    assert answer.status_code == 400 and said in answer.text
    assert url not in owner.get("/account").text


@pytest.mark.server
def test_the_delivery_log_shows_what_was_sent(server: ShimServer, signed_up: SignUp) -> None:
    owner, csrf = signed_up("log@example.com")
    form = {**FORM, "url": "https://hooks.example.com/a", "csrf": csrf}
    (secret,) = SECRET.findall(owner.post("/account/webhooks", data=form).text)
    now = int(time.time())
    store = open_webhook_store(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
    try:
        (endpoint,) = store.endpoints("log@example.com")
        store.enqueue(
            Delivery(
                "msg_t1",
                endpoint.id,
                "price.dropped",
                "s1",
                10001,
                b'{"type":"price.dropped"}',
                now,
                0,
                "pending",
                None,
                None,
                None,
            )
        )
        with receiver() as rx:
            # The same endpoint at a loopback receiver (the form refuses http; loopback is the
            # operator's test flag, the delivery's): one event through the real sender.
            local = dataclasses.replace(endpoint, url=rx.url)
            outcome = send_one(local, store.deliveries(endpoint.id)[0], now, allow_loopback=True)
        store.finish("msg_t1", now, outcome.status, outcome.error)
    finally:
        store.close()
    assert Webhook(secret).verify(rx.received[0].body, rx.received[0].headers)
    page = owner.get("/account").text
    assert "Last 1 deliveries" in page and ">delivered<" in page and ">price.dropped<" in page


@pytest.mark.server
def test_a_server_on_a_redis_store_keeps_webhooks_there(tmp_path: Path, redis_url: str) -> None:
    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog()[:5], LocalStorage(folder))
    shim = ShimServer(
        tmp_path / "state", tmp_path / "shim.log", snapshot=folder, store_url=redis_url
    ).start()
    email = "redis-hooks@example.com"
    try:
        with httpx.Client(base_url=shim.url, timeout=30) as owner:
            token = CSRF.findall(owner.get("/account").text)[0]
            form = {"csrf": token, "email": email, "password": signups.PASSWORD}
            assert owner.post("/account/signup", data=form).status_code == 200
            link = signups.signup_link(shim.state_dir, shim.url, email, redis_url)
            assert signups.follow_signup_link(owner, link).status_code == 303
            csrf = CSRF.findall(owner.get("/account").text)[0]
            url = "https://hooks.example.com/redis"
            added = owner.post("/account/webhooks", data={**FORM, "url": url, "csrf": csrf})
            assert added.status_code == 200 and SECRET.findall(added.text)
            assert url in owner.get("/account").text
    finally:
        shim.stop()
    store = open_webhook_store(redis_url)
    try:
        (endpoint,) = store.endpoints(email)
    finally:
        store.close()
    assert (endpoint.url, endpoint.appids) == (url, (10001, 10002))
