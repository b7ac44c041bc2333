"""The API's route table, and the two documents generated from it: the root listing
(``GET /api/v1``) and the OpenAPI 3.1 document (``GET /api/v1/openapi.json``).

One table feeds both, so the listing, the OpenAPI document, the docs page and the shim's
parameter checks cannot drift apart; the list's filter parameters come from the list filters'
declarations (:data:`bangscore.contract.filters.LIST_FILTERS`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bangscore.contract.filters import MAX_PRICE, list_filters
from bangscore.contract.limits import (
    MAX_APPID_DIGITS,
    MAX_LOOKUP_APPIDS,
    MAX_PAGE,
    MAX_QUERY_LENGTH,
    MIN_PAGE,
    MIN_QUERY_LENGTH,
    PAGE_SIZE,
)
from bangscore.contract.list_filter import ListFilter
from bangscore.contract.patterns import SPACES, WS

API_VERSION = "1.3.0"
API_PREFIX = "/api/v1"
ATTRIBUTION_TEXT = "Game value ratings by BangScore"


@dataclass(frozen=True, slots=True)
class Param:
    """One request parameter as the listing shows it (name, in, type, required, description)."""

    name: str
    location: str
    type: str
    description: str
    required: bool = False
    schema: dict[str, Any] = field(default_factory=dict)

    def listing(self) -> dict[str, Any]:
        """Return this parameter as the root listing shows it."""
        return {
            "name": self.name,
            "in": self.location,
            "type": self.type,
            "required": self.required,
            "description": self.description,
        }


@dataclass(frozen=True, slots=True)
class Route:
    """One endpoint: method, path, description, whether it needs a key, params, responses."""

    name: str
    path: str
    description: str
    auth: bool
    params: tuple[Param, ...]
    response_schema: str
    statuses: tuple[int, ...]
    method: str = "GET"


# Patterns state what the shim's parameter checks accept (bangscore.contract.patterns).
# q: MIN_QUERY_LENGTH (1) to MAX_QUERY_LENGTH characters from the first to the last non-space
# one; [\s\S] is any character in every regex dialect (a dot misses line breaks).
QUERY_PATTERN = f"^{WS}[^{SPACES}]([\\s\\S]{{0,{MAX_QUERY_LENGTH - 2}}}[^{SPACES}])?{WS}$"
# appids: 1 to MAX_LOOKUP_APPIDS items of 1 to MAX_APPID_DIGITS digits, spaces around items.
_APPID = f"{WS}[0-9]{{1,{MAX_APPID_DIGITS}}}{WS}"
APPIDS_PATTERN = f"^{_APPID}(,{_APPID}){{0,{MAX_LOOKUP_APPIDS - 1}}}$"
API_KEY_PARAM = Param(
    "api_key",
    "query",
    "string",
    "API key, as an alternative to the Authorization: Bearer header (which wins if both are sent)",
    schema={"type": "string"},
)
PAGE_PARAM = Param(
    "page",
    "query",
    "integer",
    f"1-based page number from {MIN_PAGE} to {MAX_PAGE:,} (default {MIN_PAGE}), {PAGE_SIZE} "
    "games per page; a page past the last returns an empty games list",
    schema={"type": "integer", "minimum": MIN_PAGE, "maximum": MAX_PAGE, "default": MIN_PAGE},
)


def filter_param(spec: ListFilter[Any]) -> Param:
    """Given a list filter, return its query parameter as the listing and document state it."""
    return Param(spec.name, "query", spec.wire_type, spec.description, schema=dict(spec.schema))


def routes() -> tuple[Route, ...]:
    """Return the route table, the list's parameters read from the list filters when called
    (:func:`bangscore.contract.filters.list_filters`)."""
    list_params = (*map(filter_param, list_filters()), PAGE_PARAM, API_KEY_PARAM)
    return (
        Route(
            "root",
            API_PREFIX,
            "This listing of the API's endpoints",
            False,
            (),
            "Root",
            (200, 304, 429),
        ),
        Route(
            "openapi",
            f"{API_PREFIX}/openapi.json",
            "The OpenAPI 3.1 document of this API",
            False,
            (),
            "OpenAPI",
            (200, 304, 429),
        ),
        Route(
            "games",
            f"{API_PREFIX}/games",
            "Games ranked by bang_score, filtered and paginated",
            True,
            list_params,
            "GameList",
            (200, 304, 400, 401, 429),
        ),
        Route(
            "game",
            f"{API_PREFIX}/games/{{appid}}",
            "One game's detail record by storefront application id",
            True,
            (
                Param(
                    "appid",
                    "path",
                    "integer",
                    f"Storefront application id: 1 to {MAX_APPID_DIGITS} decimal digits",
                    required=True,
                    schema={
                        "type": "string",
                        "pattern": "^[0-9]+$",
                        "maxLength": MAX_APPID_DIGITS,
                        "examples": ["620"],
                    },
                ),
                API_KEY_PARAM,
            ),
            "GameDetail",
            (200, 304, 400, 401, 404, 429),
        ),
        Route(
            "search",
            f"{API_PREFIX}/search",
            "Games whose name matches the query, best match first, paginated",
            True,
            (
                Param(
                    "q",
                    "query",
                    "string",
                    f"The name to search for, {MIN_QUERY_LENGTH}-{MAX_QUERY_LENGTH} characters "
                    "after trimming",
                    required=True,
                    schema={"type": "string", "pattern": QUERY_PATTERN, "examples": ["portal"]},
                ),
                filter_param(MAX_PRICE),
                PAGE_PARAM,
                API_KEY_PARAM,
            ),
            "SearchResult",
            (200, 304, 400, 401, 429),
        ),
        Route(
            "lookup",
            f"{API_PREFIX}/lookup",
            f"Up to {MAX_LOOKUP_APPIDS} games by appid in one counted request: their list items "
            "in the order asked, and the appids not rated (with the reason) or not found",
            True,
            (
                Param(
                    "appids",
                    "query",
                    "string",
                    f"Comma-separated storefront appids, 1 to {MAX_LOOKUP_APPIDS} (counted as "
                    "sent, repeats included; a repeat is answered once), each 1 to "
                    f"{MAX_APPID_DIGITS} decimal digits",
                    required=True,
                    schema={
                        "type": "string",
                        "pattern": APPIDS_PATTERN,
                        "examples": ["620,10,570"],
                    },
                ),
                API_KEY_PARAM,
            ),
            "Lookup",
            (200, 304, 400, 401, 429),
        ),
        Route(
            "changes",
            f"{API_PREFIX}/changes",
            "The games whose score, tier, verdict or prices changed in each snapshot after "
            "since, oldest first, 100 a page (each page one counted request)",
            True,
            (
                Param(
                    "since",
                    "query",
                    "string",
                    "The id of the snapshot you last read (X-Snapshot, or the previous answer's "
                    "snapshot); 410 history_expired when older than the kept history",
                    required=True,
                    schema={
                        "type": "string",
                        "pattern": "^[A-Za-z0-9-]{1,64}$",
                        "examples": ["20261202T031500Z-9f2c"],
                    },
                ),
                PAGE_PARAM,
                API_KEY_PARAM,
            ),
            "ChangeFeed",
            (200, 304, 400, 401, 410, 429),
        ),
        Route(
            "usage",
            f"{API_PREFIX}/usage",
            "Your key's plan, today's count and the last 30 days; not counted",
            True,
            (API_KEY_PARAM,),
            "Usage",
            (200, 400, 401),
        ),
        Route(
            "export",
            f"{API_PREFIX}/export",
            "The latest Bulk export manifest with presigned download URLs (bulk keys only)",
            True,
            (API_KEY_PARAM,),
            "ExportManifest",
            (200, 400, 401, 403, 404, 429),
        ),
    )


def root_listing(
    site_url: str, base_url: str, prices_as_of: str | None = None, as_of: str | None = None
) -> dict[str, Any]:
    """Given the site and API base URLs, the catalog's ``prices_as_of`` (RFC 3339 or None) and
    the snapshot's day (``as_of``, ``YYYY-MM-DD`` or None), return the ``GET /api/v1`` body
    (docs/API.md#root-listing)."""
    return {
        "name": "BangScore",
        "version": API_VERSION,
        "prices_as_of": prices_as_of,
        "as_of": as_of,
        "documentation_url": f"{site_url}/docs",
        "openapi_url": f"{base_url}{API_PREFIX}/openapi.json",
        "attribution": {"required": True, "text": ATTRIBUTION_TEXT, "url": site_url},
        "endpoints": [
            {
                "method": r.method,
                "path": r.path,
                "description": r.description,
                "auth": r.auth,
                "parameters": [p.listing() for p in r.params],
            }
            for r in routes()
        ],
    }


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """One problem ``code``: its HTTP status, title and when it is used."""

    status: int
    title: str
    description: str


ERROR_CODES: dict[str, ErrorCode] = {
    "bad_request": ErrorCode(400, "Malformed request", "The request is not valid HTTP/1.1."),
    "invalid_parameter": ErrorCode(
        400, "Invalid parameter", "A query or path parameter is malformed, repeated or unknown."
    ),
    "missing_key": ErrorCode(401, "API key required", "No API key was sent."),
    "invalid_key": ErrorCode(401, "Invalid API key", "The key is malformed or unknown."),
    "revoked_key": ErrorCode(401, "API key revoked", "The key was revoked and cannot be used."),
    "insufficient_scope": ErrorCode(
        403, "Plan does not allow this", "The endpoint needs a key on another plan (bulk)."
    ),
    "not_found": ErrorCode(404, "Not found", "No resource at this path."),
    "game_not_found": ErrorCode(404, "Game not found", "No known app has this appid."),
    "game_not_rated": ErrorCode(
        404,
        "Game not rated",
        "A known app that is not rated; `reason` says why: delisted, too_few_reviews, "
        "no_usd_price, no_length, not_a_game, no_store_data, superseded (with superseded_by) "
        "or not_for_sale.",
    ),
    "history_expired": ErrorCode(
        410,
        "History expired",
        "`since` is older than the change history kept; `oldest` names the oldest snapshot "
        "that can be asked for. Read the games again, then follow the changes.",
    ),
    "method_not_allowed": ErrorCode(405, "Method not allowed", "Only GET (and HEAD) are served."),
    "request_timeout": ErrorCode(
        408, "Request timeout", "The request head did not arrive in time (10 s by default)."
    ),
    "precondition_failed": ErrorCode(
        412,
        "Precondition failed",
        "The If-Match of an export download names another version of the file.",
    ),
    "uri_too_long": ErrorCode(414, "URI too long", "The request target is over 16 KiB."),
    "range_not_satisfiable": ErrorCode(
        416,
        "Range not satisfiable",
        "The byte range asked of an export download starts past the end of the file.",
    ),
    "header_too_large": ErrorCode(
        431,
        "Request header fields too large",
        "A header field is over 16 KiB, or the request head over 64 KiB.",
    ),
    "quota_exceeded": ErrorCode(
        429, "Daily request limit exceeded", "Wait Retry-After seconds, until 00:00 UTC."
    ),
    "too_many_downloads": ErrorCode(
        429,
        "Too many downloads at once",
        "This address has the most export downloads under way at once; retry after Retry-After.",
    ),
    "internal_error": ErrorCode(
        500, "Internal error", "A fault on our side; quote the request id to support."
    ),
    "unavailable": ErrorCode(
        503, "Temporarily unavailable", "A backing store is unreachable; retry after Retry-After."
    ),
}
