"""The website's pages, rendered with jinja2 from the same templates by the build (the static
pages: one per game, the docs, the home page) and by the shim at request time (browse, search
and error pages, from the same snapshot).

Links between pages are root-relative (``/games``), under the site URL's path if it has one,
so that pages work on whatever host and port serve them; the attribution line names the
configured site URL.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from jinja2 import PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from bangscore.contract.api import ATTRIBUTION_TEXT, ERROR_CODES
from bangscore.contract.limits import MAX_LOOKUP_APPIDS, MAX_QUERY_LENGTH, PAGE_SIZE
from bangscore.contract.list_filter import FormState
from bangscore.scoring.genres import GENRES
from bangscore.scoring.sales import sale_on
from bangscore.scoring.verdict_text import heading
from bangscore.site.adult import toggle_href
from bangscore.site.badge import Badge, badge_snippet
from bangscore.site.better_value import cap_usd
from bangscore.site.chart import PriceCurve, svg_number, svg_points
from bangscore.site.facets import facet_badges, languages_view
from bangscore.site.formats import (
    day_month,
    fmt_hours,
    fmt_pct,
    fmt_usd,
    next_sale_line,
    next_sale_words,
    price_seen,
    tag_query,
    verdict_words,
)
from bangscore.site.formats import (
    format_day as format_day,  # re-exported: the account pages print days too
)
from bangscore.site.history_chart import PriceHistory
from bangscore.site.jinja_env import FastEnvironment, ProcessBytecodeCache
from bangscore.site.labels import (
    driver_reasons,
    drivers_explained,
    flags_view,
    genre_label,
    length_source_label,
    review_count_label,
    review_words,
)

JSON = dict[str, Any]


@functools.lru_cache(maxsize=4096)
def _escaped(text: str) -> Markup:
    return escape(text)


def escape_text(value: Any) -> Markup:
    """Given a value, return it HTML-escaped as :func:`markupsafe.escape` does (the ``e``
    filter of the charts and the badge, whose autoescape is off), keeping the escape of each
    plain string: their ticks, labels, classes and ids repeat across the 40,000 pages of a
    build (88 escapes a page, 9 in 10 the same), and a kept one costs 100 ns against 390."""
    return _escaped(value) if type(value) is str else escape(value)


def package_stylesheet() -> bytes:
    """Return the site's stylesheet as this package ships it (UTF-8 CSS bytes)."""
    return files("bangscore.site").joinpath("templates", "style.css").read_bytes()


def style_version(stylesheet: bytes) -> str:
    """Given the stylesheet's bytes, return the version its pages link it by
    (``/style.css?v=<version>``): the first 16 hex digits of its SHA-256, so a changed
    stylesheet gets a new URL and an unchanged one may be cached for good."""
    return hashlib.sha256(stylesheet).hexdigest()[:16]


