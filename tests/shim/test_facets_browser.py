"""The platform facets on the website in a real browser (Debian chromium, headless, Playwright)
against ``bangscore serve`` over the real bundled catalogue: the browse form filters by each
facet, keeps the values in the URL and the page links, rows and game pages show the badges, and
axe-core finds no serious or critical violation at 1280 and 375 px (nothing overflows either).
Screenshots go to ``tests/output/`` (copies in docs/screenshots)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.support.browser import DESKTOP, OUTPUT, PHONE, SERIOUS, ConsoleLog, axe_violations
from tests.support.real_site import RealSite

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open(browser: Browser, viewport: dict[str, int], console: ConsoleLog) -> Page:
    return console.watch(browser.new_context(viewport=viewport).new_page())  # type: ignore[arg-type]


def _verified_with_languages(real_site: RealSite) -> dict[str, Any]:
    """The best-ranked Deck-verified game with full controller support and German audio."""
    for item in real_site.items():
        if item["steam_deck"] == "verified" and item["controller_support"] == "full":
            detail = real_site.detail(item["appid"])
            if any(lang["code"] == "de" and lang["audio"] for lang in detail["languages"]):
                return detail
    raise AssertionError("no Deck-verified game with German audio")


def test_the_form_filters_by_each_facet_and_keeps_them_in_the_url_and_links(
    real_site: RealSite, browser: Browser
) -> None:
    from playwright.sync_api import expect

    console = ConsoleLog()
    page = _open(browser, DESKTOP, console)
    page.goto(f"{real_site.url}/games")
    page.check('input[name="steam_deck"][value="verified"]')
    page.check('input[name="controller"][value="full"]')
    page.select_option("#f-language", "de")
    page.select_option("#f-audio", "de")
    page.fill("#f-min-reviews", "1000")
    page.click("#apply")
    query = "steam_deck=verified&controller=full&language=de&audio=de&min_reviews=1000"
    page.wait_for_url(f"{real_site.url}/games?{query}")
    expect(page.locator('input[name="steam_deck"][value="verified"]')).to_be_checked()
    expect(page.locator("#f-language")).to_have_value("de")
    expect(page.locator("#f-min-reviews")).to_have_value("1000")
    rows = page.locator("#results tbody tr")
    assert rows.count() == 10
    for n in range(rows.count()):
        expect(rows.nth(n)).to_contain_text("Deck verified")
        expect(rows.nth(n)).to_contain_text("Full controller support")
        expect(rows.nth(n)).to_contain_text("Audio in German")
    assert (page.get_attribute("a[data-rel=next]", "href") or "").endswith(f"?{query}&page=2")
    page.screenshot(path=str(OUTPUT / "facets_browse_1280.png"), full_page=True)
    page.click("a[data-rel=next]")
    page.wait_for_url(f"{real_site.url}/games?{query}&page=2")
    expect(page.locator("#f-audio")).to_have_value("de")
    assert console.errors == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "375"])
def test_facet_pages_are_accessible_and_fit(
    real_site: RealSite, browser: Browser, viewport: dict[str, int]
) -> None:
    game = _verified_with_languages(real_site)
    console = ConsoleLog()
    page = _open(browser, viewport, console)
    width = viewport["width"]
    pages = {
        "browse": "/games?steam_deck=verified&max_price=10",
        "browse_language": "/games?language=de&controller=full,partial",
        "game": real_site.game_url(game["appid"]).removeprefix(real_site.url),
    }
    found: dict[str, Any] = {}
    for name, path in pages.items():
        answer = page.goto(real_site.url + path)
        assert answer is not None and answer.status == 200, name
        # Measured once the page's fonts are in: a CJK name set in a fallback font is wider.
        page.evaluate("document.fonts.ready.then(() => true)")
        overflow = page.evaluate("document.documentElement.scrollWidth") - width
        serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
        found[name] = (overflow, serious)
        page.screenshot(path=str(OUTPUT / f"facets_{name}_{width}.png"), full_page=True)
    assert {name: f for name, f in found.items() if f[0] > 0 or f[1]} == {}
    page.goto(real_site.url + pages["game"])
    badges = page.locator("#facets li").all_inner_texts()
    assert badges[0].startswith("Deck verified, tested ")
    assert "Full controller support" in badges
    assert "German" in page.locator("#languages").inner_text()
    assert console.errors == []
