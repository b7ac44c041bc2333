"""Query validation (docs/API.md#limits): given a request's raw query items, return typed
values or raise :class:`BadRequest` naming every bad parameter and what it accepts.

Pure functions of ``[(name, value), ...]`` as the query string gave them, in order. Every bound
comes from :mod:`bangscore.contract.limits`, which the OpenAPI document states too: a value the
document forbids is refused here (``tests/contract/test_limits.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bangscore.contract.filters import Filters, price_text
from bangscore.contract.limits import (
    MAX_APPID_DIGITS,
    MAX_LOOKUP_APPIDS,
    MAX_PAGE,
    MAX_PRICE_USD,
    MAX_QUERY_LENGTH,
    MAX_TAG_LENGTH,
    MAX_TAGS,
    MAX_YEAR,
    MIN_PAGE,
    MIN_QUERY_LENGTH,
    MIN_YEAR,
)
from bangscore.errors import BadRequest, ParamError
from bangscore.scoring.genres import GENRES

_DIGITS = re.compile(r"[0-9]+")
# max_price: dollars with at most two decimals, no sign, no exponent, no spaces.
_PRICE = re.compile(r"([0-9]{1,4})(?:\.([0-9]{1,2}))?")
PRICE_ACCEPTS = (
    f"a price in US dollars from 0 to {MAX_PRICE_USD}, at most two decimals, such as 9.99"
)
_MERGED = frozenset({"genre", "tag"})

Items = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class ListQuery:
    """A valid ``GET /api/v1/games`` query: filters and page."""

    filters: Filters
    page: int


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A valid ``GET /api/v1/search`` query: trimmed text, page and price cap (cents)."""

    q: str
    page: int
    max_price_cents: int | None = None

    def to_query(self) -> dict[str, str]:
        """Return the canonical parameters without the page: ``q`` and, when set,
        ``max_price`` (what Link headers and the website's links carry)."""
        out = {"q": self.q}
        if self.max_price_cents is not None:
            out["max_price"] = price_text(self.max_price_cents)
        return out


def _collect(
    items: Items, allowed: frozenset[str]
) -> tuple[dict[str, list[str]], list[ParamError]]:
    values: dict[str, list[str]] = {}
    errors: list[ParamError] = []
    unknown: set[str] = set()
    for name, value in items:
        if name not in allowed:
            if name not in unknown:  # named once, however often it is repeated
                unknown.add(name)
                errors.append(
                    ParamError(name, "unknown parameter; accepted: " + ", ".join(sorted(allowed)))
                )
            continue
        values.setdefault(name, []).append(value)
    for name, vals in values.items():
        if len(vals) > 1 and name not in _MERGED:
            errors.append(ParamError(name, "given more than once; send it once"))
    return values, errors


def bounded_integer(raw: str, low: int, high: int) -> int | None:
    """Given a raw query value and inclusive bounds (0 <= low <= high), return its value, or
    None unless it is ASCII decimal digits (no sign, no spaces) whose value is within bounds.

    Leading zeros are allowed and read in base 10 (``0999`` is 999), as an OpenAPI client reads
    an integer parameter; the digit count is checked before ``int()``, which would raise on
    (and spend time over) a 4,301-digit string.
    """
    if not _DIGITS.fullmatch(raw):
        return None
    significant = raw.lstrip("0") or "0"
    if len(significant) > len(str(high)):
        return None
    value = int(significant)
    return value if low <= value <= high else None


def _page(values: dict[str, list[str]], errors: list[ParamError]) -> int:
    raw = values.get("page", [str(MIN_PAGE)])[0]
    page = bounded_integer(raw, MIN_PAGE, MAX_PAGE)
    if page is None:
        errors.append(ParamError("page", f"an integer from {MIN_PAGE} to {MAX_PAGE}"))
        return MIN_PAGE
    return page


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",")]


def _year(values: dict[str, list[str]], name: str, errors: list[ParamError]) -> int | None:
    if name not in values:
        return None
    year = bounded_integer(values[name][0], MIN_YEAR, MAX_YEAR)
    if year is None:
        errors.append(ParamError(name, f"a year from {MIN_YEAR} to {MAX_YEAR}, such as 2015"))
    return year


def price_cents(raw: str) -> int | None:
    """Given a raw ``max_price`` value, return it in cents, or None unless it is 1 to 4 ASCII
    digits with at most two decimals after a dot, from 0 to MAX_PRICE_USD (``9.99``, ``10``,
    ``10.5`` is 1050 cents; ``1e3``, ``-1``, ``10.`` and ``1000.01`` are None)."""
    match = _PRICE.fullmatch(raw)
    if match is None:
        return None
    cents = int(match.group(1)) * 100 + int((match.group(2) or "0").ljust(2, "0"))
    return cents if cents <= MAX_PRICE_USD * 100 else None


def _max_price(values: dict[str, list[str]], errors: list[ParamError]) -> int | None:
    if "max_price" not in values:
        return None
    cents = price_cents(values["max_price"][0])
    if cents is None:
        errors.append(ParamError("max_price", PRICE_ACCEPTS))
    return cents


