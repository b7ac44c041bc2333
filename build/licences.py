"""The bundled sources and their licences as data/README.md states them (its "Licences" table),
for the Bulk export's manifest (``sources``).

Read from the README, not copied into code, so the manifest never says other than the page
that documents the dumps; tests/build/test_licences.py checks the table against data/raw (a row
per folder, each licence as its ``NOTE.md`` states it).
"""

from __future__ import annotations

import re
from pathlib import Path

from bangscore.contract.export import SourceLicence

SECTION = "## Licences"
HEADER = ("folder", "origin", "licence as stated")
_CODE = re.compile(r"`([^`]*)`")


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def parse_licences(text: str) -> tuple[SourceLicence, ...]:
    """Given data/README.md's text, return its "Licences" table's rows in order: the folder
    (under data/raw), the origin and the licence as stated, code marks removed.

    Raises ValueError if the section or its table (header :data:`HEADER`) is missing.
    """
    text = f"\n{text}"
    start = text.find(f"\n{SECTION}\n")
    if start < 0:
        raise ValueError(f"data/README.md has no {SECTION!r} section")
    end = text.find("\n## ", start + len(SECTION) + 2)
    lines = [x for x in text[start : end if end > 0 else None].splitlines() if x.startswith("|")]
    if len(lines) < 2 or tuple(c.lower() for c in _cells(lines[0])) != HEADER:
        raise ValueError(f"data/README.md's {SECTION!r} has no table headed {HEADER}")
    rows = []
    for line in lines[2:]:  # after the header and its rule
        folder, origin, licence = (_CODE.sub(r"\1", c) for c in _cells(line))
        rows.append(SourceLicence(folder, origin, licence))
    return tuple(rows)


def read_licences(readme: Path) -> tuple[SourceLicence, ...]:
    """Given the path of data/README.md, return its licence rows (:func:`parse_licences`); ()
    when there is no such file (an installed package builds from a catalogue file without the
    bundled dumps). Raises ValueError for a README without the table, OSError if unreadable."""
    try:
        text = readme.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    return parse_licences(text)
