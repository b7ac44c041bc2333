"""The OpenAPI 3.1 document, generated from the route table in :mod:`bangscore.contract.api`.

Schemas are strict about every field the wire records carry (:mod:`bangscore.build.wire`), so the
fuzzer can check each response against them.
"""

from __future__ import annotations

from typing import Any

from bangscore.contract.api import API_VERSION, ROUTES, Route
from bangscore.contract.limits import PAGE_SIZE
from bangscore.scoring.drivers import DRIVERS
from bangscore.scoring.flags import PROVISIONAL_REASONS
from bangscore.scoring.genres import GENRES
from bangscore.scoring.records import NOT_RATED_REASONS
from bangscore.scoring.tiers import TIERS
from bangscore.scoring.verdict import VERDICTS

_NUM = {"type": "number"}
_NUM_NULL = {"type": ["number", "null"]}
_INT_NULL = {"type": ["integer", "null"]}
_FRACTION_NULL = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_DATE_NULL = {"type": ["string", "null"], "format": "date"}
_STR_NULL = {"type": ["string", "null"]}

SOURCE_KINDS = (
    "storefront",
    "player_stats",
    "play_length",
    "price_history",
    "wiki",
    "review_sample",
)


def _obj(properties: dict[str, Any], extra: bool = False) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": extra,
    }


GAME_PROPERTIES: dict[str, Any] = {
    "appid": {"type": "integer", "minimum": 1},
    "name": {"type": "string"},
    "bang_score": {"type": "integer", "minimum": 0, "maximum": 100},
    "tier": {"type": "string", "enum": list(TIERS)},
    "genre": {"type": "string", "enum": list(GENRES)},
    "price_usd": {"type": "number", "minimum": 0},
    "discount_percent": {"type": "number", "minimum": 0, "maximum": 100},
    "price_observed_at": {"type": ["string", "null"], "format": "date-time"},
    "review_score": _FRACTION_NULL,
    "length_hours": _NUM_NULL,
    "finish_rate": _FRACTION_NULL,
    "release_year": _INT_NULL,
    "early_access": {
        "type": "boolean",
        "description": "The storefront lists the game as in Early Access.",
    },
    "provisional": {
        "type": "boolean",
        "description": "The score could move: fewer than 50 reviews, an estimated length, or "
        "a stale price (seen more than 180 days before prices_as_of); the detail record's "
        "provisional_reasons says which.",
    },
    "adult": {
        "type": "boolean",
        "description": "The storefront's content descriptors mark sexual content or frequent "
        "nudity, or the players' tags do (Hentai anywhere, Sexual Content or Nudity among the "
        "first five). The API lists adult games; the website hides them unless asked.",
    },
    "url": {"type": "string", "format": "uri"},
    "refunded_review_share": _FRACTION_NULL,
    "refunded_review_sample": _INT_NULL,
    "refunded_review_flagged": _INT_NULL,
    "refunded_review_percentile": _FRACTION_NULL,
    "refunded_review_genre_percentile": _FRACTION_NULL,
    "refunded_review_genre_pool": _INT_NULL,
}

