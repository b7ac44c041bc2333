"""The OpenAPI 3.1 document, generated from the route table in :mod:`bangscore.contract.api`
(the list's filter parameters from their declarations, :mod:`bangscore.contract.filters`).

The schemas are the wire models' own (:mod:`bangscore.contract.records`, ``model_json_schema``):
strict about every field the records carry, so a generated client and the fuzzer read exactly
what the builder (:mod:`bangscore.build.wire`) writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args

from bangscore.contract.api import API_PREFIX, API_VERSION, Route, routes
from bangscore.contract.export import ExportAnswer
from bangscore.contract.push import ChangeFeed
from bangscore.contract.records import RECORD_MODELS, SourceKind
from bangscore.contract.wire_form import component_schemas, inline

SOURCE_KINDS = (*get_args(SourceKind), "review_sample")
"""The members of a detail record's ``sources``: the five kinds of source, then the review
sample's date."""


_MODEL_SCHEMAS = component_schemas((*RECORD_MODELS, ExportAnswer, ChangeFeed))
GAME_PROPERTIES: dict[str, Any] = inline(_MODEL_SCHEMAS["ListItem"]["properties"], _MODEL_SCHEMAS)
"""The list item's properties, references inlined (from :class:`ListItem`)."""
DETAIL_PROPERTIES: dict[str, Any] = inline(
    _MODEL_SCHEMAS["GameDetail"]["properties"], _MODEL_SCHEMAS
)
"""The detail record's properties in wire order, references inlined (from
:class:`GameDetail`): the export's CSV columns follow them."""

# The document's names for two models, kept from before the models (generated clients name
# their classes after them).
_DOCUMENT_NAMES = {"ListItem": "Game", "ExportAnswer": "ExportManifest"}


def _renamed(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_renamed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _renamed(v) for k, v in schema.items()}
    ref = out.get("$ref")
    if isinstance(ref, str):
        prefix, _, name = ref.rpartition("/")
        out["$ref"] = f"{prefix}/{_DOCUMENT_NAMES.get(name, name)}"
    return out


SCHEMAS: dict[str, Any] = {
    **{_DOCUMENT_NAMES.get(name, name): _renamed(s) for name, s in _MODEL_SCHEMAS.items()},
    "Root": {
        "type": "object",
        "required": ["name", "version", "endpoints", "attribution"],
        "properties": {
            "prices_as_of": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "The newest price observation the snapshot holds (UTC).",
            },
            "as_of": {
                "type": ["string", "null"],
                "format": "date",
                "description": "The snapshot's day (UTC): the build's, or `build --as-of`'s; "
                "the sale forecast starts from it (since 1.3.0).",
            },
        },
    },
    "OpenAPI": {"type": "object", "required": ["openapi", "paths"]},
}
"""The document's ``components.schemas``: the wire models' (:mod:`bangscore.contract.records`,
:class:`bangscore.contract.export.ExportAnswer`) and the two documents'."""

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
_ETAG = {
    "ETag": {
        "schema": {"type": "string"},
        "description": "Strong entity tag of this representation; send it back in "
        "If-None-Match to revalidate (a 304 is not counted)",
    }
}
_RETRY_AFTER = {
    "Retry-After": {
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "description": "Seconds to wait before asking again",
    }
}
_DESCRIPTIONS = {
    200: "OK",
    304: "Not Modified: the If-None-Match ETag matched; not counted",
    400: "A parameter is invalid (unknown, repeated or out of its bounds); errors[] names "
    "each bad parameter once",
    401: "API key missing, malformed, unknown or revoked",
    403: "The key's plan does not allow this endpoint",
    404: "Unknown resource",
    410: "The change history kept no longer reaches since; oldest names its start",
    429: "Daily request limit exceeded; Retry-After gives the seconds to the reset",
    503: "A backing store is unreachable; not counted; retry after Retry-After seconds",
}
_EXTRA_HEADERS = {200: _ETAG, 304: _ETAG, 429: _RETRY_AFTER, 503: _RETRY_AFTER}
# Statuses any path may answer besides its own (docs/API.md#endpoints): 503 with Retry-After,
# and as "default" the rest (405, 408, 414, 431 from the server's edge, 500), all problem
# documents.
_ANY_PATH = (503,)


# Answers holding list items link to the first game's detail record (OpenAPI links: what a
# client, and schemathesis's stateful phase, may call next with a value of this answer).
_LISTS = frozenset({"GameList", "SearchResult", "Lookup"})
# A list may be empty, and then the link has no value: the x-schemathesis extension (other tools
# ignore x- members) has schemathesis's stateful phase treat it as a link it may not resolve
# and generate the appid instead, rather than report a failed extraction (issue 48).
_DETAIL_LINK = {
    "GameDetail": {
        "operationId": "game",
        "parameters": {"appid": "$response.body#/games/0/appid"},
        "description": "The first game's detail record (none when the list is empty)",
        "x-schemathesis": {"is_inferred": True},
    }
}


def _operation(route: Route) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status in (*route.statuses, *_ANY_PATH):
        body: dict[str, Any] = {
            "description": _DESCRIPTIONS[status],
            "headers": {**_RATE_HEADERS, **_EXTRA_HEADERS.get(status, {})},
        }
        if status == 200:
            body["content"] = {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{route.response_schema}"}
                }
            }
            if route.response_schema in _LISTS:
                body["links"] = _DETAIL_LINK
        elif status != 304:
            body["content"] = {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            }
        responses[str(status)] = body
    responses["default"] = {
        "description": "Any other error: 405 method_not_allowed, 408, 414, 431 from the "
        "server's edge, 500 internal_error (with the request id, never a trace)",
        "headers": _RATE_HEADERS,
        "content": {
            "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
        },
    }
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


def openapi_document(site_url: str, base_url: str, since: Sequence[str] = ()) -> dict[str, Any]:
    """Given the site and API base URLs (and the snapshot ids the change feed answers for,
    oldest first), return the OpenAPI 3.1 document as a dict. With ``since`` the change
    feed's ``since`` is that enum: no other value is valid in this snapshot (an older one
    answers 410, an unknown one 400)."""
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "BangScore API",
            "version": API_VERSION,
            "description": "Read-only game value ratings (bang_score 0-100) for PC games. "
            "Attribution required: credit BangScore with a link to " + site_url + ".",
        },
        "servers": [{"url": base_url}],
        "paths": {r.path: {"get": _operation(r)} for r in routes()},
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "api_key": {"type": "apiKey", "in": "query", "name": "api_key"},
            },
        },
    }
    if since:
        for param in document["paths"][f"{API_PREFIX}/changes"]["get"]["parameters"]:
            if param["name"] == "since":
                param["schema"] = {"type": "string", "enum": list(since), "examples": [since[-1]]}
    return document
