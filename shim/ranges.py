"""Byte ranges of a download (RFC 9110 section 14): which part of a file a request asks for.

A download answers one range (``Range: bytes=0-99``, ``bytes=100-``, ``bytes=-500``) with 206
and ``Content-Range``; a range that starts past the end, or a suffix of 0 bytes, with 416 and
``Content-Range: bytes */<size>``. Anything else is answered whole (200), as section 14.2 lets
a server do: a header it cannot read, a unit other than bytes, several ranges (a multipart
answer buys a client little over asking again), or an ``If-Range`` naming another version of
the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from bangscore.errors import Unsatisfiable

__all__ = ["Span", "Unsatisfiable", "requested_span"]

MAX_POSITION_DIGITS = 18  # past a byte position of an exabyte, the header is not read


@dataclass(frozen=True, slots=True)
class Span:
    """The bytes [start, stop) of a file of ``size`` bytes that an answer sends."""

    start: int
    stop: int
    size: int

    @property
    def length(self) -> int:
        """Return the number of bytes sent."""
        return self.stop - self.start

    @property
    def whole(self) -> bool:
        """Return True if the span is the whole file (a 200, not a 206)."""
        return self.start == 0 and self.stop == self.size

    def content_range(self) -> str:
        """Return the ``Content-Range`` value of this span, ``bytes <first>-<last>/<size>``."""
        return f"bytes {self.start}-{self.stop - 1}/{self.size}"


def _position(text: str) -> int | None:
    text = text.strip()
    if not text or len(text) > MAX_POSITION_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def requested_span(
    header: str | None, size: int, *, if_range: str | None = None, etag: str = ""
) -> Span:
    """Given a request's ``Range`` and ``If-Range`` values, the file's size in bytes and its
    strong ETag, return the span to send: the whole file unless exactly one valid byte range
    is asked for (and ``If-Range``, if sent, is that ETag).

    Raises Unsatisfiable for one valid range that starts at or past ``size`` (or a suffix of
    0 bytes). A range's last position past the end is cut to the end (section 14.1.2).
    """
    whole = Span(0, size, size)
    if header is None or (if_range is not None and if_range.strip() != etag):
        return whole
    unit, _, ranges = header.partition("=")
    if unit.strip().lower() != "bytes" or "," in ranges:
        return whole
    first_text, dash, last_text = ranges.partition("-")
    if not dash:
        return whole
    if not first_text.strip():  # a suffix: the last N bytes
        suffix = _position(last_text)
        if suffix is None:
            return whole
        if suffix == 0:
            raise Unsatisfiable(header)
        return Span(max(size - suffix, 0), size, size)
    first = _position(first_text)
    last = _position(last_text) if last_text.strip() else first
    if first is None or last is None or last < first:
        return whole
    if first >= size:
        raise Unsatisfiable(header)
    stop = size if not last_text.strip() else min(last + 1, size)
    return Span(first, stop, size)