DETAIL_PROPERTIES: dict[str, Any] = {
    **GAME_PROPERTIES,
    "developer": _STR_NULL,
    "publisher": _STR_NULL,
    "metacritic": {"type": ["integer", "null"], "minimum": 0, "maximum": 100},
    "completionist_hours": _NUM_NULL,
    "becomes_banger_at_usd": _NUM_NULL,
    "worth_it_at_usd": _NUM_NULL,
    "verdict": {"type": "string", "enum": list(VERDICTS)},
    "verdict_price_usd": _NUM_NULL,
    "verdict_text": {"type": "string"},
    "genre_percentile": {"type": "number", "minimum": 0, "maximum": 1},
    "recent_low_usd": {
        **_NUM_NULL,
        "description": "Lowest price seen in the 730 days before prices_as_of (the evidence "
        "window), dated lows of the price-history source included.",
    },
    "recent_low_at": {**_DATE_NULL, "description": "The (first) day recent_low_usd was seen."},
    "ended_sale_usd": {
        **_NUM_NULL,
        "description": "When the newest observation was a sale that has since ended: its "
        "price (price_usd is then the list price).",
    },
    "ended_sale_at": {**_DATE_NULL, "description": "The day that ended sale was seen."},
    "list_price_usd": _NUM,
    "historical_low_usd": _NUM_NULL,
    "historical_low_at": _DATE_NULL,
    "prices_as_of": {"type": ["string", "null"], "format": "date-time"},
    "price_history": {
        "type": "array",
        "maxItems": 60,
        "description": "Dated US price observations, oldest first: the first day of every "
        "run of one price (a gap of more than 14 days starts a new point) and the historical "
        "low, each with its source.",
        "items": _obj(
            {
                "date": {"type": "string", "format": "date"},
                "price_usd": {"type": "number"},
                "list_price_usd": {"type": "number"},
                "discount_percent": {"type": "integer", "minimum": 0, "maximum": 100},
                "source": {"type": "string"},
                "estimated": {
                    "type": "boolean",
                    "description": "An estimate: a non-USD source's deepest discount applied to "
                    "the US list price.",
                },
            }
        ),
    },
    "score_history": {
        "type": "array",
        "maxItems": 60,
        "description": (
            "The bang_score and price at each snapshot where either changed, oldest first, "
            "dated by the snapshot's prices_as_of day."
        ),
        "items": _obj(
            {
                "date": {"type": "string", "format": "date"},
                "bang_score": {"type": "integer", "minimum": 0, "maximum": 100},
                "price_usd": {"type": "number", "minimum": 0},
            }
        ),
    },
    "review_count": {"type": "integer", "minimum": 0},
    "tags": {"type": "array", "items": {"type": "string"}},
    "refunded_review_over_2h": _FRACTION_NULL,
    "refunded_review_window": {
        "type": ["object", "null"],
        "properties": {"from": {"type": "string"}, "to": {"type": "string"}},
        "required": ["from", "to"],
    },
    "refunded_review_first_30_days": {
        "type": ["object", "null"],
        "properties": {
            "sample": {"type": "integer"},
            "flagged": {"type": "integer"},
            "share": _FRACTION_NULL,
        },
        "required": ["sample", "flagged", "share"],
    },
    "early_window_reviews": _INT_NULL,
    "early_window_positive_share": _FRACTION_NULL,
    "early_window_review_share": _FRACTION_NULL,
    "early_window_sample": {
        "type": ["object", "null"],
        "description": "The single reviews the early-window fields were computed from: "
        "storefront-purchase reviews with a known playtime at review, their date span and source.",
        "properties": {
            "sample": {"type": "integer", "minimum": 0},
            "from": {"type": "string", "format": "date"},
            "to": {"type": "string", "format": "date"},
            "source": {"type": "string"},
        },
        "required": ["sample", "from", "to", "source"],
    },
    "provisional_reasons": {
        "type": "array",
        "description": "Why the score is provisional, in this order; empty when it is not.",
        "items": {"type": "string", "enum": list(PROVISIONAL_REASONS)},
    },
    "length_source": {
        "type": "string",
        "enum": ["hltb", "playtime_estimate", "playtime"],
        "description": "hltb: a HowLongToBeat main-story time; playtime_estimate: estimated "
        "from how long the game's positive reviewers play (also listed in estimated); "
        "playtime: a game played mainly with others online, measured by how long its players "
        "play (the median playtime of its reviewers or owners).",
    },
    "drivers": {
        "type": "object",
        "description": "The direction each public input pushes this game's score, never a "
        "weight. Names: " + ", ".join(DRIVERS) + ".",
        "properties": {
            side: {"type": "array", "items": {"type": "string", "enum": list(DRIVERS)}}
            for side in ("raises", "lowers", "neutral")
        },
        "required": ["raises", "lowers", "neutral"],
    },
    "score_version": {
        "type": "string",
        "description": "Changes whenever the scoring model changes: scores of two versions "
        "are not comparable.",
    },
    "sources": {
        "type": "object",
        "description": "Per kind of source, the date of the oldest data any public input of "
        "that kind came from; review_sample: the newest review of the early-window sample.",
        "properties": {k: _DATE_NULL for k in SOURCE_KINDS},
        "required": list(SOURCE_KINDS),
    },
    "provenance": {
        "type": "object",
        "description": "Per public input, the source (a bundled dump or live adapter) its "
        "value came from and that source's date.",
        "additionalProperties": _obj(
            {
                "source": {"type": "string"},
                "kind": {"type": "string", "enum": list(SOURCE_KINDS[:5])},
                "date": {"type": "string", "format": "date"},
            }
        ),
    },
    "estimated": {"type": "array", "items": {"type": "string"}},
    "checks": {
        "type": "array",
        "description": "Cross-checks that fired on this game's inputs, e.g. "
        "length_shorter_than_reviewers_play.",
        "items": {"type": "string"},
    },
}


_ENVELOPE = {
    "page": {"type": "integer", "minimum": 1},
    "pages": {"type": "integer", "minimum": 0},
    "total": {"type": "integer", "minimum": 0},
    "prices_as_of": {"type": ["string", "null"], "format": "date-time"},
    "games": {
        "type": "array",
        "maxItems": PAGE_SIZE,
        "items": {"$ref": "#/components/schemas/Game"},
    },
}

