"""The production configuration for ``make bench`` (issue 29): the shim with its access log on
and off, compressed and not; nginx with its access log on, serving the same bytes as files and
with ``gzip_static`` the precompressed ones; the bytes on the wire per request; the snapshot's
size on disk and its file count. Each figure is one wrk run of :mod:`bench.wrk`.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.servers import nginx_conf
from bench.wrk import WrkResult

GZIP = {"Accept-Encoding": "gzip"}
# Rows: (workload, representation); columns: the servers.
SHIM_QUIET, SHIM_LOGGED = "shim, log off", "shim, log on"
NGINX_LOGGED = "nginx, log on"
ENCODINGS = ("identity", "gzip")


@dataclass(frozen=True)
class Disk:
    """A snapshot folder on disk: bytes allocated (what ``du`` counts), bytes of the files
    themselves, and how many files."""

    allocated: int
    apparent: int
    files: int


def disk_usage(folder: Path) -> Disk:
    """Given a folder, return its allocated bytes (512-byte blocks, as du), apparent bytes
    and file count."""
    allocated = apparent = files = 0
    for root, _, names in os.walk(folder):
        for name in names:
            stat = os.lstat(os.path.join(root, name))
            allocated += stat.st_blocks * 512
            apparent += stat.st_size
            files += 1
    return Disk(allocated, apparent, files)


def wire_bytes(url: str, path: str, headers: Mapping[str, str]) -> tuple[int, int]:
    """Given a server's ``http://host:port``, a path and request headers, return the bytes of
    the whole response (status line, headers and body) as the server sent them, and of its
    body alone."""
    host, port = url.removeprefix("http://").split(":")
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    _, _, body = received.partition(b"\r\n\r\n")
    return len(received), len(body)


def nginx_logged_conf(prefix: Path, root: Path, port: int) -> Path:
    """Given a prefix folder, a document root (holding ``<name>.json`` and ``<name>.json.gz``)
    and a port, write an nginx.conf as production runs it: access log on (buffered, as
    infra/nginx does), ``gzip_static on`` with ``gunzip on`` for clients without gzip."""
    http = f"""log_format main '$remote_addr - [$time_iso8601] "$request" $status $body_bytes_sent '
                    '$request_time "$http_user_agent"';
    access_log {prefix}/access.log main buffer=64k flush=1s;
    gzip_static on;
    gunzip on;
    gzip_vary on;"""
    return nginx_conf(prefix, root, port, suffix="-logged", http=http)


def write_gzip_static(static: Path, names: Sequence[str]) -> None:
    """Given the static folder and file stems, write ``<stem>.json.gz`` beside each file (the
    builder's level: what the shim stores and sends)."""
    from bangscore.manifest import gzip_body

    for name in names:
        body = (static / f"{name}.json").read_bytes()
        (static / f"{name}.json.gz").write_bytes(gzip_body(body))


def section(
    workloads: Sequence[str],
    results: Mapping[tuple[str, str, str], WrkResult],
    wire: Mapping[tuple[str, str], tuple[int, int]],
    disk: Disk,
) -> list[str]:
    """Given the workload names, wrk results by (workload, server, encoding), bytes on the
    wire by (workload, encoding) and the snapshot's disk use, return the report's section
    (Markdown lines) with its targets marked reached or not."""
    servers = (SHIM_QUIET, SHIM_LOGGED, NGINX_LOGGED)
    lines = [
        "## Production configuration (issue 29)",
        "",
        "The shim as operators run it: its JSON access log on (written to a file, flushed every"
        " second), against the same server with `--quiet`; each with no `Accept-Encoding`"
        " (identity) and with `Accept-Encoding: gzip`. nginx with its access log on (buffered),"
        " serving the same bytes, and with `gzip_static` the builder's gzip files. Bytes on the"
        " wire: one response's body, and the whole response (status line, headers, body), as"
        " sent.",
        "",
        "| request | encoding | body bytes | whole response bytes | "
        + " | ".join(f"{s} req/s" for s in servers)
        + " | log on / log off | shim log on / nginx log on |",
        "|---|---|---:|---:|" + "---:|" * len(servers) + "---:|---:|",
    ]
    for name in workloads:
        for coding in ENCODINGS:
            rps = [results.get((name, s, coding)) for s in servers]
            shown = [f"{r.rps:,.0f}" if r else "-" for r in rps]
            quiet, logged, nginx = rps
            total, body = wire.get((name, coding), (0, 0))
            lines.append(
                f"| {name} | {coding} | {body:,} | {total:,} | "
                + " | ".join(shown)
                + f" | {_ratio(logged, quiet)} | {_ratio(logged, nginx)} |"
            )
    lines += [
        "",
        f"Snapshot of the real catalogue on disk: {disk.allocated / 1e6:,.0f} MB allocated"
        f" ({disk.apparent / 1e6:,.0f} MB in the files themselves), {disk.files:,} files.",
        "",
        "| target (issue 29) | measured | reached |",
        "|---|---|---|",
    ]
    for target, measured, ok in targets(workloads, results, wire, disk):
        lines.append(f"| {target} | {measured} | {'reached' if ok else '**not reached**'} |")
    return [*lines, ""]


def _ratio(a: WrkResult | None, b: WrkResult | None) -> str:
    return f"{a.rps / b.rps:.2f}" if a and b and b.rps else "-"


def targets(
    workloads: Sequence[str],
    results: Mapping[tuple[str, str, str], WrkResult],
    wire: Mapping[tuple[str, str], tuple[int, int]],
    disk: Disk,
) -> list[tuple[str, str, bool]]:
    """Given the figures, return issue 29's targets as (target, measured, reached)."""
    found: list[tuple[str, str, bool]] = []

    def rps(name: str, server: str, coding: str) -> float:
        result = results.get((name, server, coding))
        return result.rps if result else 0.0

    for name in workloads[:2]:  # the list page and the detail record
        for coding in ENCODINGS:
            quiet = rps(name, SHIM_QUIET, coding)
            share = rps(name, SHIM_LOGGED, coding) / quiet if quiet else 0.0
            found.append(
                (f"{name}, {coding}: log on >= 0.9x log off", f"{share:.2f}x", share >= 0.9)
            )
    listing = workloads[0]
    (plain_all, plain), (packed_all, packed) = (
        wire.get((listing, "identity"), (0, 0)),
        wire.get((listing, "gzip"), (0, 0)),
    )
    smaller = plain / packed if packed else 0.0
    whole = plain_all / packed_all if packed_all else 0.0
    found.append(
        (
            f"{listing}: gzip body >= 4x smaller on the wire",
            f"{smaller:.1f}x (whole response with headers {whole:.1f}x)",
            smaller >= 4,
        )
    )
    identity = rps(listing, SHIM_LOGGED, "identity")
    speed = rps(listing, SHIM_LOGGED, "gzip") / identity if identity else 0.0
    found.append((f"{listing}: gzip req/s >= 0.95x identity", f"{speed:.2f}x", speed >= 0.95))
    mb = disk.allocated / 1e6
    found.append(("real catalogue's snapshot < 400 MB on disk", f"{mb:,.0f} MB", mb < 400))
    nginx = rps(listing, NGINX_LOGGED, "gzip")
    versus = rps(listing, SHIM_LOGGED, "gzip") / nginx if nginx else 0.0
    found.append(
        (
            f"{listing}, gzip: shim log on >= 0.25x nginx log on (goal)",
            f"{versus:.2f}x",
            versus >= 0.25,
        )
    )
    return found
