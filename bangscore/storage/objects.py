"""Object storage for snapshots: one small interface, a local folder by default, memory for tests.

Keys are ``/``-separated relative paths such as ``snapshots/<id>/games/620.json``. The
``current`` pointer is a separate tiny object holding the id of the live snapshot; it moves
only by compare-and-swap, so two concurrent builds can never both win.

The S3 backend lives in :mod:`bangscore.storage.s3`; :func:`bangscore.storage.open_object_storage`
chooses a backend by location.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import queue
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bangscore.errors import (
    InvalidLocation,
    ObjectNotFound,
    ObjectStorageUnavailable,
    PointerConflict,
)
from bangscore.storage.object_table import BATCH as TABLE_BATCH
from bangscore.storage.object_table import FILENAME as TABLE_FILE
from bangscore.storage.object_table import ObjectTable

POINTER_KEY = "current"
OBJECTS_PREFIX = "objects/"  # the content-addressed bodies (bangscore.manifest)

# Writes to a local folder overlap with the build's rendering: file system calls release the GIL.
LOCAL_WRITERS = 1
PUT_CHUNK = 64  # objects a hand-off to the writer: about 150 KB of stored bodies
# Bytes a ranged read hands over at a time: a download holds one chunk per connection, so 48
# connections that read nothing hold 3 MB, not 48 copies of the file.
READ_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class ObjectInfo:
    """One stored object as listed: its key, size in bytes and last write (Unix seconds)."""

    key: str
    size: int
    modified: float


@dataclass(frozen=True, slots=True)
class StoredObject:
    """One object to write: key, body bytes, its HTTP Content-Type and, for a compressed body,
    its Content-Encoding (``gzip``; an S3 store records it as the object's metadata)."""

    key: str
    body: bytes
    content_type: str = "application/json"
    content_encoding: str | None = None


class Chunked(Protocol):
    """A readable binary stream: ``read(n)`` returns up to n bytes (b"" at its end)."""

    def read(self, size: int, /) -> bytes:
        """Given a byte count, return up to that many bytes; b"" at the end."""
        ...

    def close(self) -> None:
        """Release the stream (a file handle, an HTTP connection)."""
        ...


class RangeReader:
    """``length`` bytes of an open stream, handed over :data:`READ_CHUNK` bytes at a time.

    :meth:`read` returns the next chunk, b"" once ``length`` bytes were read; a stream that ends
    sooner (a file cut short since) raises ObjectStorageUnavailable, never a short download
    passed off as whole. ``fail`` maps the stream's own errors (OSError, botocore's) to an
    ObjectStorageError. Not thread-safe: one reader per download.
    """

    def __init__(
        self,
        stream: Chunked,
        length: int,
        key: str,
        fail: type[Exception] | tuple[type[Exception], ...] = OSError,
    ) -> None:
        self._stream = stream
        self.left = length
        self.key = key
        self._fail = fail

    def read(self) -> bytes:
        """Return the next chunk of the range (at most :data:`READ_CHUNK` bytes), b"" at its
        end; raise ObjectStorageUnavailable if the object cannot be read or ends early."""
        if self.left <= 0:
            return b""
        try:
            data = self._stream.read(min(READ_CHUNK, self.left))
        except self._fail as exc:
            raise ObjectStorageUnavailable(f"{self.key}: {exc}") from exc
        if not data:
            raise ObjectStorageUnavailable(f"{self.key}: ended {self.left} bytes early")
        self.left -= len(data)
        return data

    def close(self) -> None:
        """Release the stream; safe to call twice."""
        with contextlib.suppress(Exception):
            self._stream.close()


class ObjectStorage(Protocol):
    """The storage interface every backend implements (local folder, memory, S3)."""

    location: str

    def get(self, key: str) -> bytes:
        """Given a key, return its bytes; raise ObjectNotFound or ObjectStorageUnavailable."""
        ...

    def open_range(self, key: str, start: int, stop: int) -> RangeReader:
        """Given a key and a byte range [start, stop) inside the object, return a reader of
        those bytes in chunks (the object is opened now, read as the caller asks); raise
        ObjectNotFound or ObjectStorageUnavailable."""
        ...

    def put_many(self, objects: Iterable[StoredObject]) -> int:
        """Given objects, write them all; return how many were written. Raise ObjectStorageError."""
        ...

    def list_keys(self, prefix: str) -> Iterator[str]:
        """Given a prefix, yield every key under it."""
        ...

    def list_objects(self, prefix: str) -> Iterator[ObjectInfo]:
        """Given a prefix, yield every object under it with its size and last write."""
        ...

    def delete_many(self, keys: Iterable[str]) -> int:
        """Given keys, delete those that exist and return how many were deleted."""
        ...

    def read_pointer(self) -> str | None:
        """Return the id in the ``current`` pointer, or None if no snapshot was published."""
        ...

    def swap_pointer(self, new: str, expected: str | None) -> None:
        """Set the pointer to ``new`` if it still holds ``expected``; else raise PointerConflict."""
        ...


def _check_key(key: str) -> str:
    """Given a key, return it if safe to map onto a path; raise ValueError on traversal."""
    parts = key.split("/")
    if not key or key.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise InvalidLocation(f"unsafe storage key: {key!r}")
    return key


def _slice(body: bytes, key: str, start: int, stop: int) -> RangeReader:
    """Given an object's bytes read whole, return a reader of [start, stop) of them."""
    return RangeReader(io.BytesIO(memoryview(body)[start:stop]), stop - start, key)


class LocalStorage:
    """A folder on disk. The content-addressed bodies (keys under ``objects/``) are rows of
    one SQLite file (:mod:`bangscore.object_table`: a body per file cost a 4 KB block each);
    every other key (manifests, the pointer) is a file, written to a temporary file and
    renamed into place. A body stored as a file by an older build is still read, listed and
    deleted."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.location = str(self.root)
        self._root = os.fspath(self.root)
        self._made: set[str] = set()  # folders known to exist: one mkdir each per process
        self._table = ObjectTable(self._root)

    def _path(self, key: str) -> Path:
        return self.root / _check_key(key)

    def get(self, key: str) -> bytes:
        if key.startswith(OBJECTS_PREFIX):
            try:
                body = self._table.get(_check_key(key))
            except sqlite3.Error as exc:
                raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc
            if body is not None:
                return body
        try:
            return self._path(key).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
            raise ObjectNotFound(key) from exc
        except OSError as exc:
            raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc

    def open_range(self, key: str, start: int, stop: int) -> RangeReader:
        if key.startswith(OBJECTS_PREFIX):  # a table row: small, read whole
            return _slice(self.get(key), key, start, stop)
        try:
            stream = self._path(key).open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
            raise ObjectNotFound(key) from exc
        except OSError as exc:
            raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc
        try:
            stream.seek(start)
        except OSError as exc:
            stream.close()
            raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc
        return RangeReader(stream, stop - start, key)

    def _write(self, path: str, body: bytes) -> None:
        parent = os.path.dirname(path)
        if parent not in self._made:
            os.makedirs(parent, exist_ok=True)
            self._made.add(parent)
        # One writer per key at a time (content-addressed bodies, one pointer lock), so a
        # temporary name unique to this process and thread is enough: cheaper than mkstemp's.
        tmp = f"{parent}/.tmp-{os.path.basename(path)}-{os.getpid()}-{threading.get_ident()}"
        try:
            try:
                fh = open(tmp, "wb")  # noqa: SIM115 -- closed below, after a retry
            except FileNotFoundError:  # the folder was removed since: make it again
                os.makedirs(parent, exist_ok=True)
                fh = open(tmp, "wb")  # noqa: SIM115
            with fh:
                fh.write(body)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def _put(self, obj: StoredObject) -> None:
        self._write(f"{self._root}/{_check_key(obj.key)}", obj.body)

    def put_many(self, objects: Iterable[StoredObject]) -> int:
        # Writer threads take the objects from a short queue, so the caller's producing the
        # next bodies (rendering, hashing) overlaps the file system calls (they drop the GIL).
        # They are handed over in chunks: a queue hand-off per object (a lock, a wake-up and a
        # switch of the GIL each) made 138,000 small objects cost 4.7-5.0 s of CPU, not 4.0.
        todo: queue.Queue[list[StoredObject] | None] = queue.Queue(LOCAL_WRITERS * 4)
        failures: list[BaseException] = []

        def writer() -> None:
            rows: list[tuple[str, bytes]] = []  # bodies, written to the table in batches
            while (chunk := todo.get()) is not None:
                if failures:
                    continue  # drain: the caller stops at the first failure
                try:
                    for obj in chunk:
                        if obj.key.startswith(OBJECTS_PREFIX):
                            rows.append((_check_key(obj.key), obj.body))
                            if len(rows) >= TABLE_BATCH:
                                self._table.put_many(rows)
                                rows = []
                        else:
                            self._put(obj)
                except BaseException as exc:  # re-raised by the caller, in its thread
                    failures.append(exc)
            try:
                if rows and not failures:
                    self._table.put_many(rows)
            except BaseException as exc:
                failures.append(exc)

        threads = [
            threading.Thread(target=writer, name=f"local-put-{n}", daemon=True)
            for n in range(LOCAL_WRITERS)
        ]
        for thread in threads:
            thread.start()
        count = 0
        chunk: list[StoredObject] = []
        try:
            for obj in objects:
                if failures:
                    break
                chunk.append(obj)
                count += 1
                if len(chunk) == PUT_CHUNK:
                    todo.put(chunk)
                    chunk = []
            if chunk and not failures:
                todo.put(chunk)
        finally:
            for _ in threads:
                todo.put(None)
            for thread in threads:
                thread.join()
        if failures:
            exc = failures[0]
            if isinstance(exc, OSError | sqlite3.Error):
                raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc
            raise exc
        return count

    def list_keys(self, prefix: str) -> Iterator[str]:
        for info in self.list_objects(prefix):
            yield info.key

    def list_objects(self, prefix: str) -> Iterator[ObjectInfo]:
        for key, entry in self._files(prefix):
            with contextlib.suppress(FileNotFoundError):
                stat = entry.stat()
                yield ObjectInfo(key, stat.st_size, stat.st_mtime)
        if prefix.startswith(OBJECTS_PREFIX) or OBJECTS_PREFIX.startswith(prefix):
            try:
                rows = list(self._table.list(prefix))
            except sqlite3.Error as exc:
                raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc
            for key, size, modified in rows:
                yield ObjectInfo(key, size, modified)

    def _files(self, prefix: str) -> list[tuple[str, os.DirEntry[str]]]:
        """Given a key prefix (a folder), return (key, directory entry) of every file under it
        but temporary ones, in path order: one directory scan, no stat per file."""
        base = f"{self._root}/{prefix}".rstrip("/") if prefix else self._root
        found: list[tuple[str, os.DirEntry[str]]] = []
        folders = [base]
        while folders:
            folder = folders.pop()
            try:
                entries = list(os.scandir(folder))
            except (FileNotFoundError, NotADirectoryError):
                continue
            for entry in entries:
                if entry.is_dir():
                    folders.append(entry.path)
                elif entry.is_file() and not entry.name.startswith((".tmp-", TABLE_FILE)):
                    found.append((entry.path[len(self._root) + 1 :], entry))
        found.sort(key=lambda pair: pair[0].split("/"))  # folder by folder, as paths sort
        return found

    def delete_many(self, keys: Iterable[str]) -> int:
        keys = list(keys)
        try:
            count = self._table.delete_many(k for k in keys if k.startswith(OBJECTS_PREFIX))
        except sqlite3.Error as exc:
            raise ObjectStorageUnavailable(f"{self.location}: {exc}") from exc
        for key in keys:
            path = self._path(key)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                count += 1
                # Drop folders left empty so a pruned store does not keep a tree of husks.
                with contextlib.suppress(OSError):
                    path.parent.rmdir()
        return count

    def read_pointer(self) -> str | None:
        try:
            return self.get(POINTER_KEY).decode().strip() or None
        except ObjectNotFound:
            return None

    def swap_pointer(self, new: str, expected: str | None) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # An advisory lock makes read-compare-write atomic across processes on this host.
        with open(self.root / ".pointer.lock", "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            current = self.read_pointer()
            if current != expected:
                raise PointerConflict(f"pointer is {current!r}, expected {expected!r}")
            self._write(f"{self._root}/{POINTER_KEY}", new.encode())


class MemoryStorage:
    """A dict in memory, for tests. Thread-safe; counts gets so tests can see cache hits."""

    def __init__(self, location: str = "memory://") -> None:
        self.location = location
        self.objects: dict[str, bytes] = {}
        self.content_types: dict[str, str] = {}
        self.gets = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes:
        with self._lock:
            self.gets += 1
            try:
                return self.objects[_check_key(key)]
            except KeyError as exc:
                raise ObjectNotFound(key) from exc

    def open_range(self, key: str, start: int, stop: int) -> RangeReader:
        return _slice(self.get(key), key, start, stop)

    def put_many(self, objects: Iterable[StoredObject]) -> int:
        count = 0
        for obj in objects:
            with self._lock:
                self.objects[_check_key(obj.key)] = obj.body
                self.content_types[obj.key] = obj.content_type
            count += 1
        return count

    def list_keys(self, prefix: str) -> Iterator[str]:
        with self._lock:
            keys = sorted(k for k in self.objects if k.startswith(prefix))
        yield from keys

    def list_objects(self, prefix: str) -> Iterator[ObjectInfo]:
        for key in self.list_keys(prefix):
            with self._lock:
                found = self.objects.get(key)
            if found is not None:
                yield ObjectInfo(key, len(found), 0.0)  # written "long ago": gc may take it

    def delete_many(self, keys: Iterable[str]) -> int:
        count = 0
        with self._lock:
            for key in keys:
                if self.objects.pop(key, None) is not None:
                    count += 1
        return count

    def read_pointer(self) -> str | None:
        with self._lock:
            raw = self.objects.get(POINTER_KEY)
        return raw.decode() if raw else None

    def swap_pointer(self, new: str, expected: str | None) -> None:
        with self._lock:
            raw = self.objects.get(POINTER_KEY)
            current = raw.decode() if raw else None
            if current != expected:
                raise PointerConflict(f"pointer is {current!r}, expected {expected!r}")
            self.objects[POINTER_KEY] = new.encode()
