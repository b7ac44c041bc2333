"""Watching a game in a real browser (Debian's chromium, headless, Playwright) against a real
``bangscore serve`` that sends its confirmation emails to a real SMTP server (aiosmtpd): a new
user signs up, confirms the address through the emailed link, watches a game from its page
and sees it listed on the account page, at 1280 and 375 px. Screenshots go to tests/output.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bangscore.cli.main import main
from bangscore.scoring.records import PriceObservation
from bangscore.storage import LocalStorage
from tests.support import factories
from tests.support.browser import (
    DESKTOP,
    OUTPUT,
    PHONE,
    SERIOUS,
    ConsoleLog,
    axe_violations,
)
from tests.support.live import ShimServer
from tests.support.smtp_server import SMTPServer, body_text

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.server]
HOLLOW_KNIGHT = 367520
SOURCE = "steam_prices_usd_2026"


def fits_the_screen(page: Page, selector: str, width: int) -> None:
    """Given a page, a selector and the viewport's width, assert that nothing overflows
    sideways and that every element matched lies wholly within the width, none of them
    collapsed to nothing (a radio or a button the style sheet left out)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    boxes = page.locator(selector).evaluate_all(BOXES)
    assert boxes and all(left >= 0 and right <= width and w > 0 for left, right, w in boxes)


BOXES = (
    "els => els.map(e => { const r = e.getBoundingClientRect(); "
    "return [r.left, r.right, r.width]; })"
)


@pytest.mark.parametrize(
    "viewport", [pytest.param(DESKTOP, id="1280"), pytest.param(PHONE, id="375")]
)
def test_sign_up_confirm_and_watch_a_game_in_chromium(
    browser: Browser,
    viewport: dict[str, int],
    tmp_path: Path,
    smtp_server: SMTPServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from playwright.sync_api import expect

    folder = tmp_path / "snapshots"
    record = factories.make_record(
        appid=HOLLOW_KNIGHT,
        name="Hollow Knight",
        price_usd=14.99,
        list_price_usd=14.99,
        price_observed_at=dt.datetime(2026, 7, 24, 14, 13, tzinfo=dt.UTC),
        # Sold at half price in two seasonal sales: a recent low and a next sale to offer.
        price_history=tuple(
            PriceObservation(
                date=day, price_usd=usd, list_price_usd=14.99, discount_percent=off, source=SOURCE
            )
            for day, usd, off in (
                (dt.date(2025, 12, 20), 7.49, 50),
                (dt.date(2026, 1, 10), 14.99, 0),
                (dt.date(2026, 6, 27), 7.49, 50),
                (dt.date(2026, 7, 24), 14.99, 0),
            )
        ),
    )
    records = [*factories.small_catalog()[:5], record]
    factories.publish_catalog(records, LocalStorage(folder))
    server = ShimServer(
        tmp_path / "state",
        tmp_path / "shim.log",
        snapshot=folder,
        env={"BANGSCORE_SMTP_URL": smtp_server.url},
    ).start()
    email = f"new-{viewport['width']}@example.com"
    width = viewport["width"]
    try:
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        console = ConsoleLog()
        page = console.watch(context.new_page())
        page.goto(f"{server.url}/account")
        page.fill("#signup-email", email)
        page.fill("#signup-password", "a long enough password")
        page.click("#signup")
        expect(page.locator("h1")).to_have_text("Check your inbox")

        # The server never mails: the sign-up's email is queued for `alerts send`.
        assert smtp_server.inbox.messages == []
        monkeypatch.setenv("BANGSCORE_SMTP_URL", smtp_server.url)
        monkeypatch.setenv("BANGSCORE_SITE_URL", server.url)
        state = str(tmp_path / "state")
        assert main(["--state-dir", state, "alerts", "send", "--snapshot", str(folder)]) == 0
        [signup] = smtp_server.inbox.to(email)
        [link] = [line for line in body_text(signup).splitlines() if "?t=" in line]
        page.goto(link.strip())
        expect(page.locator("h1")).to_have_text("Create your BangScore account?")
        page.click("#create-account")
        expect(page.locator("#no-watches")).to_be_visible()

        page.goto(f"{server.url}/game/{HOLLOW_KNIGHT}/hollow-knight")
        page.click("#watch-game")
        expect(page.locator("h1")).to_have_text("Watch Hollow Knight")
        expect(page.locator(".price-seen")).to_have_text("(price seen 24 Jul 2026)")
        # The new choices (issue 58) are offered, dated, and fit the screen.
        choices = page.locator("#watch-form input[type=radio]")
        expect(choices).to_have_count(5)
        expect(page.locator("#watch-form")).to_contain_text(
            "its price is at or below its recent low ($7.49 on 20 Dec 2025)"
        )
        expect(page.locator("#watch-form")).to_contain_text("its next sale starts (likely the")
        page.check("input[value=recent_low]")
        fits_the_screen(
            page,
            "#watch-form label:not(.visually-hidden), "
            "#watch-form input:not([type=hidden]), #watch-submit",
            width,
        )
        page.check("#cond-below")
        page.fill("#below-usd", "10")
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"watch_form_{width}.png"), full_page=True)
        page.click("#watch-submit")

        rows = page.locator("#watch-list tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("Hollow Knight")
        expect(rows.first).to_contain_text("$10.00 or less")
        # The sign-up's link proved the address: no second confirmation is asked for.
        expect(page.locator("#unconfirmed")).to_have_count(0)

        # /rate's three "watch all" choices, on the same list.
        appids = [r.appid for r in records]
        page.goto(f"{server.url}/rate?ids={','.join(map(str, appids))}")
        form = page.locator("#watch-list-form")
        expect(form.locator("input[type=radio]")).to_have_count(3)
        expect(form.locator("input[value=verdict_price]")).to_be_checked()
        fits_the_screen(page, "#watch-list-form label, #watch-all-button", width)
        form.scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT / f"rate_watch_all_{width}.png"), full_page=True)

        page.goto(f"{server.url}/account")
        expect(page.locator("#watch-list tbody tr").first).to_contain_text("Hollow Knight")
        overflow = page.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth"
        )
        assert overflow is False
        row = page.locator("#watch-list tbody tr").first
        expect(row.locator(".price-seen")).to_have_text("(seen 24 Jul 2026)")
        # The Remove button is wholly on screen, and the name is not broken mid-word.
        remove = row.get_by_role("button", name="Remove the watch of Hollow Knight")
        box = remove.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        name = row.get_by_role("link", name="Hollow Knight").bounding_box()
        line = page.evaluate("parseFloat(getComputedStyle(document.body).lineHeight) || 24")
        assert name is not None and name["height"] < 1.5 * line
        serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
        assert serious == []
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"account_watches_{width}.png"), full_page=True)
        assert console.errors == []
        context.close()
    finally:
        server.stop()
    assert len(smtp_server.inbox.messages) == 1  # the sign-up's email, nothing else
