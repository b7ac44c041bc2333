"""The website's static pages, one row each: the path it is served at and the template it is
rendered from. The builder renders every row into the snapshot (with the snapshot's dates,
:func:`render_static`), the shim serves each at its path as a stored page (with the adult
toggle kept in its links); the object key follows from the path
(:func:`bangscore.contract.objects.static_page_key`).

A new static page is its template, its row here and its test: three files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bangscore.contract.objects import static_page_key
from bangscore.site.render import SiteRenderer


@dataclass(frozen=True, slots=True)
class StaticPage:
    """A page the builder renders once per snapshot from a template and the snapshot's dates:
    its path on the site (``/about/score``) and its template's name in the templates folder."""

    path: str
    template: str

    @property
    def key(self) -> str:
        """Return the page's object key inside a snapshot."""
        return static_page_key(self.path)


STATIC_PAGES: tuple[StaticPage, ...] = (
    # Tiers and their bands, the verdict, the inputs and their sources, what is never published.
    StaticPage("/about/score", "about_score.html"),
)


def render_static(site: SiteRenderer, page: StaticPage, dates: Mapping[str, str | None]) -> bytes:
    """Given the site's renderer, a static page and the snapshot's dates (``snapshot_date``,
    ``prices_as_of``), return the page's HTML (UTF-8 bytes)."""
    return site.env.get_template(page.template).render(dates=dates).encode()
