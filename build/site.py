"""The website's static pages, rendered with jinja2 in the same build as the API snapshot:
one page per game (``/game/<appid>/<slug>``), the API reference (``/docs``) and a home page.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from build.api import ATTRIBUTION_TEXT, ERROR_CODES


def _fmt_usd(value: float | None) -> str:
    return "—" if value is None else ("Free" if value == 0 else f"${value:,.2f}")


def _fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _fmt_hours(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} h"


class SiteRenderer:
    """Renders the site's pages to bytes; one instance per build (templates load once)."""

    def __init__(self, *, site_url: str, base_url: str) -> None:
        self.env = Environment(
            loader=PackageLoader("build", "templates"),
            autoescape=select_autoescape(["html"]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(usd=_fmt_usd, pct=_fmt_pct, hours=_fmt_hours)
        self.env.globals.update(
            site_url=site_url,
            base_url=base_url,
            attribution=ATTRIBUTION_TEXT,
        )
        self._game = self.env.get_template("game.html")

    def game_page(self, detail: dict[str, Any]) -> bytes:
        """Given a game's detail record (wire dict), return its HTML page as UTF-8 bytes."""
        return self._game.render(game=detail).encode()

    def docs_page(self, openapi: dict[str, Any]) -> bytes:
        """Given the OpenAPI document, return the ``/docs`` page: reference, terms, errors."""
        return (
            self.env.get_template("docs.html").render(openapi=openapi, errors=ERROR_CODES).encode()
        )

    def home_page(self, top: list[dict[str, Any]], total: int) -> bytes:
        """Given the top list items and the catalog size, return the home page bytes."""
        return self.env.get_template("home.html").render(top=top, total=total).encode()
