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
from typing import TypeVar

from bangscore.contract.filters import MAX_PRICE, Filters, crossed_years, list_filters
from bangscore.contract.limits import (
    MAX_APPID_DIGITS,
    MAX_LOOKUP_APPIDS,
    MAX_PAGE,
    MAX_QUERY_LENGTH,
    MIN_PAGE,
    MIN_QUERY_LENGTH,
)
from bangscore.contract.list_filter import ListFilter, bounded_integer, split
from bangscore.errors import BadRequest, FilterValueRefused, ParamError

_DIGITS = re.compile(r"[0-9]+")

Items = Sequence[tuple[str, str]]
T = TypeVar("T")


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
            out[MAX_PRICE.name] = MAX_PRICE.text(self.max_price_cents)
        return out


def _collect(
    items: Items, allowed: frozenset[str], merged: frozenset[str] = frozenset()
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
        if len(vals) > 1 and name not in merged:
            errors.append(ParamError(name, "given more than once; send it once"))
    return values, errors


def _page(values: dict[str, list[str]], errors: list[ParamError]) -> int:
    raw = values.get("page", [str(MIN_PAGE)])[0]
    page = bounded_integer(raw, MIN_PAGE, MAX_PAGE)
    if page is None:
        errors.append(ParamError("page", f"an integer from {MIN_PAGE} to {MAX_PAGE}"))
        return MIN_PAGE
    return page


def _read(spec: ListFilter[T], values: dict[str, list[str]], errors: list[ParamError]) -> T | None:
    if spec.name not in values:
        return None
    try:
        return spec.parse(values[spec.name])
    except FilterValueRefused as refused:
        errors.extend(ParamError(spec.name, message) for message in refused.messages)
        return None


def parse_list_query(items: Items) -> ListQuery:
    """Given the raw query items of ``GET /api/v1/games``, return the ListQuery: each list
    filter (:data:`bangscore.contract.filters.LIST_FILTERS`) read by its own declaration, in
    the table's order, then ``page``.

    Raises BadRequest for an unknown or repeated parameter or a bad value, and naming both
    ends of a crossed year range (:func:`~bangscore.contract.filters.crossed_years`;
    docs/API.md#list-games; the schemathesis run is taught it by a hook: issue 55).
    """
    table = list_filters()
    allowed = frozenset({*(f.name for f in table), "page", "api_key"})
    values, errors = _collect(items, allowed, frozenset(f.name for f in table if f.merged))
    chosen = tuple((spec, _read(spec, values, errors)) for spec in table)
    crossed = crossed_years({spec.name: value for spec, value in chosen})
    errors.extend(ParamError(name, reason) for name, reason in crossed)
    page = _page(values, errors)
    if errors:
        raise BadRequest(errors)
    return ListQuery(Filters(chosen), page)


def parse_search_query(items: Items) -> SearchQuery:
    """Given the raw query items of ``GET /api/v1/search``, return the SearchQuery.

    Raises BadRequest when ``q`` is missing or not MIN_QUERY_LENGTH to MAX_QUERY_LENGTH
    (1-100) characters after trimming, or ``max_price`` is not a price from 0 to
    MAX_PRICE_USD with at most two decimals.
    """
    values, errors = _collect(items, frozenset({"q", MAX_PRICE.name, "page", "api_key"}))
    q = values.get("q", [""])[0].strip()
    if not MIN_QUERY_LENGTH <= len(q) <= MAX_QUERY_LENGTH:
        errors.append(
            ParamError(
                "q",
                f"required: {MIN_QUERY_LENGTH} to {MAX_QUERY_LENGTH} characters after trimming",
            )
        )
    cap = _read(MAX_PRICE, values, errors)
    page = _page(values, errors)
    if errors:
        raise BadRequest(errors)
    return SearchQuery(q, page, cap)


def parse_lookup_query(items: Items) -> tuple[int, ...]:
    """Given the raw query items of ``GET /api/v1/lookup``, return the appids asked, each once,
    in the order first asked (docs/API.md#lookup).

    Raises BadRequest naming ``appids`` when it is missing, repeated, holds an empty item or
    one that is not 1 to MAX_APPID_DIGITS (12) ASCII digits, or more than MAX_LOOKUP_APPIDS
    (100) items counted as sent; and for any parameter but ``appids`` and ``api_key``.
    """
    values, errors = _collect(items, frozenset({"appids", "api_key"}))
    parts = split(values.get("appids", []))
    if any(e.parameter == "appids" for e in errors):
        pass  # repeated: named once
    elif not parts:
        errors.append(ParamError("appids", "required: a comma list of 1 to 100 appids"))
    elif len(parts) > MAX_LOOKUP_APPIDS:
        errors.append(
            ParamError("appids", f"at most {MAX_LOOKUP_APPIDS} appids, given {len(parts)}")
        )
    elif (bad := _first_bad_appid(parts)) is not None:
        errors.append(
            ParamError(
                "appids", f"comma-separated appids of 1-{MAX_APPID_DIGITS} decimal digits; {bad}"
            )
        )
    if errors:
        raise BadRequest(errors)
    return tuple(dict.fromkeys(int(p) for p in parts))


def _first_bad_appid(parts: list[str]) -> str | None:
    """Given a lookup's items, return what is wrong with the first bad one, named by its
    place (issue 56: the 400 did not say which of 100 items it refused), or None."""
    for place, part in enumerate(parts, 1):
        if not part:
            return f"item {place} is empty"
        if not _DIGITS.fullmatch(part):
            # ascii(): quoted, anything but printable ASCII escaped, so the echo is inert.
            shown = ascii(part[:16]) + ("..." if len(part) > 16 else "")
            return f"item {place} is {shown}, not decimal digits"
        if len(part) > MAX_APPID_DIGITS:
            return f"item {place} has {len(part)} digits"
    return None


MAX_SINCE_LENGTH = 64


def parse_changes_query(items: Items) -> tuple[str, int]:
    """Given the raw query items of ``GET /api/v1/changes``, return (since, page). Raises
    BadRequest naming ``since`` when it is missing or not 1-64 characters of letters, digits,
    ``T``, ``Z`` and ``-``, ``page`` when out of bounds, and any other parameter."""
    values, errors = _collect(items, frozenset({"since", "page", "api_key"}))
    page = _page(values, errors)
    since = values.get("since", [""])[0]
    if "since" not in values:
        errors.append(ParamError("since", "required: a snapshot id, e.g. 20261202T031500Z-9f2c"))
    elif not (
        0 < len(since) <= MAX_SINCE_LENGTH
        and since.replace("-", "").isascii()
        and since.replace("-", "").isalnum()
    ):
        errors.append(ParamError("since", "a snapshot id: letters, digits and '-'"))
    if errors:
        raise BadRequest(errors)
    return since, page


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
