"""The website's pages, rendered with jinja2 from the same templates by the build (the static
pages: one per game, the docs, the home page) and by the shim at request time (browse, search
and error pages, from the same snapshot).

Links between pages are root-relative (``/games``), under the site URL's path if it has one,
so that pages work on whatever host and port serve them; the attribution line names the
configured site URL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from bangscore.contract.api import ATTRIBUTION_TEXT, ERROR_CODES
from bangscore.contract.limits import MAX_QUERY_LENGTH, PAGE_SIZE
from bangscore.scoring.genres import GENRES
from bangscore.site.chart import usd
from bangscore.site.labels import drivers_view, genre_label, length_source_label

JSON = dict[str, Any]


def _fmt_usd(value: float | None) -> str:
    return "—" if value is None else usd(value)


def _fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"


def _fmt_hours(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} h"


def _local(url: str) -> str:
    """Given an absolute URL of the site, return its path and query (a root-relative link)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass(frozen=True, slots=True)
class FormState:
    """What the browse form shows: checked genres and the typed tag and year values."""

    genres: frozenset[str] = frozenset()
    tag: str = ""
    year_from: str = ""
    year_to: str = ""
    on_sale: bool = False


@dataclass(frozen=True, slots=True)
class Listing:
    """One page of games for the browse or search page: the items and paging figures.

    ``links`` maps first/prev/next/last to root-relative URLs of the other pages.
    """

    games: Sequence[Mapping[str, Any]]
    page: int
    pages: int
    total: int
    links: Mapping[str, str] = field(default_factory=dict)

    def template_vars(self) -> dict[str, Any]:
        """Return the listing as the templates' variables: games, paging figures, links, and
        ``first_rank``, the rank of the page's first game (11 on page 2)."""
        return {
            "games": self.games,
            "page": self.page,
            "pages": self.pages,
            "total": self.total,
            "links": self.links,
            "first_rank": (self.page - 1) * PAGE_SIZE + 1,
        }


class SiteRenderer:
    """Renders the site's pages to bytes; one instance per build or per shim (templates load
    once)."""

    def __init__(self, *, site_url: str, base_url: str) -> None:
        self.env = Environment(
            loader=PackageLoader("bangscore.site", "templates"),
            autoescape=select_autoescape(["html"]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(
            usd=_fmt_usd, pct=_fmt_pct, hours=_fmt_hours, local=_local, genre_label=genre_label
        )
        self.env.globals.update(
            site_url=site_url,
            base_url=base_url,
            root=urlsplit(site_url).path.rstrip("/"),
            attribution=ATTRIBUTION_TEXT,
            genres=GENRES,
            max_query_length=MAX_QUERY_LENGTH,
        )
        self._game = self.env.get_template("game.html")

    def game_page(
        self, detail: Mapping[str, Any], *, chart: str, better: Sequence[Mapping[str, Any]]
    ) -> bytes:
        """Given a game's detail record (wire dict), its price chart (SVG markup) and the list
        items of the better-value games of its genre, return its HTML page as UTF-8 bytes."""
        return self._game.render(
            game=detail,
            chart=Markup(chart),  # our own SVG: bangscore.site.chart escapes every text in it
            better=better,
            drivers=drivers_view(detail),
            length_source=length_source_label(detail),
        ).encode()

    def docs_page(self, openapi: dict[str, Any]) -> bytes:
        """Given the OpenAPI document, return the ``/docs`` page: reference, terms, errors."""
        return (
            self.env.get_template("docs.html").render(openapi=openapi, errors=ERROR_CODES).encode()
        )

    def home_page(self, top: Sequence[Mapping[str, Any]], total: int) -> bytes:
        """Given the top list items and the catalog size, return the home page bytes."""
        return self.env.get_template("home.html").render(top=top, total=total).encode()

    def browse_page(
        self, listing: Listing, *, form: FormState, api_url: str, errors: Sequence[Any] = ()
    ) -> bytes:
        """Given a page of games, the form's state, the same query's API URL and any parameter
        errors (objects with ``parameter`` and ``message``), return the ``/games`` page."""
        return (
            self.env.get_template("browse.html")
            .render(
                **listing.template_vars(),
                form=form,
                api_url=api_url,
                errors=errors,
            )
            .encode()
        )

    def search_page(
        self,
        query: str,
        listing: Listing,
        *,
        not_rated: Sequence[Mapping[str, Any]] = (),
        api_url: str = "",
        errors: Sequence[Any] = (),
    ) -> bytes:
        """Given the query, a page of matches, the matching known-but-unrated games (``appid``,
        ``name``, ``reason_text``), the API URL and any errors, return the ``/search`` page."""
        return (
            self.env.get_template("search.html")
            .render(
                **listing.template_vars(),
                query=query,
                not_rated=not_rated,
                api_url=api_url,
                errors=errors,
            )
            .encode()
        )

    def error_page(
        self, status: int, title: str, message: str, *, request_id: str | None = None
    ) -> bytes:
        """Given a status, a title and a message, return the HTML error page bytes."""
        return (
            self.env.get_template("error.html")
            .render(status=status, title=title, message=message, request_id=request_id)
            .encode()
        )

    def favicon(self) -> bytes:
        """Return the site's icon (SVG)."""
        loader = self.env.loader
        assert loader is not None
        source, _, _ = loader.get_source(self.env, "favicon.svg")
        return source.encode()
