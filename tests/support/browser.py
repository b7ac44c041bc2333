"""Debian's chromium for the browser tests, driven by Playwright (no browser download), and the
accessibility check: axe-core from npm (``make deps`` installs it under ``node_modules``),
injected into the page under test.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.support.live import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
OUTPUT = REPO / "tests" / "output"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 740}
SERIOUS = ("serious", "critical")


def missing_tools() -> str | None:
    """Return why the browser tests cannot run here (chromium or axe-core missing), or None."""
    if shutil.which(CHROMIUM) is None:
        return f"{CHROMIUM} is missing: run `make deps` (apt-get install chromium)"
    if not AXE.exists():
        return f"{AXE} is missing: run `make deps` (npm ci installs axe-core)"
    return None


@contextmanager
def chromium() -> Iterator[Browser]:
    """Start Debian's chromium headless (Playwright gives it a fresh, empty profile)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class ConsoleLog:
    """The console errors and uncaught page errors a page produced."""

    errors: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> Page:
        """Given a page, record its console errors and page errors; return the page."""
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        return page


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Given a loaded page, run axe-core's WCAG 2.x A/AA rules on it; return the violations as
    ``{id, impact, help, nodes: [target...]}``."""
    # Evaluated by the tool, not added as a <script>: the pages' Content-Security-Policy
    # refuses inline scripts, as it should, and would refuse axe's too.
    page.evaluate(AXE.read_text() + "\n;undefined")
    result = page.evaluate(
        """async () => {
            const r = await axe.run(document, {
                runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa",
                                                  "best-practice"]},
                resultTypes: ["violations"],
            });
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                           nodes: v.nodes.map(n => n.target.join(" "))}));
        }"""
    )
    assert isinstance(result, list)
    return result


def save_report(name: str, report: dict[str, Any]) -> Path:
    """Given a file name and a JSON-able report, write it under ``tests/output``."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / name
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return path
