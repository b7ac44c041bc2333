"""A buyer's journey in a real browser (Debian's chromium, headless, driven by Playwright)
against a real ``bangscore serve`` over the real bundled catalogue: search "bg3", open
Baldur's Gate 3, read its verdict, see both charts and its genre percentile, copy the badge
snippet and fetch the badge; at 1280 and 375 px, with no horizontal scroll on any page, the
signed-in account pages included, and no axe-core violation. Screenshots go to
``tests/output/`` for review."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.records import Catalog
from tests.support import signups
from tests.support.browser import (
    DESKTOP,
    OUTPUT,
    PHONE,
    ConsoleLog,
    axe_violations,
    save_report,
)
from tests.support.live import LOOPBACK, ShimServer
from tests.support.real_site import RealSite

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]
BG3 = 1086940


@pytest.fixture(scope="module")
def served(real_site: RealSite, bundled: tuple[Catalog, IngestReport]) -> tuple[ShimServer, int]:
    """The server over the real catalogue and the appid of a known app that is not rated
    (its own page with the reason)."""
    unrated = next(
        a.appid for a in bundled[0].not_rated if a.reason == "too_few_reviews" and a.name
    )
    return real_site.server, unrated


def overflow(page: Page, width: int) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth")) - width


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "375"])
def test_search_bg3_read_the_verdict_charts_percentile_and_badge(
    real_site: RealSite, browser: Browser, viewport: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    server = real_site.server
    width = viewport["width"]
    console = ConsoleLog()
    page = console.watch(browser.new_context(viewport=viewport).new_page())  # type: ignore[arg-type]
    OUTPUT.mkdir(parents=True, exist_ok=True)

    page.goto(f"{server.url}/")
    expect(page.locator("#dates")).to_contain_text("prices as of")
    page.fill("#site-search", "bg3")
    page.press("#site-search", "Enter")
    page.wait_for_url(f"{server.url}/search?q=bg3")
    first = page.locator("#results tbody tr").first
    assert first.get_attribute("data-appid") == str(BG3)
    page.screenshot(path=str(OUTPUT / f"buyer_search_bg3_{width}.png"), full_page=True)
    first.locator("a").click()
    page.wait_for_url(f"{server.url}/game/{BG3}/baldurs-gate-3")

    record = real_site.detail(BG3)
    expect(page.locator("h1")).to_have_text("Baldur's Gate 3")
    expect(page.locator("#verdict-text p")).to_have_text(record["verdict_text"])
    assert record["verdict"] in ("buy_now", "wait_for_sale", "skip")
    suffix = "-narrow" if width < 640 else ""
    for chart in ("price-chart", "history-chart"):
        expect(page.locator(f"svg#{chart}{suffix}")).to_be_visible()
    expect(page.locator(f"svg#history-chart{suffix} text.marker-label")).to_contain_text("low $")
    percent = round(record["genre_percentile"] * 100)
    assert record["genre"] == "rpg"
    expect(page.locator("#percentile")).to_have_text(f"Better value than {percent}% of RPG games.")
    expect(page.locator("#about-score-link")).to_be_visible()

    snippet = page.input_value("#badge-snippet")
    page.locator("#badge-snippet").select_text()  # what a reader does to copy it
    assert snippet.startswith('<a href="') and f"/badge/{BG3}.svg" in snippet
    badge_path = urlsplit(snippet.split('src="', 1)[1].split('"', 1)[0]).path
    badge = LOOPBACK.get(server.url + badge_path)
    assert badge.status_code == 200
    assert badge.headers["content-type"].startswith("image/svg+xml")
    title = ET.fromstring(badge.text).find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text is not None and "Baldur's Gate 3" in title.text
    expect(page.locator("#badge-image")).to_be_visible()
    assert page.locator("#badge-image").evaluate("img => img.naturalWidth") > 0
    assert overflow(page, width) <= 0
    page.screenshot(path=str(OUTPUT / f"buyer_game_bg3_{width}.png"), full_page=True)
    assert console.errors == []


PAGES = {
    "home": "/",
    "browse": "/games?genre=rpg&on_sale=true",
    "search": "/search?q=a",
    "game": f"/game/{BG3}/baldurs-gate-3",
    "not-rated": "/game/{unrated}",
    "about": "/about/score",
    "docs": "/docs",
    "account": "/account",
}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "375"])
def test_every_page_fits_and_is_accessible_signed_out_and_in(
    served: tuple[ShimServer, int], browser: Browser, viewport: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    server, unrated = served
    width = viewport["width"]
    page = browser.new_context(viewport=viewport).new_page()  # type: ignore[arg-type]
    report: dict[str, Any] = {}

    def check(name: str) -> None:
        report[name] = {
            "path": page.url,
            "overflow_px": overflow(page, width),
            "violations": axe_violations(page),
        }
        page.screenshot(path=str(OUTPUT / f"buyer_{name}_{width}.png"), full_page=True)

    for name, path in PAGES.items():
        answer = page.goto(server.url + path.format(unrated=unrated))
        assert answer is not None and answer.status == 200, name
        check(name)
    # Signed in: the keys page with a new key shown, then the list with a key.
    page.goto(f"{server.url}/account")
    email = f"a-rather-long-address-{width}@example-player-domain.com"
    page.fill("#signup-email", email)
    page.fill("#signup-password", "a long enough password")
    page.click("#signup")
    expect(page.locator("h1")).to_have_text("Check your inbox")
    check("account-check-inbox")
    page.goto(signups.signup_link(server.state_dir, server.url, email))
    check("account-create")
    page.click("#create-account")
    expect(page.locator("h1")).to_have_text("API keys")
    page.click("#create-key")
    expect(page.locator("#new-key-value")).to_be_visible()
    check("account-new-key")
    page.goto(f"{server.url}/account")
    check("account-keys")
    save_report(f"buyer_axe_{width}.json", report)
    # No violation of any impact, on any page, signed out or in.
    assert {name: r["violations"] for name, r in report.items() if r["violations"]} == {}
    assert {name: r["overflow_px"] for name, r in report.items() if r["overflow_px"] > 0} == {}
