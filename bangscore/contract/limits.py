"""Every bound the API puts on a request parameter, and the page size, in one place.

The shim's parameter checks (:mod:`bangscore.shim.params`, the website's pages through them)
and the OpenAPI document (:mod:`bangscore.build.openapi`, from the route table in
:mod:`bangscore.contract.api`) both read these figures, and the reference states them
(docs/API.md#limits); ``tests/contract/test_limits.py`` checks that the parser and the document
agree at and just past every bound, and that docs/API.md states the same numbers.

The rules the figures belong to:

* an integer parameter (``page``, ``year_from``, ``year_to``) is ASCII decimal digits only, no
  sign and no spaces, read in base 10 (leading zeros allowed: ``0999`` is 999, so it is refused
  as a year); its value must lie within the bounds;
* a text parameter (``q``, each ``tag``) is measured in Unicode code points after trimming the
  whitespace around it (what Python's ``str.strip`` removes).
"""

from __future__ import annotations

from typing import Final

PAGE_SIZE: Final[int] = 10
"""Games per page of ``GET /api/v1/games`` and ``GET /api/v1/search`` (the last page may
hold fewer); ``pages`` = ceil(total / PAGE_SIZE)."""

MIN_PAGE: Final[int] = 1
"""The first page: ``page`` is 1-based, and 1 when the parameter is left out."""

MAX_PAGE: Final[int] = 1_000_000_000
"""The highest ``page`` accepted. Pages past the last answer 200 with an empty ``games`` list;
the bound only keeps the number a plain integer everywhere (JSON, SQL, NumPy)."""

MIN_YEAR: Final[int] = 1000
"""The lowest ``year_from`` / ``year_to``: the smallest four-digit year."""

MAX_YEAR: Final[int] = 9999
"""The highest ``year_from`` / ``year_to``: the largest four-digit year."""

MAX_TAGS: Final[int] = 20
"""Tags one ``GET /api/v1/games`` request may require, counted as sent over every ``tag``
parameter (repeated parameters merge), duplicates included. The storefront keeps at most 20
tags per game, so a 21st could never match."""

MAX_TAG_LENGTH: Final[int] = 64
"""Characters of one tag after trimming (storefront tag names are far shorter); a tag has at
least 1."""

MIN_QUERY_LENGTH: Final[int] = 1
"""Characters of the search ``q`` after trimming, at least: a blank ``q`` is refused."""

MAX_QUERY_LENGTH: Final[int] = 100
"""Characters of the search ``q`` after trimming, at most. A few names are longer (117 in the
2026 catalog), and their first words find them: every query word matches a prefix."""

MAX_APPID_DIGITS: Final[int] = 12
"""Digits of the ``appid`` path segment, at most: storefront appids have 7 today, and the
bound keeps a lookup from parsing an arbitrarily long number."""

MAX_LINK_EXPIRES_DIGITS: Final[int] = 12
"""Digits of the ``expires`` parameter (Unix seconds) of a signed export download link."""

MAX_LOOKUP_APPIDS: Final[int] = 100
"""Appids one ``GET /api/v1/lookup`` may ask for, counted as sent (a repeat counts): a
wishlist of 300 games is 3 requests. More is a 400 naming ``appids``."""

MAX_PRICE_USD: Final[int] = 1000
"""The highest ``max_price`` (US dollars, at most two decimals); the lowest is 0 (free games)."""

MAX_MIN_REVIEWS: Final[int] = 10_000_000
"""The highest ``min_reviews`` (a whole number of reviews); the lowest is 0."""
