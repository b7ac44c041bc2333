"""The website's route table (docs/API.md#website): the pages (:mod:`bangscore.shim.pages`,
:mod:`bangscore.shim.browse`, :mod:`bangscore.shim.game_page`), the "rate a list" page
(:mod:`bangscore.shim.rate`) and the small files (:mod:`bangscore.shim.assets`), in the order
Starlette matches them.
"""

from __future__ import annotations

from starlette.routing import Route

from bangscore.shim.assets import badge, favicon, og_card, stylesheet
from bangscore.shim.browse import browse, search
from bangscore.shim.game_page import game
from bangscore.shim.pages import docs, home, static_page
from bangscore.shim.push import feed
from bangscore.shim.rate import rate
from bangscore.site import static_pages


def routes() -> list[Route]:
    """Return the website's routes: the pages, one per static page of
    :data:`bangscore.site.static_pages.STATIC_PAGES` (read now), and the small files."""
    return [
        Route("/", home),
        Route("/rate", rate),
        Route("/docs", docs),
        *(Route(page.path, static_page(page)) for page in static_pages.STATIC_PAGES),
        Route("/badge/{appid}.svg", badge),
        Route("/docs/errors", docs),
        Route("/feeds/{name:path}", feed),
        Route("/games", browse),
        Route("/search", search),
        Route("/game/{appid}", game),
        Route("/game/{appid}/{slug}", game),
        Route("/favicon.svg", favicon),
        Route("/favicon.ico", favicon),
        Route("/og-card.png", og_card),
        Route("/style.css", stylesheet),
    ]
