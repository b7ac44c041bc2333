"""The framework's ceiling for the benchmark: a bare Starlette app answering constant bytes.

Run by :mod:`bench.run` under uvicorn with the shim's settings (httptools, uvloop, 1 worker).
``GET /<name>`` answers the bytes of ``<name>.json`` from the folder named by the command
line (the same bytes the shim serves), and a matching ``If-None-Match`` answers 304: the
least work any Starlette app can do for these responses.

    python -m bench.bare FOLDER PORT
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


def bare_app(folder: Path) -> Starlette:
    """Given a folder of ``<name>.json`` files, return the app serving them at ``/<name>``."""
    bodies = {f"/{p.stem}": p.read_bytes() for p in folder.glob("*.json")}
    etags = {path: '"' + hashlib.sha256(b).hexdigest()[:32] + '"' for path, b in bodies.items()}

    async def constant(request: Request) -> Response:
        path = request.url.path
        body = bodies.get(path)
        if body is None:
            return Response(b"", 404)
        if request.headers.get("if-none-match") == etags[path]:
            return Response(None, 304, headers={"ETag": etags[path]})
        return Response(body, headers={"ETag": etags[path]}, media_type="application/json")

    return Starlette(routes=[Route("/{name}", constant)])


def main() -> None:
    """Serve ``bare_app(FOLDER)`` on 127.0.0.1:PORT with the shim's uvicorn settings."""
    folder, port = Path(sys.argv[1]), int(sys.argv[2])
    uvicorn.run(
        bare_app(folder),
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
