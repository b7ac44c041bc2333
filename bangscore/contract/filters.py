"""List filters (docs/API.md#list-games) and which combinations the builder precomputes.

:class:`Filters` is the canonical, validated form of a list query's filters, shared by the
builder (which writes a page set per precomputed combination) and the shim (which serves
those files or composes any other combination from the compact index).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bangscore.scoring.genres import GENRES


@dataclass(frozen=True, slots=True)
class Filters:
    """Canonical list filters: genre set (OR), tags (AND, lowercase), inclusive years, on_sale,
    the price cap in cents (``max_price``: ``price_usd`` at most that, inclusive; None: no
    cap) and whether adult games are listed.

    ``adult`` is the website's toggle (``adult=true``, docs/API.md#website): the website lists
    adult games only when the visitor turns them on; the API never filters on it and always
    lists them (with their ``adult`` flag), so every API query has ``adult=True``.
    """

    genres: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    year_from: int | None = None
    year_to: int | None = None
    on_sale: bool = False
    adult: bool = True
    max_price_cents: int | None = None

    @property
    def combo_key(self) -> str | None:
        """Return the folder name of this combination if the builder precomputes it, else None.

        Precomputed: no filter (``all``), one genre (``genre-rpg``), ``on_sale``, and one genre
        with on_sale (``genre-rpg+on_sale``), each also without adult games (the website's
        default: ``no_adult``, ``genre-rpg+on_sale+no_adult``).
        """
        if self.tags or self.year_from is not None or self.year_to is not None:
            return None
        if self.max_price_cents is not None:
            return None
        if len(self.genres) > 1:
            return None
        parts = [f"genre-{g}" for g in self.genres] + (["on_sale"] if self.on_sale else [])
        parts += [] if self.adult else ["no_adult"]
        return "+".join(parts) or "all"

    def to_query(self) -> dict[str, str]:
        """Return the filters as canonical query parameters (sorted lists, only those set): what
        ``Link`` headers and the website's paging links carry."""
        query: dict[str, str] = {}
        if self.genres:
            query["genre"] = ",".join(sorted(self.genres))
        if self.tags:
            query["tag"] = ",".join(sorted(self.tags))
        if self.year_from is not None:
            query["year_from"] = str(self.year_from)
        if self.year_to is not None:
            query["year_to"] = str(self.year_to)
        if self.on_sale:
            query["on_sale"] = "true"
        if self.max_price_cents is not None:
            query["max_price"] = price_text(self.max_price_cents)
        return query

    def matches(
        self,
        genre: str,
        year: int | None,
        discount_percent: float,
        tags: frozenset[str],
        adult: bool = False,
        price_cents: int = 0,
    ) -> bool:
        """Given one game's genre, release year, discount, lowercase tags, adult flag and
        price in cents, return a match.

        This is the reference semantics; the shim's vectorised index must agree with it.
        """
        if adult and not self.adult:
            return False
        if self.genres and genre not in self.genres:
            return False
        if self.on_sale and not discount_percent > 0:
            return False
        if self.max_price_cents is not None and price_cents > self.max_price_cents:
            return False
        if self.year_from is not None and (year is None or year < self.year_from):
            return False
        if self.year_to is not None and (year is None or year > self.year_to):
            return False
        return self.tags <= tags


def price_text(cents: int) -> str:
    """Given a price in cents, return it as ``max_price`` is written in links: whole dollars
    without decimals (``10``), else two decimals (``9.99``)."""
    dollars, rest = divmod(cents, 100)
    return str(dollars) if rest == 0 else f"{dollars}.{rest:02d}"


def precomputed_combos() -> Iterator[Filters]:
    """Yield every precomputed combination: none, each genre, on_sale, each genre + on_sale;
    each with adult games (the API's lists) and without (the website's default)."""
    for adult in (True, False):
        for on_sale in (False, True):
            yield Filters(on_sale=on_sale, adult=adult)
            for genre in GENRES:
                yield Filters(genres=frozenset({genre}), on_sale=on_sale, adult=adult)


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
ROOT_KEY = "api/v1/index.json"
OPENAPI_KEY = "api/v1/openapi.json"
DOCS_KEY = "site/docs.html"
HOME_KEY = "site/index.html"
# The home page with adult games listed (``/?adult=true``), its links keeping the toggle.
HOME_ADULT_KEY = "site/index-adult.html"
FAVICON_KEY = "site/favicon.svg"
# The site's one stylesheet, linked from every page (``/style.css?v=<digest>``), not inlined.
STYLE_KEY = "site/style.css"
ABOUT_SCORE_KEY = "site/about/score.html"
# The snapshot's dates as pages show them: {"snapshot_date": "YYYY-MM-DD", "prices_as_of": ...}.
DATES_KEY = "site/dates.json"


def badge_key(appid: int) -> str:
    """Given an appid, return the key of its badge (``/badge/<appid>.svg``)."""
    return f"site/badge/{appid}.svg"
