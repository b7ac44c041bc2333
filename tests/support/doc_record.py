"""docs/API.md's "real record" example (``GET /api/v1/games/10``), kept equal to the real build.

The example is a shortened detail record: the keys it shows, in its order, with ``"...":
"..."`` where keys are left out and a trailing ``"..."`` where a list is cut. :func:`shortened`
fills that shape from a real record, :func:`render` writes it as the docs lay it out, and
``python -m tests.support.doc_record`` (run by ``make docs`` when its inputs changed:
bench/generated.py) rewrites the block in docs/API.md from the cached real snapshot (``python
-m tests.support.real_catalogue`` fills it) after a change of the scoring model or the data;
tests/test_api_doc.py and ``make lint`` fail until it is rewritten.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "API.md"
APPID = 10
LEAD = f"A real record, shortened (`GET /api/v1/games/{APPID}`):\n\n```json\n"
ELLIPSIS = "..."
WIDTH = 96


def doc_block(text: str) -> tuple[int, int]:
    """Given docs/API.md's text, return the start and end offsets of the example's JSON.
    Raises ValueError when the docs hold no such block."""
    start = text.index(LEAD) + len(LEAD)
    return start, text.index("```", start)


def documented(text: str) -> dict[str, Any]:
    """Given docs/API.md's text, return the example as the docs show it."""
    start, end = doc_block(text)
    shown: dict[str, Any] = orjson.loads(text[start:end])
    return shown


def shortened(record: dict[str, Any], shape: dict[str, Any], site: str) -> dict[str, Any]:
    """Given a real detail record, the example's shape and the site URL the record was built
    with, return the record cut to that shape: the same keys in the same order, ``"..."``
    kept, lists cut where the shape cuts them, objects recursively; the site URL as
    ``{site}``."""
    out: dict[str, Any] = {}
    for key, shown in shape.items():
        if key == ELLIPSIS:
            out[key] = ELLIPSIS
            continue
        value = record[key]
        if isinstance(shown, dict) and isinstance(value, dict):
            value = shortened(value, shown, site)
        elif isinstance(shown, list) and shown[-1:] == [ELLIPSIS] and isinstance(value, list):
            value = [*value[: len(shown) - 1], ELLIPSIS]
        elif isinstance(value, str) and value.startswith(site):
            value = "{site}" + value[len(site) :]
        out[key] = value
    return out


def render(example: dict[str, Any]) -> str:
    """Given a shortened record, return its JSON as the docs lay it out: ``"key": value``
    pairs (values compact, ``, `` and ``: `` between parts) filled into lines of at most
    96 characters, continuation lines indented by one space; an object too long for one
    line has its own pairs filled under its opening brace."""
    return _fill(
        [f"{orjson.dumps(k).decode()}: {_compact(v)}" for k, v in example.items()], 0, example
    )


def _fill(pairs: list[str], indent: int, values: dict[str, Any]) -> str:
    lines: list[str] = []
    line = ""
    for n, (pair, value) in enumerate(zip(pairs, values.values(), strict=True)):
        tail = "," if n < len(pairs) - 1 else "}"
        piece = pair + tail
        if indent + 1 + len(piece) > WIDTH and isinstance(value, dict):
            if line:
                lines.append(line)
            head = pair[: pair.index(": ") + 2]
            inner = [f"{orjson.dumps(k).decode()}: {_compact(v)}" for k, v in value.items()]
            block = _fill(inner, indent + 1 + len(head), value).rstrip("\n")
            lines.append(" " * (indent + 1) + head + block.lstrip() + tail)
            line = ""
            continue
        if line and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line)
            line = ""
        line = (line + " " + piece) if line else " " * (indent + 1) + piece
    if line:
        lines.append(line)
    lines[0] = " " * indent + "{" + lines[0][indent + 1 :]
    return "\n".join(lines) + "\n"


def _compact(value: Any) -> str:
    # orjson's compact form, with the spaces of the docs' style after commas and colons
    # (outside strings: no key or value of the example holds '", "' or '": "').
    text = orjson.dumps(value).decode()
    return re.sub(r'("(?:[^"\\]|\\.)*")|([,:])', lambda m: m[1] or m[2] + " ", text)


def rewrite(record: dict[str, Any], site: str, doc: Path = DOC) -> bool:
    """Given the real record and its site URL, rewrite the docs' example from it; return
    True if the text changed."""
    text = doc.read_text()
    start, end = doc_block(text)
    new = text[:start] + render(shortened(record, documented(text), site)) + text[end:]
    doc.write_text(new)
    return new != text


if __name__ == "__main__":
    from bangscore.contract.objects import detail_key
    from bangscore.manifest import read_body, read_manifest_view
    from tests.support.factories import SITE
    from tests.support.real_catalogue import DEFAULT_CACHE, SNAPSHOT_ID, cached_snapshot

    storage = cached_snapshot(DEFAULT_CACHE)
    entry = read_manifest_view(storage, SNAPSHOT_ID).entries[detail_key(APPID)]
    changed = rewrite(orjson.loads(read_body(storage, entry)), SITE)
    print(f"{DOC}: {'rewritten' if changed else 'already the real record'}")
    sys.exit(0)
