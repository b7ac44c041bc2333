"""Each bundled dump's expectation (ingest.dumps.expectations) against the damage a hostile round
did to it (issue 55): every one of the 18 sources, corrupted 8 ways, is refused with a
CatalogError naming its file and the broken check, never read short in silence.

Read-level and cheap: each source's dump is sampled (the first rows of every file of it, in its
own format), its expectation measured on the sample as a build records one, then the sample is
damaged and read again. The real dumps' own counts are asserted once, from the catalogue the
session builds (tests/support/real_catalogue.py).
"""

from __future__ import annotations

import csv
import gzip
import io
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.errors import CatalogError
from bangscore.ingest.dumps.expectations import EXPECTED, Expectation, Watched
from bangscore.ingest.dumps.registry import BUNDLED, Source, read_observations

RAW = Path(__file__).resolve().parents[3] / "data" / "raw"
SAMPLE_ROWS = 300  # records kept per file of a sampled dump
MATCHED = {"hltb_2023", "hltb_2023 by title", "itad_2025"}  # read with the storefront's names
Text = Callable[[bytes], bytes]  # a change to one file's decoded bytes


def _csv_rows(data: bytes) -> list[list[str]]:
    # surrogateescape: a latin-1 dump's bytes go through unchanged
    return list(csv.reader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline="")))


def _csv_bytes(rows: list[list[str]]) -> bytes:
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8", "surrogateescape")


def _records(doc: Any) -> tuple[Any, str | None]:
    """Given a JSON document, return (the container of its records, the key holding it in
    the document or None when the document is that container): its largest dict or list,
    at the top or one level down."""
    if isinstance(doc, dict) and doc:
        big = max(doc, key=lambda k: len(doc[k]) if isinstance(doc[k], dict | list) else 0)
        if isinstance(doc[big], dict | list) and len(doc[big]) > len(doc) * 4:
            return doc[big], big
    return doc, None


def _keep(container: Any, share: float, at_least: int = 1) -> Any:
    count = max(at_least, int(len(container) * share)) if share < 1 else int(share)
    if isinstance(container, dict):
        return dict(list(container.items())[:count])
    return list(container)[:count]


def _json_or_csv(data: bytes, on_json: Callable[[Any], Any], on_csv: Text) -> bytes:
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError:
        return on_csv(data)
    return orjson.dumps(on_json(doc))


def _with_records(doc: Any, change: Callable[[Any], Any]) -> Any:
    container, key = _records(doc)
    if key is None:
        return change(container)
    return {**doc, key: change(container)}


def first_rows(count: int) -> Text:
    """Keep the first ``count`` records (a sample)."""
    return lambda data: _json_or_csv(
        data,
        lambda doc: _with_records(doc, lambda c: _keep(c, count)),
        lambda d: _csv_bytes(_csv_rows(d)[: count + 1]),
    )


