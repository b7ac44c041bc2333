"""The account website in a real browser: Debian's chromium, headless, driven by Playwright,
against a real ``bangscore serve`` process: sign up, create a key, call the API with it,
revoke it. A screenshot of the keys page is saved to ``tests/output/keys_page.png``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bangscore.stores.keys import is_well_formed
from tests.shim.conftest import ShimFactory
from tests.support import signups
from tests.support.live import LOOPBACK, REPO, wait_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SCREENSHOT = REPO / "tests" / "output" / "keys_page.png"


@pytest.fixture
def page(browser: Browser) -> Iterator[object]:
    """A fresh chromium page (Playwright gives it a new empty profile), closed after the test."""
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    yield context.new_page()
    context.close()


def test_sign_up_create_key_call_api_and_revoke_in_chromium(
    page: object, shim_factory: ShimFactory, tmp_path: Path
) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    shim = shim_factory(f"sqlite:///{tmp_path / 'keys.sqlite3'}")
    page.goto(f"{shim.url}/")
    # The snapshot was built for the tests' site URL: follow the header link's path here.
    href = page.get_attribute("header nav a >> text=Account", "href")
    assert href is not None and href.endswith("/account")
    page.goto(f"{shim.url}/account")
    page.fill("#signup-email", "player@example.com")
    page.fill("#signup-password", "a long enough password")
    page.click("#signup")
    expect(page.locator("h1")).to_have_text("Check your inbox")
    link = signups.signup_link(tmp_path / "state", shim.url, "player@example.com", shim.store_url)
    page.goto(link)
    page.click("#create-account")
    expect(page.locator("h1")).to_have_text("API keys")
    expect(page.locator("#no-keys")).to_be_visible()

    page.click("#create-key")
    key = page.input_value("#new-key-value")
    assert is_well_formed(key)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.locator("#newkey").screenshot(path=str(SCREENSHOT.parent / "new_key.png"))
    page.click("#copy-key")
    expect(page.locator("#copy-key")).to_have_text("Copied")

    answer = LOOPBACK.get(f"{shim.url}/api/v1/games", headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200 and answer.json()["games"]

    page.goto(f"{shim.url}/account")
    row = page.locator(f'tr[data-key-id="{key[4:12]}"]')
    expect(row.locator("td.today")).to_have_text("1")
    expect(row.locator(".state-active")).to_have_text("active")
    assert page.locator("#new-key-value").count() == 0  # the key is shown once only
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    page.once("dialog", lambda dialog: dialog.accept())
    row.locator("button.danger").click()
    expect(row.locator(".state-revoked")).to_have_text("revoked")

    def refused() -> bool:  # within the key cache's lag (docs/API.md#key-states: 5 s at most)
        answer = LOOPBACK.get(
            f"{shim.url}/api/v1/games", headers={"Authorization": f"Bearer {key}"}
        )
        return answer.status_code == 401 and answer.json()["code"] == "revoked_key"

    wait_for(refused, 5.0, "refused after revocation")
