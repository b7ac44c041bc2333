"""The list envelope (docs/API.md#pagination), shared by the builder and the shim so their
bytes are equal.

A list page is assembled from already-serialized list items, so the shim composes a filtered
page with a join and no JSON encoding of games at request time.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from bangscore.contract.limits import PAGE_SIZE


def page_count(total: int) -> int:
    """Given a number of matching games, return ceil(total / PAGE_SIZE) (0 when none match)."""
    return -(-total // PAGE_SIZE)


def page_bounds(page: int) -> tuple[int, int]:
    """Given a 1-based page number, return the [start, stop) indexes of its games."""
    start = (page - 1) * PAGE_SIZE
    return start, start + PAGE_SIZE


def page_rels(page: int, pages: int) -> list[tuple[str, int]]:
    """Given the current page and the page count, return the (relation, page) links that exist:
    ``first``, ``prev``, ``next``, ``last`` (RFC 8288 relation names), none when pages is 0."""
    rels: list[tuple[str, int]] = []
    if pages >= 1:
        rels.append(("first", 1))
        if page > 1:
            rels.append(("prev", min(page - 1, pages)))
        if page < pages:
            rels.append(("next", page + 1))
        rels.append(("last", pages))
    return rels


def render_page(
    items: Sequence[bytes],
    page: int,
    total: int,
    query: str | None = None,
    prices_as_of: str | None = None,
) -> bytes:
    """Given the page's serialized items, its number, the total, the search query (or None)
    and the catalog's ``prices_as_of`` (RFC 3339, or None for a catalog without it), return
    the envelope bytes.

    Shape: ``{"query"?, "page", "pages", "prices_as_of", "total", "games": [...]}``; ``query``
    only for search.
    """
    head = b'{"query":' + orjson.dumps(query) + b"," if query is not None else b"{"
    return b"".join(
        (
            head,
            b'"page":%d,"pages":%d,"prices_as_of":' % (page, page_count(total)),
            # Before "total": the shim reads the total just ahead of "games" without parsing.
            orjson.dumps(prices_as_of) + b',"total":%d,"games":[' % total,
            b",".join(items),
            b"]}",
        )
    )
