"""The snapshot's object keys: where each stored object of a snapshot lives inside it (list
pages, detail records, the website's pages, the indexes, the API's documents), shared by the
builder that writes them and the shim that serves them.
"""

from __future__ import annotations


def list_key(combo_key: str, page: int) -> str:
    """Given a combination folder and a 1-based page, return its key inside a snapshot."""
    return f"lists/{combo_key}/{page}.json"


def detail_key(appid: int) -> str:
    """Given an appid, return the key of its detail record inside a snapshot."""
    return f"games/{appid}.json"


def game_page_key(appid: int) -> str:
    """Given an appid, return the key of its rendered HTML page inside a snapshot."""
    return f"site/game/{appid}.html"


# The compact index (bangscore.contract.compact's binary layout); builds before it wrote JSON.
INDEX_KEY = "index/games.bin"
LEGACY_INDEX_KEY = "index/games.json"
SEARCH_KEY = "index/search.json"
NOT_RATED_KEY = "index/not_rated.json"
# The name search index over the apps of NOT_RATED_KEY (not_rated.not_rated_search): built by the
# builder, so a replica loads it rather than indexing 145,000 names itself.
NOT_RATED_SEARCH_KEY = "index/not_rated_search.json"
ROOT_KEY = "api/v1/index.json"
OPENAPI_KEY = "api/v1/openapi.json"
DOCS_KEY = "site/docs.html"
HOME_KEY = "site/index.html"
# The home page with adult games listed (``/?adult=true``), its links keeping the toggle.
HOME_ADULT_KEY = "site/index-adult.html"
FAVICON_KEY = "site/favicon.svg"
# The site's one stylesheet, linked from every page (``/style.css?v=<digest>``), not inlined.
STYLE_KEY = "site/style.css"
# The snapshot's dates as pages show them: {"snapshot_date": "YYYY-MM-DD", "prices_as_of": ...}.
DATES_KEY = "site/dates.json"


def static_page_key(path: str) -> str:
    """Given a static page's path on the site (``/about/score``), return its key inside a
    snapshot (``site/about/score.html``; :data:`bangscore.site.static_pages.STATIC_PAGES`)."""
    return f"site{path}.html"


def badge_key(appid: int) -> str:
    """Given an appid, return the key of its badge (``/badge/<appid>.svg``)."""
    return f"site/badge/{appid}.svg"