def parse_list_query(items: Items) -> ListQuery:
    """Given the raw query items of ``GET /api/v1/games``, return the ListQuery.

    Raises BadRequest for an unknown or repeated parameter or a bad value.
    """
    allowed = frozenset(
        {"genre", "tag", "year_from", "year_to", "on_sale", "max_price", "page", "api_key"}
    )
    values, errors = _collect(items, allowed)
    genres: set[str] = set()
    if "genre" in values:
        for part in _split(values["genre"]):
            # ASCII first: str.lower() maps a few other letters onto ASCII ones (the Kelvin
            # sign onto k), which the documented pattern, ASCII letters in either case, refuses.
            if not part.isascii() or part.lower() not in GENRES:
                errors.append(ParamError("genre", "comma-separated, any of: " + ", ".join(GENRES)))
                break
            genres.add(part.lower())
    tags: set[str] = set()
    if "tag" in values:
        parts = _split(values["tag"])
        if any(not p or len(p) > MAX_TAG_LENGTH for p in parts):
            errors.append(
                ParamError("tag", f"comma-separated tags of 1-{MAX_TAG_LENGTH} characters")
            )
        tags = {p.lower() for p in parts}
        # Counted as sent, not after merging duplicates, so the documented pattern can state it.
        if len(parts) > MAX_TAGS:
            errors.append(ParamError("tag", f"at most {MAX_TAGS} tags"))
    year_from = _year(values, "year_from", errors)
    # year_from > year_to is no error: a range no game is in, an empty page (issue 48: a rule
    # between two parameters is one no generated client can read from the OpenAPI document).
    year_to = _year(values, "year_to", errors)
    on_sale = False
    if "on_sale" in values:
        raw = values["on_sale"][0]
        if not raw.isascii() or raw.lower() != "true":
            errors.append(ParamError("on_sale", "only the value true (in any case)"))
        on_sale = True
    max_price = _max_price(values, errors)
    page = _page(values, errors)
    if errors:
        raise BadRequest(errors)
    filters = Filters(
        frozenset(genres), frozenset(tags), year_from, year_to, on_sale, max_price_cents=max_price
    )
    return ListQuery(filters, page)


def parse_search_query(items: Items) -> SearchQuery:
    """Given the raw query items of ``GET /api/v1/search``, return the SearchQuery.

    Raises BadRequest when ``q`` is missing or not MIN_QUERY_LENGTH to MAX_QUERY_LENGTH
    (1-100) characters after trimming, or ``max_price`` is not a price from 0 to
    MAX_PRICE_USD with at most two decimals.
    """
    values, errors = _collect(items, frozenset({"q", "max_price", "page", "api_key"}))
    q = values.get("q", [""])[0].strip()
    if not MIN_QUERY_LENGTH <= len(q) <= MAX_QUERY_LENGTH:
        errors.append(
            ParamError(
                "q",
                f"required: {MIN_QUERY_LENGTH} to {MAX_QUERY_LENGTH} characters after trimming",
            )
        )
    max_price = _max_price(values, errors)
    page = _page(values, errors)
    if errors:
        raise BadRequest(errors)
    return SearchQuery(q, page, max_price)


def parse_lookup_query(items: Items) -> tuple[int, ...]:
    """Given the raw query items of ``GET /api/v1/lookup``, return the appids asked, each once,
    in the order first asked (docs/API.md#lookup).

    Raises BadRequest naming ``appids`` when it is missing, repeated, holds an empty item or
    one that is not 1 to MAX_APPID_DIGITS (12) ASCII digits, or more than MAX_LOOKUP_APPIDS
    (100) items counted as sent; and for any parameter but ``appids`` and ``api_key``.
    """
    values, errors = _collect(items, frozenset({"appids", "api_key"}))
    parts = _split(values.get("appids", []))
    if any(e.parameter == "appids" for e in errors):
        pass  # repeated: named once
    elif not parts:
        errors.append(ParamError("appids", "required: a comma list of 1 to 100 appids"))
    elif len(parts) > MAX_LOOKUP_APPIDS:
        errors.append(
            ParamError("appids", f"at most {MAX_LOOKUP_APPIDS} appids, given {len(parts)}")
        )
    elif any(len(p) > MAX_APPID_DIGITS or not _DIGITS.fullmatch(p) for p in parts):
        errors.append(
            ParamError("appids", f"comma-separated appids of 1-{MAX_APPID_DIGITS} decimal digits")
        )
    if errors:
        raise BadRequest(errors)
    return tuple(dict.fromkeys(int(p) for p in parts))


def parse_plain_query(items: Items) -> None:
    """Given the raw query items of an endpoint taking only ``api_key``, raise on any other."""
    _, errors = _collect(items, frozenset({"api_key"}))
    if errors:
        raise BadRequest(errors)


def parse_appid(raw: str) -> int:
    """Given the appid path segment, return it as an int; BadRequest unless it is 1 to
    MAX_APPID_DIGITS (12) ASCII decimal digits."""
    if len(raw) > MAX_APPID_DIGITS or not _DIGITS.fullmatch(raw):
        raise BadRequest([ParamError("appid", "decimal digits, e.g. 620")])
    return int(raw)
