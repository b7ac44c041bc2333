"""docs/API.md's Python client example, recorded against a real server and replayed.

``python -m tests.support.api_examples`` (``make docs`` runs it when the snapshot's inputs
change: bench/generated.py) starts ``bangscore serve`` over the tests' cached real snapshot,
runs the example as written through a recording transport and writes every answer it got
(status, the headers a client reads, body) to :data:`RECORDED`. :func:`replay` serves those
answers to the same requests through :class:`httpx.MockTransport`, so ``make check`` runs the
example in a fraction of a second with no server (tests/test_api_doc_examples.py), as pydantic
runs its documentation's examples; tests/test_client_docs.py still runs it against a live
server in ``make test``.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "API.md"
HEADING = "### Python client"
RECORDED = REPO / "tests" / "fixtures" / "api_examples" / "client.json.gz"
# The example's second client: nothing listens there, so it is refused without an answer.
DOWN = "127.0.0.1:9"
# What the client reads of an answer's headers; the rest (dates, request ids) varies by run.
KEPT_HEADERS = ("content-type", "link", "retry-after")


def python_blocks(document: Path, heading: str) -> list[str]:
    """Given a Markdown file and a heading line, return the ```python blocks of its section
    (up to the next heading of the same or a higher level)."""
    text = document.read_text()
    level = heading.split(" ", 1)[0]
    section = text.split(heading + "\n", 1)[1]
    section = re.split(rf"^#{{1,{len(level)}}} ", section, maxsplit=1, flags=re.MULTILINE)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def example() -> str:
    """Return the client example of docs/API.md, as written."""
    (code,) = python_blocks(DOC, HEADING)
    return code


def _key(request: httpx.Request) -> str:
    """Given a request, return what identifies it in the recording: method, path and query."""
    return f"{request.method} {request.url.raw_path.decode()}"


def run(code: str, base_url: str, transport: httpx.AsyncBaseTransport) -> str:
    """Given an example's code, the URL standing for ``{base_url}`` and the transport every
    client it opens goes through, run it as written and return what it printed."""
    import bangscore.client as client_module

    plain = client_module.Client

    class Through(plain):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("transport", transport)
            super().__init__(*args, **kwargs)

    printed = io.StringIO()
    client_module.Client = Through  # type: ignore[misc]
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code.replace("{base_url}", base_url), "<example>", "exec"), {})
    finally:
        client_module.Client = plain  # type: ignore[misc]
    return printed.getvalue()


async def _streamed(body: bytes) -> AsyncIterator[bytes]:
    """Given a body, yield it as a stream: the client streams every answer (a body given as
    bytes would count as read already)."""
    yield body


def replay(recorded: dict[str, dict[str, Any]] | None = None) -> httpx.MockTransport:
    """Given recorded answers by request (None: :data:`RECORDED`), return a transport that
    answers each request as the server did, refuses the connection to :data:`DOWN` as a
    closed port does, and raises KeyError for a request never recorded."""
    answers = recorded if recorded is not None else read_recorded()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.netloc.decode() == DOWN:
            raise httpx.ConnectError("connection refused", request=request)
        got = answers[_key(request)]
        body = _streamed(got["body"].encode())
        return httpx.Response(got["status"], headers=got["headers"], content=body)

    return httpx.MockTransport(answer)


def read_recorded() -> dict[str, dict[str, Any]]:
    """Return the recorded answers (:data:`RECORDED`)."""
    recorded: dict[str, dict[str, Any]] = orjson.loads(gzip.decompress(RECORDED.read_bytes()))
    return recorded


class Recording(httpx.AsyncBaseTransport):
    """A transport that sends through ``inner`` and keeps each answer by request (the client
    is asynchronous inside, so its transport is too)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.answers: dict[str, dict[str, Any]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send the request, keep its answer (decoded) and return it."""
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        kept = {k: v for k, v in response.headers.items() if k in KEPT_HEADERS}
        self.answers[_key(request)] = {
            "status": response.status_code,
            "headers": kept,
            "body": body.decode(),
        }
        return httpx.Response(response.status_code, headers=kept, content=_streamed(body))

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self.inner.aclose()


@contextlib.contextmanager
def _server() -> Iterator[tuple[str, str]]:
    """Start a server over the cached real snapshot; yield its URL and a free key."""
    import tempfile

    from tests.hardening.conftest import add_key
    from tests.support.live import ShimServer
    from tests.support.real_catalogue import DEFAULT_CACHE, cached_snapshot

    storage = cached_snapshot(DEFAULT_CACHE)
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        server = ShimServer(state, state / "server.log", snapshot=storage.root, traced=False)
        server.start()
        try:
            yield server.url, add_key(state, plan="free", limit=1000)
        finally:
            server.stop()


def record() -> dict[str, dict[str, Any]]:
    """Run the example against a real server and return its answers by request."""
    import os

    with _server() as (url, key):
        os.environ["BANGSCORE_API_KEY"] = key
        recording = Recording(httpx.AsyncHTTPTransport())
        run(example(), url, recording)
    return recording.answers


if __name__ == "__main__":
    answers = record()
    RECORDED.parent.mkdir(parents=True, exist_ok=True)
    data = orjson.dumps(answers, option=orjson.OPT_SORT_KEYS)
    RECORDED.write_bytes(gzip.compress(data, mtime=0))
    print(f"{RECORDED.relative_to(REPO)}: {len(answers)} answers, {len(data):,} bytes")
