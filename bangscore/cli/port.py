"""Is the port free? ``make run`` asks before it builds, so a busy port fails in a second
with its name, not after minutes of building (issue 56, item 1).

``python -m bangscore.cli.port HOST PORT`` exits 0 when a server could listen there, else 2
with one line naming the address and what to do.
"""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Sequence


def port_problem(host: str, port: int) -> str | None:
    """Given a host and a TCP port, return None if a server can listen there now, else one
    line saying why not (the address in use, or the OS's reason). The probe binds as uvicorn
    does (SO_REUSEADDR, so a port in TIME_WAIT counts as free) and closes at once."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is in use: stop what listens there "
                    f"(`ss -ltnp 'sport = :{port}'` names it) or choose another, "
                    f"e.g. make run PORT={port + 1}"
                )
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Given ``HOST PORT``, print why that address is not free and return 2, else return 0."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or not args[1].isdigit() or not 0 < int(args[1]) < 65536:
        print("usage: python -m bangscore.cli.port HOST PORT (1-65535)", file=sys.stderr)
        return 2
    problem = port_problem(args[0], int(args[1]))
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
