"""The framework's ceiling for the benchmark: a bare Starlette app answering constant bytes.

Run by :mod:`bench.run` under uvicorn with the shim's settings (httptools, uvloop, 1 worker).
``GET /<name>`` answers the bytes of ``<name>.json`` from the folder named by the command
line (the same bytes the shim serves), and a matching ``If-None-Match`` answers 304: the
least work any Starlette app can do for these responses.

    python -m bench.bare FOLDER PORT [--contract-headers]

With ``--contract-headers`` every answer also carries the fourteen headers a shim response
carries (rate limits, caching, CORS, request id, snapshot, Link: docs/API.md#rate-limit-headers,
docs/API.md#caching, docs/API.md#cors, docs/API.md#pagination), with constant
values: what the framework and server spend on the response alone, before any shim work.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

CONTRACT_HEADERS = {
    "X-RateLimit-Limit": "1000000000",
    "X-RateLimit-Remaining": "999999999",
    "X-RateLimit-Used": "1",
    "X-RateLimit-Reset": "1795392000",
    "RateLimit-Policy": '"daily";q=1000000000;w=86400',
    "RateLimit": '"daily";r=999999999;t=71858',
    "Link": '<http://127.0.0.1:8000/api/v1/games?page=1>; rel="first", '
    '<http://127.0.0.1:8000/api/v1/games?page=2>; rel="next", '
    '<http://127.0.0.1:8000/api/v1/games?page=1078>; rel="last"',
    "Cache-Control": "private, max-age=300",
    "X-Snapshot": "20261122T040207Z-be50",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "X-RateLimit-Limit, X-RateLimit-Remaining, "
    "X-RateLimit-Used, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, ETag, "
    "Link, X-Snapshot, X-Request-Id",
    "X-Content-Type-Options": "nosniff",
    "X-Request-Id": "6be0f8548d44b4c6",
}


def bare_app(folder: Path, *, contract_headers: bool = False) -> Starlette:
    """Given a folder of ``<name>.json`` files, return the app serving them at ``/<name>``,
    with the shim's response headers (docs/API.md) as constants when ``contract_headers``."""
    bodies = {f"/{p.stem}": p.read_bytes() for p in folder.glob("*.json")}
    etags = {path: '"' + hashlib.sha256(b).hexdigest()[:32] + '"' for path, b in bodies.items()}
    extra = CONTRACT_HEADERS if contract_headers else {}

    async def constant(request: Request) -> Response:
        path = request.url.path
        body = bodies.get(path)
        if body is None:
            return Response(b"", 404)
        if request.headers.get("if-none-match") == etags[path]:
            return Response(None, 304, headers={**extra, "ETag": etags[path]})
        return Response(body, headers={**extra, "ETag": etags[path]}, media_type="application/json")

    return Starlette(routes=[Route("/{name}", constant)])


def main() -> None:
    """Serve ``bare_app(FOLDER)`` on 127.0.0.1:PORT with the shim's uvicorn settings."""
    folder, port = Path(sys.argv[1]), int(sys.argv[2])
    uvicorn.run(
        bare_app(folder, contract_headers="--contract-headers" in sys.argv[3:]),
        host="127.0.0.1",
        port=port,
        http="httptools",
        loop="uvloop",
        workers=1,
        access_log=False,
        server_header=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
