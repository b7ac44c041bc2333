"""bench/figures.py: the figures the docs quote, measured on a published snapshot, and the
words the docs' cog blocks write from them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest

from bangscore.storage import LocalStorage
from bench.figures import dated, measure, paragraph, sentence
from tests.support import factories


def test_measure_reads_the_current_snapshot_and_the_disk(tmp_path: Path) -> None:
    storage = LocalStorage(tmp_path / "snapshots")
    _, games = factories.publish_catalog(factories.small_catalog(), storage)
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "games.csv.gz").write_bytes(b"x" * 3_000_000)
    figures = measure(tmp_path, today=dt.date(2026, 12, 2), load="1.00 2.00 3.00")
    assert figures["snapshot"] == "s1" and figures["games"] == len(games) == 45
    assert figures["not_rated"] == len(factories.NOT_RATED)
    assert figures["objects"] > 2 * len(games)  # a detail record and a page each, and more
    assert 0 < figures["stored_mb"] < figures["uncompressed_mb"]
    # du -sm rounds each folder up to a MiB: the whole is at least each part.
    assert figures["export_mb"] == 3
    assert figures["var_mb"] >= max(figures["snapshots_mb"], figures["export_mb"])
    assert (figures["measured"], figures["load"]) == ("2026-12-02", "1.00 2.00 3.00")


def test_measure_refuses_a_folder_without_a_snapshot(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="no current snapshot"):
        measure(tmp_path, today=dt.date(2026, 12, 2), load="0 0 0")


def test_the_docs_words(tmp_path: Path) -> None:
    written = tmp_path / "figures.json"
    figures = {"measured": "2026-12-02", "built": "2026-12-02 04:16 UTC", "load": "7.3 7.3 5.2"}
    written.write_bytes(orjson.dumps({**figures, "games": 40757, "stored_mb": 386.2}))
    assert sentence("games", written) == "40,757" and sentence("stored_mb", written) == "386.2"
    assert (
        dated(written)
        == "2 Dec 2026, `make docs` on a build of 2026-12-02 04:16 UTC, load 7.3 7.3 5.2"
    )
    with pytest.raises(KeyError):
        sentence("objects", written)


def test_paragraph_wraps_at_96_columns_with_its_indents() -> None:
    text = "word " * 40 + "`a code span that must not break` end"
    wrapped = paragraph(text, "- ", "  ")
    lines = wrapped.splitlines()
    assert wrapped.endswith("end\n") and lines[0].startswith("- word ")
    assert all(len(line) <= 96 for line in lines) and all(x.startswith("  ") for x in lines[1:])
    assert " ".join(wrapped.split()) == " ".join(("- " + text).split())
