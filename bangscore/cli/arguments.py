"""Argument types and terminal-safe text shared by the command groups of ``bangscore``."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """Given inclusive bounds, return an argparse ``type`` that accepts decimal integers in
    them (checking the length first, so a 5,000-digit value is refused, not converted)."""

    def parse(raw: str) -> int:
        text = raw.strip()
        if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)):
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}")
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}")
        return value

    return parse


def printable(text: str) -> str:
    """Given text from the store (an email, typed by anyone), return it safe for a terminal:
    control characters and escapes shown as ``\\xNN`` instead of acting on the terminal."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def when(ts: int | None) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M") if ts else "never"
