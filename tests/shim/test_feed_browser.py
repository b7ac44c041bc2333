"""An Atom feed's reading view in a real browser (Debian's chromium, headless, Playwright)
against a real ``bangscore serve``: a browser shows ``/feeds/deals.atom`` as text (as it shows
every Atom document), so ``/feeds/deals`` renders the same entries as a page, each title linked
to its game page, the feed's address to paste into a reader, at 1280 and 375 px, with no
serious axe violation. Screenshots go to tests/output (docs/screenshots keeps copies)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import feedparser
import pytest

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
from tests.support.live import LOOPBACK, ShimServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.server]


@pytest.mark.parametrize(
    "viewport", [pytest.param(DESKTOP, id="1280"), pytest.param(PHONE, id="375")]
)
def test_a_feed_reads_as_a_page_in_chromium(
    browser: Browser, viewport: dict[str, int], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog()[:12], LocalStorage(folder))
    server = ShimServer(tmp_path / "state", tmp_path / "shim.log", snapshot=folder).start()
    try:
        atom = feedparser.parse(LOOPBACK.get(f"{server.url}/feeds/deals.atom", timeout=10).content)
        assert atom.entries  # the first snapshot's feed holds every game that qualifies
        context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
        console = ConsoleLog()
        page = console.watch(context.new_page())
        page.goto(f"{server.url}/feeds/deals")
        expect(page.locator("h1")).to_have_text(atom.feed.title)
        links = page.locator("#feed-entries li > a")
        expect(links).to_have_count(len(atom.entries))
        assert links.all_inner_texts() == [e.title for e in atom.entries]
        hrefs = [links.nth(n).get_attribute("href") for n in range(len(atom.entries))]
        assert hrefs == [e.link for e in atom.entries]
        address = page.locator("#feed-subscribe code").inner_text()
        assert address.endswith("/feeds/deals.atom")
        width = viewport["width"]
        page.screenshot(path=str(OUTPUT / f"feed_deals_{width}.png"), full_page=True)
        serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
        assert serious == []
        assert console.errors == []
    finally:
        server.stop()
