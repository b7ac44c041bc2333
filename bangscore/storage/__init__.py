"""Object storage for snapshots and exports (docs/API.md#snapshots): the interface, its records
and errors, a local folder (the default) and memory (tests) in :mod:`bangscore.storage.objects`,
S3 in :mod:`bangscore.storage.s3`, and :func:`open_object_storage`, which chooses one by location.
The S3 backend is imported only when chosen (boto3 is slow to import).
"""

from __future__ import annotations

from bangscore.errors import (
    InvalidLocation,
)
from bangscore.storage.objects import (
    LOCAL_WRITERS,
    POINTER_KEY,
    LocalStorage,
    MemoryStorage,
    ObjectInfo,
    ObjectStorage,
    StoredObject,
)

__all__ = [
    "LOCAL_WRITERS",
    "POINTER_KEY",
    "LocalStorage",
    "MemoryStorage",
    "ObjectInfo",
    "ObjectStorage",
    "StoredObject",
    "open_object_storage",
]


def open_object_storage(location: str) -> ObjectStorage:
    """Given a location (a folder, ``memory://`` or ``s3://bucket/prefix``), return its storage.

    Raises ValueError for an unknown scheme.
    """
    if location.startswith("s3://"):
        from bangscore.storage.s3 import S3Storage  # imported lazily: boto3 is slow to import

        return S3Storage.from_url(location)
    if location.startswith("memory://"):
        return MemoryStorage(location)
    if "://" in location:
        raise InvalidLocation(f"unsupported storage location: {location!r} (use a folder or s3://)")
    return LocalStorage(location)