def tenth(data: bytes) -> bytes:
    """Keep a tenth of the records."""
    return _json_or_csv(
        data,
        lambda doc: _with_records(doc, lambda c: _keep(c, 0.1)),
        lambda d: _csv_bytes((rows := _csv_rows(d))[: 1 + (len(rows) - 1) // 10]),
    )


def _renamed_in(record: Any) -> Any:
    if isinstance(record, dict):
        key = "name" if "name" in record else next(iter(record), None)
        return {(f"{k}_renamed" if k == key else k): v for k, v in record.items()}
    return record


def key_renamed(data: bytes) -> bytes:
    """Rename one key: a CSV's first column; the key holding a document's records; else in
    each record its ``name`` (or first) key."""

    def on_json(doc: Any) -> Any:
        container, key = _records(doc)
        if key is not None:
            return {(f"{k}_renamed" if k == key else k): v for k, v in doc.items()}
        if isinstance(container, dict):
            return {k: _renamed_in(v) for k, v in container.items()}
        return [_renamed_in(r) for r in container]

    def on_csv(d: bytes) -> bytes:
        rows = _csv_rows(d)
        return _csv_bytes([[f"{rows[0][0]}_renamed", *rows[0][1:]], *rows[1:]])

    return _json_or_csv(data, on_json, on_csv)


def wrong_columns(data: bytes) -> bytes:
    """Another table: a CSV header of other names, records of other keys."""
    return _json_or_csv(
        data,
        lambda doc: [{"a": 1, "b": 2}],
        lambda d: _csv_bytes([["a", "b", "c"], *_csv_rows(d)[1:]]),
    )


def bad_encoding(data: bytes) -> bytes:
    """Bytes that are not UTF-8, halfway through."""
    half = data.find(b"\n", len(data) // 2)
    at = half + 1 if half >= 0 else len(data) // 2
    return data[:at] + b"\xff\xfe\xfd" + data[at:]


# name -> (a change to each file's decoded bytes, or None: to its stored bytes).
CORRUPTIONS: dict[str, tuple[Text | None, Callable[[bytes], bytes]]] = {
    "empty": (None, lambda stored: b""),
    "truncated": (None, lambda stored: stored[: len(stored) // 2]),
    "wrong-json-shape": (lambda data: b'{"x":1}', bytes),
    "wrong-columns": (wrong_columns, bytes),
    "bad-encoding": (bad_encoding, bytes),
    "bad-compression": (None, lambda stored: stored[:10] + bytes(64) + stored[74:]),
    "a-tenth-of-the-rows": (tenth, bytes),
    "key-renamed": (key_renamed, bytes),
}


def rewrite(path: Path, text: Text | None, stored: Callable[[bytes], bytes]) -> None:
    """Given a dump file, rewrite it: ``text`` over its decoded bytes (each member of a zip),
    then ``stored`` over its bytes as stored."""
    raw = path.read_bytes()
    if text is not None:
        if path.suffix == ".gz":
            raw = gzip.compress(text(gzip.decompress(raw)), mtime=0)
        elif path.suffix == ".zip":
            out = io.BytesIO()
            with zipfile.ZipFile(io.BytesIO(raw)) as old, zipfile.ZipFile(out, "w") as new:
                for name in old.namelist():
                    new.writestr(name, text(old.read(name)), zipfile.ZIP_DEFLATED)
            raw = out.getvalue()
        else:
            raw = text(raw)
    path.write_bytes(stored(raw))


def dump_files(root: Path) -> list[Path]:
    """Given a dump (a file or a folder), return its files."""
    return [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())


def sampled(source: Source, into: Path) -> Path:
    """Given a source, copy the first rows of every file of its dump under ``into`` (a raw
    folder); return ``into``."""
    target = into / source.path
    copied(RAW / source.path, target)
    for path in dump_files(target):
        if path.suffix in (".gz", ".zip", ".csv"):
            rewrite(path, first_rows(SAMPLE_ROWS), bytes)
    return into


def copied(dump: Path, into: Path) -> None:
    """Given a dump (a file or a folder) and a path, copy the dump there."""
    if dump.is_dir():
        shutil.copytree(dump, into)
    else:
        into.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(dump, into)


def measured(needs: list[Source], source: Source, raw: Path) -> Expectation:
    """Given the sources a source reads after (a matched source's storefront), the source and
    a raw folder, return what reading it gives, as an expectation (a build's record)."""
    known, _ = read_observations(raw, needs, expected={})
    watched = Watched(source.read(raw / source.path, known))
    return Expectation(known.add(source.layer, watched), frozenset(watched.seen))


def test_every_bundled_source_has_an_expectation() -> None:
    assert sorted(EXPECTED) == sorted(s.layer.name for s in BUNDLED)
    assert len(BUNDLED) == 18
    assert all(e.rows > 0 and e.fields for e in EXPECTED.values())


# Sources a sample cannot stand for: the title matches of 300 rows find no game, and the
# early-window readers make one observation per game of thousands of review rows (a sample is
# one game; a tenth of it, the same game). Their expectations are the real dumps' own.
UNSAMPLED = {
    "hltb_2023 by title",
    "steam_reviews_window_2025-01",
    "steam_reviews_popular_2024-04",
    "steam_reviews_indie_2023-11",
}
# A latin-1 file has no byte that is not text (bad bytes halfway through change one row), and
# an uncompressed file has no compression to damage (64 zero bytes change a row or two).
UNDETECTABLE = {("steam_players_2018", "bad-encoding"), ("steam_players_2018", "bad-compression")}
CASES = [
    pytest.param(source, corruption, id=f"{source.layer.name}-{corruption}")
    for source in BUNDLED
    for corruption in sorted(CORRUPTIONS)
    if source.layer.name not in UNSAMPLED and (source.layer.name, corruption) not in UNDETECTABLE
]


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Source], tuple[Path, Any]]:
    """Return a function: given a source, (a raw folder holding its sample, and the
    storefront's sample for a matched source; its expectation measured there), each source
    sampled once for the module."""
    made: dict[str, tuple[Path, Expectation]] = {}

    def sample(source: Source) -> tuple[Path, Any]:
        if source.layer.name not in made:
            raw = sampled(source, tmp_path_factory.mktemp("raw"))
            # Matched sources match the storefront's names: they read after its sample, the
            # storefront's own (sampled once: its 65 files took 2 s each time under coverage).
            for need in needs_of(source):
                copied(sample(need)[0] / need.path, raw / need.path)
            made[source.layer.name] = (raw, measured(needs_of(source), source, raw))
        return made[source.layer.name]

    return sample


def needs_of(source: Source) -> list[Source]:
    """Given a source, return the sources it reads after (the storefront, for a matched one)."""
    return [BUNDLED[0]] if source.layer.name in MATCHED else []


@pytest.mark.slow
@pytest.mark.parametrize(("source", "corruption"), CASES)
def test_a_damaged_dump_is_refused_naming_its_file_and_check(
    source: Source, corruption: str, tmp_path: Path, samples: Callable[[Source], Any]
) -> None:
    sample, expectation = samples(source)
    raw = tmp_path / "raw"
    shutil.copytree(sample, raw)
    needs = needs_of(source)
    expected = {source.layer.name: expectation}
    assert expected[source.layer.name].rows > 0
    text, stored = CORRUPTIONS[corruption]
    for path in dump_files(raw / source.path):
        rewrite(path, text, stored)
    with pytest.raises(CatalogError) as refused:
        read_observations(raw, [*needs, source], expected=expected)
    message = str(refused.value)
    assert str(raw / source.path) in message
    assert "cannot read raw dump" in message or "fails its expectation" in message


def test_the_real_dumps_meet_their_expectations(bundled: tuple[Any, Any]) -> None:
    # The session's real catalogue was read through these checks: every source's count is
    # the one declared (the dumps are the last build's), not merely within the band.
    _, report = bundled
    assert dict(report.observations) == {n: e.rows for n, e in EXPECTED.items()}
