"""The lazy manifest a replica reads (bangscore/manifest.py, issue 36): every entry found as the
whole manifest gives it, none invented, from the very bytes the builder writes."""

from __future__ import annotations

import datetime as dt
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.errors import SnapshotError
from bangscore.manifest import Encoded, Entry, LazyEntries, Manifest, ManifestView, digest

CREATED = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
KEYS = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + "/-_.=,é中"),
    min_size=1,
    max_size=40,
)


def entry(n: int, gzip: bool) -> Entry:
    sha = digest(str(n).encode())
    encodings = (Encoded("gzip", digest(f"gz{n}".encode()), n // 2 + 1),) if gzip else ()
    return Entry(sha, "application/json", n, encodings)


def manifest(keys: list[str]) -> Manifest:
    entries = {k: entry(i, i % 2 == 0) for i, k in enumerate(keys)}
    meta = {"base_url": "https://x.test", "note": '"objects":{ in meta'}
    return Manifest("s1", CREATED, meta, entries)


@given(st.lists(KEYS, min_size=1, max_size=200, unique=True), st.lists(KEYS, max_size=20))
def test_every_entry_is_found_as_the_whole_manifest_gives_it(
    keys: list[str], others: list[str]
) -> None:
    whole = manifest(keys)
    view = ManifestView.from_bytes(whole.to_bytes())
    assert (view.id, view.created_at, view.meta) == (whole.id, whole.created_at, whole.meta)
    for key in keys:
        assert view.entries[key] == whole.entries[key]
        assert key in view.entries
    for key in others:
        assert view.entries.get(key) == whole.entries.get(key)
    assert list(view.entries) == sorted(keys)
    assert len(view.entries) == len(keys)


def test_the_real_layout_is_read_lazily_and_an_other_one_whole() -> None:
    whole = manifest([f"games/{n}.json" for n in range(1000)])
    assert isinstance(ManifestView.from_bytes(whole.to_bytes()).entries, LazyEntries)
    # Pretty-printed (another writer): read whole, the same entries.
    import orjson

    pretty = orjson.dumps(orjson.loads(whole.to_bytes()), option=orjson.OPT_INDENT_2)
    view = ManifestView.from_bytes(pretty)
    assert dict(view.entries) == whole.entries


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"{", id="truncated"),
        pytest.param(b'{"schema_version":9,"objects":{}}', id="unknown-schema"),
    ],
)
def test_a_corrupt_manifest_is_a_snapshot_error(raw: bytes) -> None:
    with pytest.raises(SnapshotError):
        ManifestView.from_bytes(raw)
