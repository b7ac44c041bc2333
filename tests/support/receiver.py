"""A real webhook receiver on loopback for the push tests: an HTTP server in a thread that
records every request (headers, body) and answers the statuses it is given in turn (then
200), optionally a redirect."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    """One request the receiver got: its path, headers (lower-case names) and body."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """The receiver's URL, the statuses still to answer (then 200), a Location for 3xx
    answers and every request received."""

    url: str = ""
    statuses: list[int] = field(default_factory=list)
    location: str = ""
    received: list[Received] = field(default_factory=list)
    # Set: every request is answered. Clear: requests wait (after being recorded) until set.
    open: threading.Event = field(default_factory=threading.Event)


@contextmanager
def receiver(
    statuses: list[int] | None = None, location: str = "", *, held: bool = False
) -> Iterator[Receiver]:
    """Yield a running receiver on 127.0.0.1 (a free port), stopped after; ``held``: each
    request waits for ``open`` (at most 60 s) before it is answered."""
    state = Receiver(statuses=list(statuses or []), location=location)
    if not held:
        state.open.set()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                state.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                status = state.statuses.pop(0) if state.statuses else 200
            if not state.open.wait(60):
                return
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", state.location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    # shutdown() waits out one poll of serve_forever: 0.5 s by default, for every receiver.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.open.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