SCHEMAS: dict[str, Any] = {
    "Game": _obj(GAME_PROPERTIES),
    "GameDetail": _obj(DETAIL_PROPERTIES),
    "GameList": _obj(_ENVELOPE),
    "SearchResult": _obj({"query": {"type": "string"}, **_ENVELOPE}),
    "Root": {"type": "object", "required": ["name", "version", "endpoints", "attribution"]},
    "OpenAPI": {"type": "object", "required": ["openapi", "paths"]},
    "Usage": _obj(
        {
            "key_id": {"type": "string"},
            "plan": {"type": "string", "enum": ["free", "pro", "bulk"]},
            "limit": {"type": "integer"},
            "used": {"type": "integer"},
            "remaining": {"type": "integer"},
            "reset_at": {"type": "string", "format": "date-time"},
            "days": {
                "type": "array",
                "items": _obj({"date": {"type": "string"}, "count": {"type": "integer"}}),
            },
        }
    ),
    "ExportManifest": _obj(
        {
            "snapshot": {"type": "string"},
            "created_at": {"type": "string", "format": "date-time"},
            "previous": _STR_NULL,
            "expires_at": {"type": "string", "format": "date-time"},
            "files": {
                "type": "array",
                "items": _obj(
                    {
                        "name": {
                            "type": "string",
                            "enum": ["games.jsonl.gz", "games.csv.gz", "changes.jsonl.gz"],
                        },
                        "format": {"type": "string", "enum": ["jsonl", "csv"]},
                        "compression": {"type": "string", "enum": ["gzip"]},
                        "bytes": {"type": "integer", "minimum": 0},
                        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                        "rows": {"type": "integer", "minimum": 0},
                        "schema_version": {"type": "integer", "minimum": 1},
                        "url": {"type": "string", "format": "uri"},
                        "expires_at": {"type": "string", "format": "date-time"},
                    }
                ),
            },
        }
    ),
    "Problem": {
        "type": "object",
        "required": ["type", "title", "status", "detail", "code"],
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "code": {"type": "string"},
            "request_id": {"type": "string"},
            "appid": {
                "type": "integer",
                "description": "game_not_rated only: the known app's storefront application id",
            },
            "name": {
                "type": "string",
                "description": "game_not_rated only: the app's name (empty when unknown)",
            },
            "reason": {
                "type": "string",
                "enum": list(NOT_RATED_REASONS),
                "description": "game_not_rated only: why the known app is not rated",
            },
            "violated-policies": {
                "type": "array",
                "items": {"type": "string", "enum": ["daily"]},
                "description": "quota_exceeded only: the quota policies the request is over",
            },
            "errors": {
                "type": "array",
                "items": _obj({"parameter": {"type": "string"}, "message": {"type": "string"}}),
            },
        },
    },
}

_RATE_HEADERS = {
    name: {"schema": {"type": "string"}, "description": desc}
    for name, desc in (
        ("X-RateLimit-Limit", "Daily request limit of the key (or of the client IP without one)"),
        ("X-RateLimit-Remaining", "Requests left today"),
        ("X-RateLimit-Used", "Requests counted today"),
        ("X-RateLimit-Reset", "Unix seconds of the next reset (00:00:00 UTC)"),
        ("RateLimit-Policy", 'IETF draft: "daily";q=<limit>;w=86400'),
        ("RateLimit", 'IETF draft: "daily";r=<remaining>;t=<seconds to reset>'),
        ("X-Request-Id", "Identifier of this request, for support"),
    )
}
_DESCRIPTIONS = {
    200: "OK",
    304: "Not Modified: the If-None-Match ETag matched; not counted",
    400: "A parameter is invalid; errors[] names it",
    401: "API key missing, malformed, unknown or revoked",
    403: "The key's plan does not allow this endpoint",
    404: "Unknown resource",
    429: "Daily request limit exceeded; Retry-After gives the seconds to the reset",
}


def _operation(route: Route) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status in route.statuses:
        body: dict[str, Any] = {"description": _DESCRIPTIONS[status], "headers": _RATE_HEADERS}
        if status == 200:
            body["content"] = {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{route.response_schema}"}
                }
            }
        elif status != 304:
            body["content"] = {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            }
        responses[str(status)] = body
    op: dict[str, Any] = {
        "operationId": route.name,
        "summary": route.description,
        "parameters": [
            {
                "name": p.name,
                "in": p.location,
                "required": p.required,
                "description": p.description,
                "schema": p.schema,
            }
            for p in route.params
        ],
        "responses": responses,
    }
    if route.auth:
        op["security"] = [{"bearer": []}, {"api_key": []}]
    return op


def openapi_document(site_url: str, base_url: str) -> dict[str, Any]:
    """Given the site and API base URLs, return the OpenAPI 3.1 document as a dict."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "BangScore API",
            "version": API_VERSION,
            "description": "Read-only game value ratings (bang_score 0-100) for PC games. "
            "Attribution required: credit BangScore with a link to " + site_url + ".",
        },
        "servers": [{"url": base_url}],
        "paths": {r.path: {"get": _operation(r)} for r in ROUTES},
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "api_key": {"type": "apiKey", "in": "query", "name": "api_key"},
            },
        },
    }
