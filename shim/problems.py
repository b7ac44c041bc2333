"""RFC 9457 problem details: the one shape every error body takes
(docs/API.md#problem-details)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from bangscore.contract.api import ERROR_CODES
from bangscore.errors import ParamError

PROBLEM_TYPE = "application/problem+json"


def problem_body(
    code: str,
    detail: str,
    *,
    site_url: str,
    request_id: str,
    errors: Sequence[ParamError] = (),
    extra: dict[str, object] | None = None,
) -> tuple[int, bytes]:
    """Given a problem code and detail, return (status, body bytes) of the problem document.

    ``type`` is ``{site}/docs/errors#<code>``; ``errors`` is added for 400s. Raises KeyError
    for an unknown code (a programming error).
    """
    spec = ERROR_CODES[code]
    doc: dict[str, Any] = {
        "type": f"{site_url}/docs/errors#{code}",
        "title": spec.title,
        "status": spec.status,
        "detail": detail,
        "code": code,
        "request_id": request_id,
    }
    if errors:
        doc["errors"] = [{"parameter": e.parameter, "message": e.message} for e in errors]
    if extra:
        doc.update(extra)
    return spec.status, orjson.dumps(doc)
