"""The lazy manifest a replica reads (bangscore/manifest.py, issue 36): every entry found as the
whole manifest gives it, none invented, from the very bytes the builder writes. And the gzip
the builder stores (zlib-ng): what any client's or nginx's standard inflate reads back."""

from __future__ import annotations

import datetime as dt
import gzip
import string
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.build.publish import verify
from bangscore.errors import SnapshotError
from bangscore.manifest import (
    Encoded,
    Entry,
    GzipError,
    LazyEntries,
    Manifest,
    ManifestView,
    decode_stored,
    digest,
    gunzip_body,
    gzip_body,
    manifest_key,
    object_key,
    read_body,
)
from bangscore.storage import LocalStorage, StoredObject

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


@given(st.binary(max_size=5000) | st.text(max_size=3000).map(str.encode))
def test_a_stored_gzip_body_is_standard_gzip_with_no_time_or_name(body: bytes) -> None:
    packed = gzip_body(body)
    assert gzip.decompress(packed) == body  # Python's stdlib, as clients read it
    assert zlib.decompress(packed, wbits=31) == body
    assert gunzip_body(packed) == body
    # magic, deflate, no flags (so no name), modification time 0
    assert packed[:8] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00"
    assert gzip_body(body) == packed


@pytest.mark.parametrize(
    "packed",
    [
        pytest.param(gzip.compress(b"a body of some length" * 20)[:-6], id="truncated"),
        pytest.param(b"\x1f\x8b\x08\x00garbage", id="garbage"),
        pytest.param(b'{"not": "gzip"}', id="not-gzip"),
    ],
)
def test_a_corrupt_gzip_body_raises_gzip_error(packed: bytes) -> None:
    with pytest.raises(GzipError):
        gunzip_body(packed)


BODY = b'{"appid": 620, "name": "Portal 2"}' * 40


def gzip_entry(stored: bytes, body: bytes = BODY) -> Entry:
    """An entry for ``body`` stored gzip-compressed as ``stored`` (whatever those bytes are)."""
    return Entry(digest(body), "application/json", len(body), (Encoded("gzip", digest(stored), 9),))


@pytest.mark.parametrize(
    ("stored", "error"),
    [
        pytest.param(b"not gzip at all", "does not decompress", id="not-gzip"),
        pytest.param(gzip_body(b"another body"), "decompresses to other bytes", id="other-body"),
    ],
)
def test_stored_bytes_that_do_not_give_the_identity_are_a_snapshot_error(
    tmp_path: Path, stored: bytes, error: str
) -> None:
    with pytest.raises(SnapshotError, match=error):
        decode_stored(gzip_entry(stored), stored)
    # and verify counts the key corrupt, whether the object is in the store or not
    store = LocalStorage(tmp_path)
    entries = {"games/620.json": gzip_entry(stored), "games/10.json": gzip_entry(b"gone")}
    store.put_many(
        [
            StoredObject(object_key(digest(stored)), stored),
            StoredObject(manifest_key("s1"), Manifest("s1", CREATED, {}, entries).to_bytes()),
        ]
    )
    report = verify(store, "s1")
    assert report.corrupt == ("games/620.json",)
    assert report.missing == ("games/10.json",)
    with pytest.raises(SnapshotError, match="is missing"):
        read_body(store, entries["games/10.json"])


def test_a_stored_gzip_body_reads_back_as_its_identity(tmp_path: Path) -> None:
    packed = gzip_body(BODY)
    entry = gzip_entry(packed)
    assert decode_stored(entry, packed) == BODY
    store = LocalStorage(tmp_path)
    store.put_many([StoredObject(object_key(digest(packed)), packed)])
    assert read_body(store, entry) == BODY
