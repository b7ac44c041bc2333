"""A hostile HTTP server on loopback for the Python client's tests (issue 45): each path gets
canned bytes, sent at once, then optionally more bytes one at a time (a trickle), each
connection on its own thread, closed after its answer. Nothing is parsed but the path."""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass, field

TRICKLE_SECONDS = 0.05  # between two trickled bytes: each read is quick, the whole never ends


@dataclass(frozen=True)
class Canned:
    """What a path answers: ``quick`` at once, then ``slow`` one byte every 50 ms."""

    quick: bytes
    slow: bytes = b""


def answer(status: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    """Given a status line's tail (``200 OK``), headers and a body, return the answer's bytes
    (``Content-Length`` of the body unless given, ``Connection: close``)."""
    head = {"Content-Length": str(len(body)), "Connection": "close", **headers}
    lines = "".join(f"{name}: {value}\r\n" for name, value in head.items())
    return f"HTTP/1.1 {status}\r\n{lines}\r\n".encode("latin-1") + body


@dataclass
class HostileServer:
    """Serves ``answers`` (path without query -> Canned; others 404) on 127.0.0.1 until
    :meth:`stop`. ``paths`` lists the paths asked, in order."""

    answers: dict[str, Canned]
    paths: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    @property
    def url(self) -> str:
        """Return the server's base URL."""
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.settimeout(10)
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                got = conn.recv(65536)
                if not got:
                    return
                head += got
            target = head.split(b" ", 2)[1].decode("latin-1") if head.count(b" ") >= 2 else ""
            path = target.split("?", 1)[0]
            self.paths.append(path)
            canned = self.answers.get(path, Canned(answer("404 Not Found", {})))
            conn.sendall(canned.quick)
            for byte in canned.slow:
                if self._stop.wait(TRICKLE_SECONDS):
                    return
                conn.sendall(bytes([byte]))

    def stop(self) -> None:
        """Stop accepting and trickling; wait for every connection's thread."""
        self._stop.set()
        self._accepting.join(5)
        for thread in self._threads:
            thread.join(5)
        self._listener.close()
