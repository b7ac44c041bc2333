"""What the quick start shows a newcomer (issue 48), in headless chromium over the real
catalogue: the home page saying why browsing lists fewer rows than the games it rates, a list
row whose "Wait for $X" is dated, and the sign-up mail ``make run`` keeps, rendered as a mail
client shows its HTML part. Screenshots go to ``tests/output/`` and ``docs/screenshots/``.
"""

from __future__ import annotations

import re
import shutil
from email import policy
from email.parser import BytesParser
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bangscore.mail.folder import MailFolder, message_links
from bangscore.mail.links import WatchLinks
from bangscore.mail.messages import signup_message
from bangscore.stores.watchstore import PendingSignup
from tests.support.browser import DESKTOP, OUTPUT, PHONE, ConsoleLog
from tests.support.live import REPO
from tests.support.real_site import RealSite

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SCREENSHOTS = REPO / "docs" / "screenshots"
DATED = re.compile(r"^Wait for \$[\d,]+\.\d\d \(seen \d{1,2} [A-Z][a-z]{2} \d{4}\)$")


def keep(page: Page, name: str, *, selector: str | None = None) -> None:
    """Screenshot the page (or one element of it) into tests/output and docs/screenshots."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / name
    if selector is None:
        page.screenshot(path=str(path), full_page=True)
    else:
        page.locator(selector).first.screenshot(path=str(path))
    shutil.copyfile(path, SCREENSHOTS / name)


def test_the_home_page_says_what_browsing_lists(real_site: RealSite, browser: Browser) -> None:
    from playwright.sync_api import expect

    page = ConsoleLog().watch(browser.new_context(viewport=DESKTOP).new_page())  # type: ignore[arg-type]
    page.goto(f"{real_site.url}/")
    said = page.locator("#browse-count").inner_text()
    hidden = int(re.search(r"([\d,]+) adult games hidden", said)[1].replace(",", ""))  # type: ignore[index]
    rows = page.locator("main p").first.inner_text()
    listed = int(re.search(r"in ([\d,]+) rows", rows)[1].replace(",", ""))  # type: ignore[index]
    keep(page, "site_home_1280.png")
    page.click("#browse-all")
    expect(page.locator("#summary")).to_contain_text(f"{listed:,} games")
    assert hidden > 0


def test_a_list_row_dates_the_price_to_wait_for(real_site: RealSite, browser: Browser) -> None:
    page = ConsoleLog().watch(browser.new_context(viewport=DESKTOP).new_page())  # type: ignore[arg-type]
    page.goto(f"{real_site.url}/games?genre=rpg")
    verdicts = page.locator("#results td.opt .row-verdict-wait_for_sale")
    assert verdicts.count() > 0
    assert all(DATED.match(t) for t in verdicts.all_inner_texts()), verdicts.all_inner_texts()
    keep(page, "site_list_row_1280.png", selector="#results tr:has(.row-verdict-wait_for_sale)")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "375"])
def test_the_sign_up_mail_reads_in_a_browser(
    tmp_path: Path, browser: Browser, viewport: dict[str, int]
) -> None:
    links = WatchLinks("s" * 48, "http://127.0.0.1:8000")
    signup = PendingSignup("s_1", "player@example.com", "$argon2id$h", 1_790_000_000)
    with MailFolder(tmp_path, lambda _: None) as folder:
        folder.send(signup_message(signup, "BangScore <alerts@bangscore.local>", links))
    kept = BytesParser(policy=policy.default).parsebytes(folder.kept[0].read_bytes())
    html = kept.get_body(preferencelist=("html",))
    assert html is not None
    page = browser.new_context(viewport=viewport).new_page()  # type: ignore[arg-type]
    page.set_content(str(html.get_content()))
    [link] = message_links(folder.kept[0].read_bytes())
    assert link.startswith("http://127.0.0.1:8000/account/signup/confirm?t=")
    assert links.signup_id(link.split("t=", 1)[1]) == "s_1"
    assert page.locator(f'a[href="{link}"]').count() == 1
    keep(page, f"mail_signup_{viewport['width']}.png")