@functools.lru_cache(maxsize=4096)  # the better-value boxes link the same top games again
def _local(url: str) -> str:
    """Given an absolute URL of the site, return its path and query (a root-relative link)."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


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


# Names a plain dict answers as attributes (its methods); every other ``x.name`` on a dict can
# only resolve to the item, which jinja2 would find after a failed attribute lookup.
_BYTECODE = ProcessBytecodeCache()


class SiteRenderer:
    """Renders the site's pages to bytes; one instance per build or per shim (templates load
    once)."""

    def __init__(self, *, site_url: str, base_url: str) -> None:
        self.env = FastEnvironment(
            loader=PackageLoader("bangscore.site", "templates"),
            # Templates ship with the package: no file check on every include of a page.
            auto_reload=False,
            bytecode_cache=_BYTECODE,
            autoescape=select_autoescape(["html", "svg"]),  # _charts.svg and badge.svg too
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(
            usd=fmt_usd,
            pct=fmt_pct,
            hours=fmt_hours,
            local=_local,
            genre_label=genre_label,
            flags=flags_view,
            facets=facet_badges,
            languages=languages_view,
            day=format_day,
            day_month=day_month,
            price_seen=price_seen,
            verdict_words=verdict_words,
            next_sale_words=next_sale_words,
            next_sale_line=next_sale_line,
            adult_toggle=toggle_href,
            tag_query=tag_query,
            coord=svg_number,
            points=svg_points,
            e=escape_text,
            escape=escape_text,
        )
        self.stylesheet = package_stylesheet()
        self.style_version = style_version(self.stylesheet)
        self.env.globals.update(
            style_version=self.style_version,
            site_url=site_url,
            base_url=base_url,
            root=urlsplit(site_url).path.rstrip("/"),
            attribution=ATTRIBUTION_TEXT,
            genres=GENRES,
            max_query_length=MAX_QUERY_LENGTH,
        )
        self.site_url = site_url.rstrip("/")
        self.root: str = self.env.globals["root"]  # type: ignore[assignment]
        self._game = self.env.get_template("game.html")
        self._badge = self.env.get_template("badge.svg")

    def game_page(
        self,
        detail: Mapping[str, Any],
        *,
        charts: Sequence[PriceCurve],
        better: Sequence[Mapping[str, Any]],
        histories: Sequence[PriceHistory] = (),
        history_rows: Sequence[tuple[str, str, str, str]] = (),
        typical_price_per_hour: float | None = None,
        typical_hours: float | None = None,
        dates: Mapping[str, str | None] | None = None,
    ) -> bytes:
        """Given a game's detail record (wire dict), its score-against-price charts and its
        price-history charts (geometry, one a width, drawn in that order by ``_charts.svg``; no
        price chart for a free game), the history's table rows (date, paid, list,
        discount), the list items of the better-value games of its genre (best first), what is
        typical of its genre (USD an hour, hours) and the snapshot's dates
        (``snapshot_date``, ``prices_as_of``), return its HTML page as UTF-8 bytes."""
        badge_url = f"{self.site_url}/badge/{detail['appid']}.svg"
        reasons = driver_reasons(
            detail, typical_price_per_hour=typical_price_per_hour, typical_hours=typical_hours
        )
        return self._game.render(
            game=detail,
            charts=charts,
            histories=histories,
            history_rows=history_rows,
            better=better,
            better_cap=cap_usd(float(detail["price_usd"])),
            drivers=drivers_explained(detail, reasons),
            flags=flags_view(detail),
            free=_is_free(detail),
            verdict_heading=heading(str(detail.get("verdict", "")), free=_is_free(detail)),
            stale="stale_price" in (detail.get("provisional_reasons") or ()),
            low_estimated="historical_low_usd" in (detail.get("estimated") or ()),
            ended_sale_name=_sale_name(detail.get("ended_sale_at")),
            review_count=review_count_label(detail),
            reviews=review_words(detail),
            length_source=length_source_label(detail),
            dates=dates or {},
            price_date=_price_date(detail, dates or {}),
            badge_url=badge_url,
            here=_local(str(detail["url"])),
            badge_snippet=badge_snippet(
                badge_url=badge_url,
                game_url=str(detail["url"]),
                name=str(detail["name"]),
                bang_score=int(detail["bang_score"]),
                tier=str(detail["tier"]),
            ),
            storefront_url=f"https://store.steampowered.com/app/{detail['appid']}/",
        ).encode()

    def better_box(
        self,
        game: Mapping[str, Any],
        better: Sequence[Mapping[str, Any]],
        dates: Mapping[str, str | None],
    ) -> bytes:
        """Given a game's list item (or detail record), the list items of its better-value
        games (best first) and the snapshot's dates, return its better-value box as the game
        page renders it (the shim swaps it in for ``adult=true``)."""
        macro = self.env.get_template("_macros.html").module.better_box  # type: ignore[attr-defined]
        return str(macro(game, better, dates, cap_usd(float(game["price_usd"])))).encode()

    def chart_svg(self, chart: PriceCurve | PriceHistory) -> str:
        """Given one chart's geometry, return it as the game page draws it: an ``<svg>``
        element, one element a line (the macros of ``_charts.svg``)."""
        macros = self.env.get_template("_charts.svg").module
        draw = macros.price_curve if isinstance(chart, PriceCurve) else macros.price_history  # type: ignore[attr-defined]
        return str(draw(chart))

    def badge_svg(self, badge: Badge) -> bytes:
        """Given a game's badge values (:func:`bangscore.site.badge.badge`), return the badge as
        a standalone SVG document (UTF-8 bytes, one line: the template ``badge.svg``)."""
        return self._badge.render(b=badge).encode()

    def not_rated_page(
        self,
        *,
        appid: int,
        name: str,
        reason: str,
        reason_text: str,
        edition: tuple[str, str] | None = None,
    ) -> bytes:
        """Given a known app that is not rated (appid, name, ``reason`` and its words) and, for
        a superseded listing, its rated edition (name, page URL), return its page: what it is,
        why it has no score and, where there is one, a link to the edition."""
        return (
            self.env.get_template("not_rated.html")
            .render(
                appid=appid,
                name=name,
                reason=reason,
                reason_text=reason_text,
                edition=edition,
                storefront_url=f"https://store.steampowered.com/app/{appid}/",
            )
            .encode()
        )

    def docs_page(self, openapi: dict[str, Any]) -> bytes:
        """Given the OpenAPI document, return the ``/docs`` page: reference, terms, errors."""
        return (
            self.env.get_template("docs.html").render(openapi=openapi, errors=ERROR_CODES).encode()
        )

    def home_page(
        self,
        top: Sequence[Mapping[str, Any]],
        total: int,
        *,
        dates: Mapping[str, str | None] | None = None,
        listed: int | None = None,
        adult_hidden: int = 0,
    ) -> bytes:
        """Given the top list items, the catalog size, the snapshot's dates (``snapshot_date``,
        ``prices_as_of``), the rows browsing shows (None: ``total``) and how many adult games
        it hides, return the home page bytes. The page says why the rows are fewer than the
        games (issue 48: "all 40,796 games" led to a browse of 36,467)."""
        rows = total if listed is None else listed
        return (
            self.env.get_template("home.html")
            .render(
                top=top,
                total=total,
                listed=rows,
                adult_hidden=adult_hidden,
                in_series=total - rows - adult_hidden,
                dates=dates or {},
                here=f"{self.root}/",
            )
            .encode()
        )

    def browse_page(
        self,
        listing: Listing,
        *,
        form: FormState,
        api_url: str,
        errors: Sequence[Any] = (),
        dates: Mapping[str, str | None] | None = None,
        here: str | None = None,
        audio: tuple[str, frozenset[int]] | None = None,
    ) -> bytes:
        """Given a page of games, the form's state (every list filter with its field's value:
        :meth:`bangscore.contract.filters.Filters.form`), the same query's API URL, any parameter
        errors (objects with ``parameter`` and ``message``), the page's own root-relative
        URL without ``adult`` (for the adult toggle; None: no toggle) and, when the query
        filters by a language, that tag and the appids of the page with full audio in it (their
        rows' "Audio in ..." badge), return the ``/games``
        page as the site shows it by default (adult games hidden;
        :func:`bangscore.site.adult.keep_adult` gives it with them)."""
        return (
            self.env.get_template("browse.html")
            .render(
                **listing.template_vars(),
                form=form,
                api_url=api_url,
                errors=errors,
                dates=dates or {},
                audio=audio,
                **({"here": here} if here is not None else {}),
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
        dates: Mapping[str, str | None] | None = None,
        here: str | None = None,
    ) -> bytes:
        """Given the query, a page of matches, the matching known-but-unrated games (``appid``,
        ``name``, ``reason_text``), the API URL, any errors and the page's own root-relative
        URL without ``adult`` (None: no toggle), return the ``/search`` page as the site shows
        it by default."""
        return (
            self.env.get_template("search.html")
            .render(
                **listing.template_vars(),
                query=query,
                not_rated=not_rated,
                api_url=api_url,
                errors=errors,
                dates=dates or {},
                **({"here": here} if here is not None else {}),
            )
            .encode()
        )

    def rate_page(
        self,
        text: str,
        *,
        asked: int = 0,
        games: Sequence[Mapping[str, Any]] = (),
        hidden: int = 0,
        not_rated: Sequence[Mapping[str, Any]] = (),
        not_found: Sequence[int] = (),
        ignored: Sequence[str] = (),
        errors: Sequence[Any] = (),
        dates: Mapping[str, str | None] | None = None,
        here: str | None = None,
    ) -> bytes:
        """Given the pasted text, the number of appids read from it, the rated games' list
        items in the order pasted (adult games left out unless shown), how many adult games
        were left out, the known apps not rated (``appid``, ``name``, ``reason_text``), the
        appids nobody knows, the tokens not understood, any errors, the snapshot's dates and
        the page's own URL without ``adult`` (None: no toggle), return the ``/rate`` page."""
        return (
            self.env.get_template("rate.html")
            .render(
                text=text,
                asked=asked,
                games=games,
                hidden=hidden,
                not_rated=not_rated,
                not_found=not_found,
                ignored=ignored,
                errors=errors,
                dates=dates or {},
                max_games=MAX_LOOKUP_APPIDS,
                **({"here": here} if here is not None else {}),
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
        return self._source("favicon.svg").encode()

    def _source(self, name: str) -> str:
        loader = self.env.loader
        assert loader is not None
        source, _, _ = loader.get_source(self.env, name)
        return source


def _sale_name(iso: object) -> str | None:
    """Given an ISO date (or None), return the Steam seasonal sale running that day ("Summer
    Sale", :mod:`scoring.sales`), or None."""
    try:
        sale = sale_on(dt.date.fromisoformat(str(iso)[:10]))
    except ValueError:
        return None
    return sale.name if sale is not None else None


def _is_free(detail: Mapping[str, Any]) -> bool:
    """Given a detail record, return True for a free game (price and list price both $0):
    its page has no price thresholds, no value-at-every-price chart and no watch form."""
    return (
        float(detail.get("price_usd") or 0) == 0 and float(detail.get("list_price_usd") or 0) == 0
    )


def _price_date(detail: Mapping[str, Any], dates: Mapping[str, str | None]) -> str | None:
    """Given a detail record and the snapshot's dates, return the ISO date of its price: its
    ``price_observed_at`` when published, else the date its price source gives, else the
    prices' as-of date."""
    observed = detail.get("price_observed_at")
    if observed:
        return str(observed)[:10]
    source = (detail.get("provenance") or {}).get("price_usd")
    if isinstance(source, Mapping) and source.get("date"):
        return str(source["date"])
    return dates.get("prices_as_of")
