"""Signing up, out and in from every origin the server answers on, in a real browser (Debian's
chromium, headless, Playwright) against a real ``bangscore serve`` whose site URL is
``http://127.0.0.1:PORT`` (issue 33): the account forms post to root-relative URLs and the
redirects stay on the origin, so a visitor at ``http://localhost:PORT`` signs in too (an
absolute form action to 127.0.0.1 was blocked by the page's CSP ``form-action 'self'``, and
the session cookie of one host is not sent to the other).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from bangscore.storage import LocalStorage
from tests.support import factories, signups
from tests.support.browser import DESKTOP, ConsoleLog, missing_tools
from tests.support.live import ShimServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.server]


@pytest.fixture(autouse=True)
def _tools_installed() -> None:
    """Fail (never skip) when chromium or axe-core is missing: `make deps` installs them."""
    if (why := missing_tools()) is not None:
        pytest.fail(why)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_sign_up_out_and_in_from_either_loopback_name(
    browser: Browser, tmp_path: Path, host: str
) -> None:
    from playwright.sync_api import expect

    folder = tmp_path / "snapshots"
    factories.publish_catalog(factories.small_catalog()[:5], LocalStorage(folder))
    server = ShimServer(tmp_path / "state", tmp_path / "shim.log", snapshot=folder).start()
    origin = f"http://{host}:{server.port}"
    email = f"visitor-{host.replace('.', '-')}@example.com"
    try:
        context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
        console = ConsoleLog()
        page = console.watch(context.new_page())
        page.goto(f"{origin}/account")
        actions = page.eval_on_selector_all(
            "form[method=post]", "forms => forms.map(f => f.getAttribute('action'))"
        )
        assert actions == ["/account/signin", "/account/signup"], actions
        page.fill("#signup-email", email)
        page.fill("#signup-password", "a long enough password")
        page.click("#signup")
        expect(page.locator("h1")).to_have_text("Check your inbox")
        page.goto(signups.signup_link(server.state_dir, origin, email))
        page.click("#create-account")
        expect(page.locator("#who")).to_have_text(email)
        assert page.url.startswith(f"{origin}/account")

        page.get_by_role("button", name="Sign out").click()
        expect(page.locator("#signin-email")).to_be_visible()
        assert page.url.startswith(origin)
        page.fill("#signin-email", email)
        page.fill("#signin-password", "a long enough password")
        page.click("#signin")
        expect(page.locator("#who")).to_have_text(email)
        assert page.url == f"{origin}/account"
        assert console.errors == []
        context.close()
    finally:
        server.stop()
