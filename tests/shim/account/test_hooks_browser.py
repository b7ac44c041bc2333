"""The account page's webhook section in a real browser (Debian's chromium, headless,
Playwright) against a real ``bangscore serve``: a signed-in account adds an endpoint, sees its
secret once and the delivery log after a delivery, at 1280 and 375 px, with no serious axe
violation. Screenshots go to tests/output (docs/screenshots keeps copies)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bangscore.storage import LocalStorage
from bangscore.stores import open_webhook_store
from bangscore.stores.webhooks import Delivery
from tests.support import factories, signups
from tests.support.browser import (
    DESKTOP,
    OUTPUT,
    PHONE,
    SERIOUS,
    ConsoleLog,
    axe_violations,
)
from tests.support.live import ShimServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.server]


@pytest.mark.parametrize(
    "viewport", [pytest.param(DESKTOP, id="1280"), pytest.param(PHONE, id="375")]
)
def test_add_a_webhook_and_read_its_log_in_chromium(
    browser: Browser, viewport: dict[str, int], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog()[:5], LocalStorage(folder))
    server = ShimServer(tmp_path / "state", tmp_path / "shim.log", snapshot=folder).start()
    width = viewport["width"]
    email = f"hooks-{width}@example.com"
    try:
        client, _ = signups.signed_up(server.url, server.state_dir, email)
        cookies = [
            {"name": c.name, "value": c.value or "", "url": server.url} for c in client.cookies.jar
        ]
        client.close()
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        context.add_cookies(cookies)  # type: ignore[arg-type]
        console = ConsoleLog()
        page = console.watch(context.new_page())
        page.goto(f"{server.url}/account#webhooks")
        page.fill("#hook-url", "https://hooks.example.com/bangscore")
        page.fill("#hook-appids", "10001, 10002")
        page.click("#add-webhook button[type=submit]")
        secret = page.locator("#new-webhook-secret code.key")
        expect(secret).to_contain_text("whsec_")
        page.locator("#webhooks").scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT / f"account_webhook_added_{width}.png"), full_page=True)
        store = open_webhook_store(f"sqlite:///{server.state_dir / 'bangscore.sqlite3'}")
        try:
            (endpoint,) = store.endpoints(email)
            now = int(time.time())
            for n, (event, appid, status) in enumerate(
                [("price.dropped", 10001, 200), ("tier.changed", 10002, 500)]
            ):
                store.enqueue(
                    Delivery(
                        f"msg_{n}",
                        endpoint.id,
                        event,
                        "s1",
                        appid,
                        b"{}",
                        now + n,
                        0,
                        "pending",
                        None,
                        None,
                        None,
                    )
                )
                store.finish(f"msg_{n}", now + n, status, None if status == 200 else "answered 500")
        finally:
            store.close()
        page.goto(f"{server.url}/account#webhooks")
        expect(page.locator(".webhook-log tbody tr")).to_have_count(2)
        assert page.locator("#new-webhook-secret").count() == 0  # shown once
        page.screenshot(path=str(OUTPUT / f"account_webhooks_{width}.png"), full_page=True)
        serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
        assert serious == []
        assert console.errors == []
    finally:
        server.stop()
