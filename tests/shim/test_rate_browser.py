"""Rating a list of games, and the verdict in every list row, in a real browser: Debian's
chromium, headless, driven by Playwright, against a real ``bangscore serve`` over the real
bundled catalogue, at 1280 and 375 px.

A visitor pastes a wishlist (appids and store links, one a line) into ``/rate`` and gets the
table with every rated game's tier and verdict in the order pasted, the known apps that are not
rated with the reason, and the unknown appids; then the home page's "Best under $10" leads to
the list capped at $10, every row with its verdict, on a phone too. axe-core finds no serious
or critical violation, nothing overflows sideways, the console stays clean. Screenshots go to
``tests/output/`` (copied to docs/screenshots for the README's gallery).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bangscore.scoring import flags
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import LocalStorage
from tests.support.browser import (
    DESKTOP,
    OUTPUT,
    PHONE,
    SERIOUS,
    ConsoleLog,
    axe_violations,
)
from tests.support.live import ShimServer
from tests.support.real_site import RealSite

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]
UNKNOWN = 999_999_999
VERDICT_WORDS = ("Buy at this price", "Wait for", "Skip")


@pytest.fixture(scope="module")
def served(
    real_site: RealSite, real_snapshot: tuple[LocalStorage, list[ScoredGame]]
) -> tuple[ShimServer, list[ScoredGame]]:
    """The server over the real catalogue, and its games."""
    return real_site.server, real_snapshot[1]


def wishlist(games: list[ScoredGame]) -> list[int]:
    """Twelve rated games spread over the ranking (adult games left out: hidden by default)."""
    shown = [g.record.appid for g in games if not flags.adult(g.record)]
    step = len(shown) // 12
    return shown[::step][:12]


def checked(page: Page, width: int, console: ConsoleLog) -> None:
    """Given a loaded page, assert no serious axe violation, no sideways overflow and a clean
    console."""
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert serious == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert console.errors == []


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "375"])
def test_paste_a_wishlist_and_get_every_verdict(
    served: tuple[ShimServer, list[ScoredGame]], browser: Browser, viewport: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    server, games = served
    width = viewport["width"]
    console = ConsoleLog()
    page = console.watch(browser.new_context(viewport=viewport).new_page())  # type: ignore[arg-type]
    asked = wishlist(games)
    lines = [
        f"https://store.steampowered.com/app/{a}/" if n % 2 else str(a) for n, a in enumerate(asked)
    ]
    page.goto(f"{server.url}/")
    page.click("header nav >> text=Rate a list")
    page.wait_for_url(f"{server.url}/rate")
    page.fill("#ids", "\n".join([*lines, str(UNKNOWN)]))
    page.click("#rate-button")
    page.wait_for_url(f"{server.url}/rate?ids=*")
    expect(page.locator("#summary")).to_contain_text(
        f"{len(asked) + 1} games asked: {len(asked)} rated, 1 unknown."
    )
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(len(asked))
    assert rows.evaluate_all("rs => rs.map(r => Number(r.dataset.appid))") == asked
    # The verdict is on screen at either width: its own column on a desktop, under the
    # game's name (beside the tier) on a phone.
    verdicts = page.locator("#results .row-verdict:visible")
    expect(verdicts).to_have_count(len(asked))
    assert all(t.startswith(VERDICT_WORDS) for t in verdicts.all_inner_texts())
    expect(page.locator("#results .tier:visible")).to_have_count(len(asked))
    expect(page.locator("#not-found-list")).to_contain_text(str(UNKNOWN))
    checked(page, width, console)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"site_rate_{width}.png"), full_page=True)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "375"])
def test_best_under_10_lists_rows_with_their_verdict(
    served: tuple[ShimServer, list[ScoredGame]], browser: Browser, viewport: dict[str, int]
) -> None:
    from playwright.sync_api import expect

    server, _ = served
    width = viewport["width"]
    console = ConsoleLog()
    page = console.watch(browser.new_context(viewport=viewport).new_page())  # type: ignore[arg-type]
    page.goto(f"{server.url}/")
    page.click("#under-10")
    page.wait_for_url(f"{server.url}/games?max_price=10")
    expect(page.locator("#f-max-price")).to_have_value("10")
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(10)
    expect(page.locator("#results .row-verdict:visible")).to_have_count(10)
    expect(page.locator("#results .tier:visible")).to_have_count(10)
    prices = page.locator("#results tbody tr td.num:has(.price-seen)").all_inner_texts()
    assert all(float(p.split()[0].lstrip("$").replace(",", "")) <= 10 for p in prices)
    next_href = page.get_attribute("a[data-rel=next]", "href") or ""
    assert "max_price=10" in next_href
    checked(page, width, console)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"site_under_10_{width}.png"), full_page=True)
