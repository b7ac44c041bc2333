"""Query validation (CONTRACT.md): given a request's raw query items, return typed values or
raise :class:`BadRequest` naming every bad parameter and what it accepts.

Pure functions of ``[(name, value), ...]`` as the query string gave them, in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bangscore.build.filters import Filters
from bangscore.scoring.genres import GENRES
from bangscore.shim.problems import BadRequest, ParamError

MAX_TAGS = 20
MAX_TAG_LENGTH = 64
MAX_PAGE = 1_000_000_000
MAX_QUERY = 100
_YEAR = re.compile(r"[0-9]{4}")
_DIGITS = re.compile(r"[0-9]+")
_MERGED = frozenset({"genre", "tag"})

Items = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class ListQuery:
    """A valid ``GET /api/v1/games`` query: filters and page."""

    filters: Filters
    page: int


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A valid ``GET /api/v1/search`` query: trimmed text and page."""

    q: str
    page: int


def _collect(
    items: Items, allowed: frozenset[str]
) -> tuple[dict[str, list[str]], list[ParamError]]:
    values: dict[str, list[str]] = {}
    errors: list[ParamError] = []
    for name, value in items:
        if name not in allowed:
            errors.append(
                ParamError(name, "unknown parameter; accepted: " + ", ".join(sorted(allowed)))
            )
            continue
        values.setdefault(name, []).append(value)
    for name, vals in values.items():
        if len(vals) > 1 and name not in _MERGED:
            errors.append(ParamError(name, "given more than once; send it once"))
    return values, errors


def _page(values: dict[str, list[str]], errors: list[ParamError]) -> int:
    raw = values.get("page", ["1"])[0]
    # The length first: int() of a 4,301-digit string raises (and costs) before any bound.
    if len(raw) > len(str(MAX_PAGE)) or not _DIGITS.fullmatch(raw) or not 1 <= int(raw) <= MAX_PAGE:
        errors.append(ParamError("page", f"an integer from 1 to {MAX_PAGE}"))
        return 1
    return int(raw)


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",")]


def _year(values: dict[str, list[str]], name: str, errors: list[ParamError]) -> int | None:
    if name not in values:
        return None
    raw = values[name][0].strip()
    if not _YEAR.fullmatch(raw):
        errors.append(ParamError(name, "a four-digit year such as 2015"))
        return None
    return int(raw)


def parse_list_query(items: Items) -> ListQuery:
    """Given the raw query items of ``GET /api/v1/games``, return the ListQuery.

    Raises BadRequest for an unknown or repeated parameter or a bad value.
    """
    allowed = frozenset({"genre", "tag", "year_from", "year_to", "on_sale", "page", "api_key"})
    values, errors = _collect(items, allowed)
    genres: set[str] = set()
    if "genre" in values:
        for part in _split(values["genre"]):
            if part.lower() not in GENRES:
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
    year_to = _year(values, "year_to", errors)
    if year_from is not None and year_to is not None and year_from > year_to:
        errors.append(ParamError("year_from", "must not be greater than year_to"))
    on_sale = False
    if "on_sale" in values:
        if values["on_sale"][0].lower() != "true":
            errors.append(ParamError("on_sale", "only the value true"))
        on_sale = True
    page = _page(values, errors)
    if errors:
        raise BadRequest(errors)
    return ListQuery(Filters(frozenset(genres), frozenset(tags), year_from, year_to, on_sale), page)


def parse_search_query(items: Items) -> SearchQuery:
    """Given the raw query items of ``GET /api/v1/search``, return the SearchQuery.

    Raises BadRequest when ``q`` is missing or not 1-100 characters after trimming.
    """
    values, errors = _collect(items, frozenset({"q", "page", "api_key"}))
    q = values.get("q", [""])[0].strip()
    if not 1 <= len(q) <= MAX_QUERY:
        errors.append(ParamError("q", f"required: 1 to {MAX_QUERY} characters after trimming"))
    page = _page(values, errors)
    if errors:
        raise BadRequest(errors)
    return SearchQuery(q, page)


def parse_plain_query(items: Items) -> None:
    """Given the raw query items of an endpoint taking only ``api_key``, raise on any other."""
    _, errors = _collect(items, frozenset({"api_key"}))
    if errors:
        raise BadRequest(errors)


def parse_appid(raw: str) -> int:
    """Given the appid path segment, return it as an int; BadRequest unless decimal digits."""
    if len(raw) > 12 or not _DIGITS.fullmatch(raw):
        raise BadRequest([ParamError("appid", "decimal digits, e.g. 620")])
    return int(raw)
