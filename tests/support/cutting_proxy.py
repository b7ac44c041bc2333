"""A loopback TCP proxy that can lose answers: the fault where a server applies a command and
the connection dies before its reply reaches the client.

Killing the server cannot aim at that moment; this proxy can. While ``cut_after`` holds some
bytes, a request containing them is passed on, the server's answer to it is dropped and both
sockets are closed: the client sees its connection closed after the server did the work.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

BUFFER = 65_536


class CuttingProxy:
    """Forward ``127.0.0.1:<port>`` to ``target_port``; ``cut_after`` loses answers."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.cut_after: bytes | None = None
        self.cut = 0  # answers lost so far
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._closed = threading.Event()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, name="cutting-proxy", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            self._sockets += [client, server]
            doomed = threading.Event()  # the next answer on this connection is lost
            threading.Thread(
                target=self._requests, args=(client, server, doomed), daemon=True
            ).start()
            threading.Thread(
                target=self._answers, args=(server, client, doomed), daemon=True
            ).start()

    def _requests(
        self, source: socket.socket, sink: socket.socket, doomed: threading.Event
    ) -> None:
        try:
            while chunk := source.recv(BUFFER):
                if self.cut_after is not None and self.cut_after in chunk:
                    doomed.set()  # before the server can answer
                sink.sendall(chunk)
        except OSError:
            pass
        self._close(source, sink)

    def _answers(self, source: socket.socket, sink: socket.socket, doomed: threading.Event) -> None:
        try:
            while chunk := source.recv(BUFFER):
                if doomed.is_set():
                    self.cut += 1
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        self._close(source, sink)

    @staticmethod
    def _close(*sockets: socket.socket) -> None:
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def close(self) -> None:
        """Stop accepting and close every connection."""
        self._closed.set()
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()


@contextlib.contextmanager
def cutting_proxy(target_port: int) -> Iterator[CuttingProxy]:
    """Yield a proxy to ``target_port`` on loopback, closed after."""
    proxy = CuttingProxy(target_port)
    try:
        yield proxy
    finally:
        proxy.close()
