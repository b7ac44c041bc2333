"""Publishing snapshots to object storage: content-addressed objects, a manifest, the pointer
last. The layout itself is :mod:`bangscore.manifest`.

A publish stores every JSON and HTML body above 1 KB gzip-compressed and only so (the shim
decompresses for a client that takes no encoding; :mod:`bangscore.manifest`), then writes the
bodies the storage does not already hold (so an unchanged page costs
nothing on the next build), then the manifest, then moves ``current`` by compare-and-swap.
Until that last step nothing of the new snapshot is visible; if any step fails, the pointer
still names the previous, complete snapshot. Pruning keeps the newest ``keep`` snapshots
(and always the current one) and sweeps the bodies no kept manifest references;
:func:`verify` reads every object of a published snapshot back against its digest.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from bangscore.build.stages import StageClock
from bangscore.errors import ObjectNotFound, SnapshotError
from bangscore.manifest import (
    GZIP,
    PAGES_PENDING,
    Encoded,
    Entry,
    GzipError,
    Manifest,
    compressible,
    digest,
    gunzip_body,
    gzip_body,
    list_snapshots,
    manifest_key,
    object_key,
    pages_pending,
    read_manifest,
)
from bangscore.storage import ObjectStorage, StoredObject

GC_GRACE_SECONDS = 24 * 3600  # an unreferenced object younger than this may be a build's


def new_snapshot_id(now: dt.datetime) -> str:
    """Given the build time, return its id like ``20261122T031500Z-9f2c``: the UTC second,
    then the fraction of that second in 1/65,536ths as four hex digits.

    Ids sort in build order, even for two builds in one second (a random suffix did not, so
    ``snapshots list`` and ``prune``'s "newest" could swap them); two builds would need to
    start within 16 microseconds of each other to share an id, and the pointer's
    compare-and-swap still refuses the second.
    """
    utc = now.astimezone(dt.UTC)
    return f"{utc:%Y%m%dT%H%M%SZ}-{utc.microsecond * 65_536 // 1_000_000:04x}"


@dataclass(frozen=True)
class PublishReport:
    """What a publish did: objects in the snapshot, uploaded, skipped as unchanged, bytes, time,
    and the stored objects its manifest names (content-address names: :attr:`Entry.stored`)."""

    snapshot_id: str
    objects: int
    uploaded: int
    skipped: int
    bytes_total: int
    bytes_uploaded: int
    seconds: float
    pruned: tuple[str, ...]
    referenced: frozenset[str] = frozenset()


def publish(
    storage: ObjectStorage,
    snapshot_id: str,
    objects: Iterable[StoredObject],
    *,
    created_at: dt.datetime,
    meta: dict[str, Any],
    keep: int,
    progress: bool = False,
    repair: bool = False,
    stages: StageClock | None = None,
    total: int | None = None,
) -> PublishReport:
    """Given a store and a snapshot's objects, write them, then the manifest, then the pointer.

    A body already in the store is not uploaded again if the stored object has the right
    size, and with ``repair`` only if its bytes also hash to its key; a missing, truncated or
    (with ``repair``) corrupted object is uploaded again, so a new build heals the store.
    Raises PointerConflict if another build moved the pointer meanwhile (its snapshot wins;
    ours is removed), or ObjectStorageError from the backend; either way ``current`` is unchanged.
    With ``stages``, the compression's time is counted to its ``compress`` stage; ``total``
    (about how many objects come) is the progress bar's total, so it shows an ETA.
    """
    started = time.perf_counter()
    expected = storage.read_pointer()
    upload = _Upload(storage, repair=repair, stages=stages)
    storage.put_many(upload.fresh(objects, progress=progress, total=total))
    entries = upload.entries
    manifest = Manifest(snapshot_id, created_at, meta, entries)
    storage.put_many([StoredObject(manifest_key(snapshot_id), manifest.to_bytes())])
    try:
        storage.swap_pointer(snapshot_id, expected)
    except BaseException:
        storage.delete_many([manifest_key(snapshot_id)])
        raise
    referenced = frozenset(name for entry in entries.values() for name in entry.stored)
    pruned = prune(storage, keep, known={snapshot_id: referenced})
    return PublishReport(
        snapshot_id=snapshot_id,
        objects=len(entries),
        uploaded=upload.uploaded,
        skipped=len(entries) - upload.uploaded,
        bytes_total=upload.bytes_total,
        bytes_uploaded=upload.bytes_uploaded,
        seconds=time.perf_counter() - started,
        pruned=tuple(pruned),
        referenced=referenced,
    )


class _Upload:
    """One publish's writing of bodies: each object's manifest entry by key, and what was
    uploaded; a body the store already holds intact is not uploaded again."""

    def __init__(
        self, storage: ObjectStorage, *, repair: bool = False, stages: StageClock | None = None
    ) -> None:
        self.storage = storage
        self.repair = repair
        self.stages = stages
        self.sizes = {info.key: info.size for info in storage.list_objects("objects/")}
        self.present: set[str] = set()
        self.entries: dict[str, Entry] = {}
        self.uploaded = self.bytes_total = self.bytes_uploaded = 0

    def fresh(
        self, objects: Iterable[StoredObject], *, progress: bool, total: int | None
    ) -> Iterator[StoredObject]:
        """Given a snapshot's objects, record each one's entry and yield the stored objects
        to upload (content-addressed, compressed where they are), with a progress bar."""
        bar = tqdm(desc="publish", unit="obj", disable=not progress, total=total)
        for obj in objects:
            bar.update()
            entry, body = _stored_form(obj, self.stages)
            self.entries[obj.key] = entry
            sha = entry.stored[0]
            self.bytes_total += len(body)
            if sha in self.present or _intact(
                self.storage, sha, len(body), self.sizes, repair=self.repair
            ):
                self.present.add(sha)
                continue
            self.present.add(sha)
            self.uploaded += 1
            self.bytes_uploaded += len(body)
            coding = GZIP if entry.encodings else None
            yield StoredObject(object_key(sha), body, obj.content_type, coding)
        bar.total = bar.n  # the total was an estimate: the last line says what was published
        bar.close()


def complete_pages(
    storage: ObjectStorage,
    snapshot_id: str,
    objects: Iterable[StoredObject],
    *,
    progress: bool = False,
    total: int | None = None,
) -> int:
    """Given a store, a snapshot published without its games' pages and badges (its
    manifest's meta ``pages`` is ``"pending"``: ``bangscore build --finish-in-background``)
    and those objects (:meth:`bangscore.build.game_pages.LaterPages.objects`), write them,
    then the snapshot's manifest again with their entries added and ``pages`` gone; return
    how many objects were added.

    The only manifest ever written twice, and only to add: every entry it had keeps its
    bytes, so an answer served meanwhile stays right, and the pointer does not move (the
    shim reloads a pending snapshot's manifest when it changes, :mod:`bangscore.shim.source`).
    Raises SnapshotError if the snapshot is not pending, ObjectStorageError from the backend.
    """
    manifest = read_manifest(storage, snapshot_id)
    if not pages_pending(manifest.meta):
        raise SnapshotError(f"snapshot {snapshot_id} is not waiting for its pages")
    upload = _Upload(storage)
    storage.put_many(upload.fresh(objects, progress=progress, total=total))
    meta = {k: v for k, v in manifest.meta.items() if k != PAGES_PENDING}
    done = Manifest(snapshot_id, manifest.created_at, meta, {**manifest.entries, **upload.entries})
    storage.put_many([StoredObject(manifest_key(snapshot_id), done.to_bytes())])
    return len(upload.entries)


def _stored_form(obj: StoredObject, stages: StageClock | None = None) -> tuple[Entry, bytes]:
    """Given an object of a snapshot (and the build's stage clock, or None), return its
    manifest entry and the bytes stored for it: gzip-compressed when
    :func:`~bangscore.manifest.compressible`, else as they are."""
    sha = digest(obj.body)
    if not compressible(obj.content_type, len(obj.body)):
        return Entry(sha, obj.content_type, len(obj.body)), obj.body
    if stages is None:
        packed = gzip_body(obj.body)
    else:
        wall, cpu = time.perf_counter(), time.process_time()
        packed = gzip_body(obj.body)
        stages.add("compress", time.perf_counter() - wall, time.process_time() - cpu)
    encoded = Encoded(GZIP, digest(packed), len(packed))
    return Entry(sha, obj.content_type, len(obj.body), (encoded,)), packed


def _intact(
    storage: ObjectStorage, sha: str, size: int, sizes: dict[str, int], *, repair: bool
) -> bool:
    key = object_key(sha)
    if sizes.get(key) != size:
        return False
    if not repair:
        return True
    try:
        return digest(storage.get(key)) == sha
    except ObjectNotFound:
        return False


def collect_garbage(
    storage: ObjectStorage,
    *,
    grace_seconds: float,
    now: float | None = None,
    known: Mapping[str, frozenset[str]] | None = None,
) -> tuple[int, int]:
    """Given a store, delete the objects no snapshot manifest references that were written
    more than ``grace_seconds`` ago (younger ones may belong to a build in progress); return
    (objects deleted, bytes freed). ``known`` gives, by snapshot id, what a manifest this
    process just wrote references (:attr:`PublishReport.referenced`), so it is not read back:
    reading the real catalogue's 138,000 entries again took about 2% of a build."""
    live = _referenced(storage, known=known)
    cutoff = (time.time() if now is None else now) - grace_seconds
    doomed = [
        info
        for info in storage.list_objects("objects/")
        if info.key.rsplit("/", 1)[-1] not in live and info.modified <= cutoff
    ]
    storage.delete_many(info.key for info in doomed)
    return len(doomed), sum(info.size for info in doomed)


def _referenced(
    storage: ObjectStorage,
    ids: Iterable[str] | None = None,
    known: Mapping[str, frozenset[str]] | None = None,
) -> set[str]:
    found: set[str] = set()
    for snapshot_id in list_snapshots(storage) if ids is None else ids:
        if known and snapshot_id in known:
            found |= known[snapshot_id]
            continue
        try:
            for entry in read_manifest(storage, snapshot_id).entries.values():
                found.update(entry.stored)
        except SnapshotError:
            continue  # an unreadable manifest protects nothing; verify reports it
    return found


def prune(
    storage: ObjectStorage, keep: int, *, known: Mapping[str, frozenset[str]] | None = None
) -> list[str]:
    """Given a store, delete all but the newest ``keep`` snapshots (never the current one) and
    the bodies no kept manifest references; return the ids deleted, oldest first. ``known``
    is as :func:`collect_garbage` takes it (what a manifest just written references)."""
    ids = list_snapshots(storage)
    current = storage.read_pointer()
    kept = set(ids[-keep:]) | ({current} if current else set())
    doomed = [i for i in ids if i not in kept]
    storage.delete_many(manifest_key(i) for i in doomed)
    if doomed:
        live = _referenced(storage, sorted(kept), known)
        storage.delete_many(
            key for key in list(storage.list_keys("objects/")) if key.rsplit("/", 1)[-1] not in live
        )
    return doomed


def rollback(storage: ObjectStorage, snapshot_id: str) -> str | None:
    """Given a store and a kept snapshot id, make it current; return the previous current id.

    Raises SnapshotError if the snapshot does not exist, PointerConflict on a race.
    """
    read_manifest(storage, snapshot_id)
    previous = storage.read_pointer()
    storage.swap_pointer(snapshot_id, previous)
    return previous


def _decodes_to(body: bytes, sha: str, identity_sha: str) -> bool:
    """Given a stored object, its digest and its identity's digest, return True if it is the
    identity or decompresses to it."""
    if sha == identity_sha:
        return True
    try:
        return digest(gunzip_body(body)) == identity_sha
    except GzipError:
        return False


@dataclass(frozen=True)
class VerifyReport:
    """Result of checking every object of a snapshot against its manifest digest."""

    snapshot_id: str
    checked: int
    missing: tuple[str, ...]
    corrupt: tuple[str, ...]
    # Stored bodies read: objects with the same bytes share one, each gzip form is one more.
    bodies: int = 0

    @property
    def ok(self) -> bool:
        """Return True when no object is missing or corrupt."""
        return not self.missing and not self.corrupt


def verify(storage: ObjectStorage, snapshot_id: str, *, progress: bool = False) -> VerifyReport:
    """Given a store and a snapshot id, read every object and compare its SHA-256.

    Raises SnapshotError if the manifest itself is missing or corrupt.
    """
    manifest = read_manifest(storage, snapshot_id)
    missing: list[str] = []
    corrupt: list[str] = []
    by_digest: dict[str, list[str]] = {}
    identity: dict[str, str] = {}  # digest of an encoded object -> its identity's digest
    for key, entry in manifest.entries.items():
        for sha in entry.stored:
            by_digest.setdefault(sha, []).append(key)
            identity[sha] = entry.sha256
    bodies = by_digest.items()
    for sha, keys in tqdm(bodies, desc="verify bodies", unit="body", disable=not progress):
        try:
            body = storage.get(object_key(sha))
        except ObjectNotFound:
            missing.extend(keys)
            continue
        if digest(body) != sha or not _decodes_to(body, sha, identity[sha]):
            corrupt.extend(keys)
    return VerifyReport(
        snapshot_id, len(manifest.entries), tuple(missing), tuple(corrupt), len(by_digest)
    )
