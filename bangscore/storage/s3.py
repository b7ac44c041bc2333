"""The S3 backend of the storage interface (any S3-compatible store: AWS S3, SeaweedFS, ...).

A location ``s3://bucket/prefix`` maps key ``k`` to the object ``prefix/k`` in ``bucket``.
Endpoint, region and credentials come from the standard AWS settings, which boto3 reads
itself (``AWS_ENDPOINT_URL``, ``AWS_DEFAULT_REGION``, ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, profiles, instance roles); :class:`S3Config` can override them.

Writes set Content-Type, Cache-Control (content-addressed bodies are immutable; manifests,
the pointer and anything else must be revalidated) and a SHA-256 checksum the store verifies.
Uploads run on a bounded thread pool; boto3 spends about 1.5-2 ms of CPU per request, so
``processes > 1`` spreads batches over several processes, each with its own threads
(see bench/PUBLISH.md for the measured gain).

The ``current`` pointer moves by a conditional PutObject: ``If-Match`` with the ETag read
together with the old value, or ``If-None-Match: *`` when there is no pointer yet. The store
must honour these headers (AWS S3 does; SeaweedFS 4.x does, atomically, as tests/build/test_s3.py
checks); a store that answers 501 to them raises ObjectStorageUnavailable rather than racing.
"""

from __future__ import annotations

import base64
import hashlib
import io
import multiprocessing
from collections.abc import Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, replace
from itertools import islice
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from bangscore.errors import (
    InvalidLocation,
    ObjectNotFound,
    ObjectStorageError,
    ObjectStorageUnavailable,
    PointerConflict,
)
from bangscore.storage.objects import (
    POINTER_KEY,
    ObjectInfo,
    RangeReader,
    StoredObject,
    _check_key,
)

if TYPE_CHECKING:
    from types_boto3_s3 import S3Client

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
BATCH = 500  # objects per process task: large enough to amortise pickling, small for memory
_NOT_FOUND = {"NoSuchKey", "NotFound", "404"}
_CONFLICT = {"PreconditionFailed", "ConditionalRequestConflict"}
# What reading a GetObject body may raise: botocore's (a read timeout, a body cut short) and
# the socket's (botocore wraps urllib3's as ResponseStreamingError).
_READ_ERRORS = (BotoCoreError, OSError)

T = TypeVar("T")


def cache_control(key: str) -> str:
    """Given a storage key, return its Cache-Control: immutable for content-addressed bodies and
    per-snapshot export files, ``no-cache`` for manifests, pointers and ``export/latest.json``."""
    if key.startswith("objects/"):
        return IMMUTABLE
    if key.startswith("export/") and key.count("/") >= 2:
        return IMMUTABLE
    return REVALIDATE


def checksum_sha256(body: bytes) -> str:
    """Given bytes, return their SHA-256 base64-encoded, as the x-amz-checksum-sha256 header."""
    return base64.b64encode(hashlib.sha256(body).digest()).decode()


_URL_OPTIONS: dict[str, Any] = {
    "threads": int,
    "processes": int,
    "max_attempts": int,
    "connect_timeout": float,
    "read_timeout": float,
}


@dataclass(frozen=True)
class S3Config:
    """Where and how to reach one S3 location.

    ``endpoint_url``, ``region``, ``access_key`` and ``secret_key`` default to None, meaning
    boto3's own resolution (environment, config files, roles). ``threads`` bounds concurrent
    requests per process; ``processes`` > 1 uploads batches from that many worker processes.
    Timeouts are seconds; ``max_attempts`` counts the first try (botocore "standard" retries).
    """

    bucket: str
    prefix: str = ""
    endpoint_url: str | None = None
    region: str | None = None
    access_key: str | None = None
    secret_key: str | None = None
    threads: int = 16
    processes: int = 1
    connect_timeout: float = 2.0
    read_timeout: float = 15.0
    max_attempts: int = 3

    @classmethod
    def from_url(cls, url: str, **options: Any) -> S3Config:
        """Given ``s3://bucket/prefix[?threads=N&processes=N]`` and field overrides, return the
        config. Upload tuning may ride in the query (``threads``, ``processes``,
        ``max_attempts``, ``connect_timeout``, ``read_timeout``), as for the Redis store URL.

        Raises InvalidLocation (a ValueError) if the URL is not s3://, names no bucket, or has
        an unknown or malformed option.
        """
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise InvalidLocation(f"not an s3://bucket/prefix location: {url!r}")
        tuning: dict[str, Any] = {}
        for name, value in parse_qsl(parts.query):
            if name not in _URL_OPTIONS:
                raise InvalidLocation(
                    f"unknown s3 option {name!r}; known: {', '.join(_URL_OPTIONS)}"
                )
            try:
                tuning[name] = _URL_OPTIONS[name](value)
            except ValueError as exc:
                raise InvalidLocation(f"s3 option {name}={value!r}: {exc}") from exc
        return cls(bucket=parts.netloc, prefix=parts.path.strip("/"), **{**tuning, **options})

    @property
    def url(self) -> str:
        """Return the location as ``s3://bucket/prefix``."""
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"


def make_client(config: S3Config) -> S3Client:
    """Given a config, return a boto3 S3 client with its pool sized to the thread count."""
    session = boto3.session.Session(
        aws_access_key_id=config.access_key,
        aws_secret_access_key=config.secret_key,
        region_name=config.region,
    )
    return session.client(
        "s3",
        endpoint_url=config.endpoint_url,
        config=Config(
            max_pool_connections=max(config.threads, 4),
            connect_timeout=config.connect_timeout,
            read_timeout=config.read_timeout,
            retries={"mode": "standard", "total_max_attempts": config.max_attempts},
            # We send our own SHA-256; without this botocore would add a CRC32 on top.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        ),
    )


class S3Storage:
    """A ObjectStorage on an S3 bucket and prefix. Thread-safe (boto3 clients are)."""

    def __init__(self, config: S3Config, client: S3Client | None = None) -> None:
        self.config = config
        self.location = config.url
        self.client = client if client is not None else make_client(config)
        self._root = f"{config.prefix}/" if config.prefix else ""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> S3Storage:
        """Given ``s3://bucket/prefix`` and optional S3Config fields, return the storage."""
        return cls(S3Config.from_url(url, **options))

    def _full(self, key: str) -> str:
        return self._root + _check_key(key)

    def _error(self, exc: Exception, key: str) -> ObjectStorageError:
        if isinstance(exc, ClientError):
            err = exc.response.get("Error", {})
            code = str(err.get("Code", ""))
            if code in _NOT_FOUND:
                return ObjectNotFound(key)
            if code in _CONFLICT or _status(exc) == 412:
                return PointerConflict(f"{self.location}/{key}: {code}")
            return ObjectStorageUnavailable(
                f"{self.location}/{key}: {code} {err.get('Message', '')}"
            )
        return ObjectStorageUnavailable(f"{self.location}/{key}: {exc}")

    # -- reads -------------------------------------------------------------------------------

    def get(self, key: str) -> bytes:
        """Given a key, return its bytes; raise ObjectNotFound or ObjectStorageUnavailable."""
        try:
            response = self.client.get_object(Bucket=self.config.bucket, Key=self._full(key))
            return response["Body"].read()
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, key) from exc

    def open_range(self, key: str, start: int, stop: int) -> RangeReader:
        """Given a key and a byte range [start, stop), return a reader of those bytes: one
        ranged GetObject (``Range: bytes=start-(stop-1)``) whose body is read a chunk at a
        time as the caller asks, so a download never holds the whole object. Raises
        ObjectNotFound or ObjectStorageUnavailable (also for an empty range past the end)."""
        if stop <= start:
            return RangeReader(io.BytesIO(b""), 0, key)
        try:
            response = self.client.get_object(
                Bucket=self.config.bucket, Key=self._full(key), Range=f"bytes={start}-{stop - 1}"
            )
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, key) from exc
        return RangeReader(response["Body"], stop - start, key, _READ_ERRORS)

    def list_keys(self, prefix: str) -> Iterator[str]:
        """Given a prefix, yield every key under it, in S3's (lexicographic) order."""
        paginator = self.client.get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(Bucket=self.config.bucket, Prefix=self._root + prefix):
                for item in page.get("Contents", []):
                    yield item["Key"][len(self._root) :]
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, prefix) from exc

    def list_objects(self, prefix: str) -> Iterator[ObjectInfo]:
        """Given a prefix, yield every object under it with its size and last write."""
        paginator = self.client.get_paginator("list_objects_v2")
        try:
            for page in paginator.paginate(Bucket=self.config.bucket, Prefix=self._root + prefix):
                for item in page.get("Contents", []):
                    key = item["Key"][len(self._root) :]
                    yield ObjectInfo(key, int(item["Size"]), item["LastModified"].timestamp())
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, prefix) from exc

    def presigned_url(self, key: str, expires_in: int) -> str:
        """Given a key and a lifetime in seconds (at most 7 days), return a presigned GET URL.

        Signing is local (no request); the URL answers 403 once expired.
        """
        return self.client.generate_presigned_url(
            "get_object",
            Params={"Bucket": self.config.bucket, "Key": self._full(key)},
            ExpiresIn=expires_in,
        )

    # -- writes ------------------------------------------------------------------------------

    def put(self, obj: StoredObject) -> None:
        """Given one object, upload it with its Content-Type, Cache-Control, SHA-256 and, for a
        compressed body, its Content-Encoding (so a CDN or a client reading the bucket directly
        decodes it; :meth:`get` returns the stored bytes as they are)."""
        extra: dict[str, Any] = (
            {"ContentEncoding": obj.content_encoding} if obj.content_encoding else {}
        )
        try:
            self.client.put_object(
                Bucket=self.config.bucket,
                Key=self._full(obj.key),
                Body=obj.body,
                ContentType=obj.content_type,
                CacheControl=cache_control(obj.key),
                ChecksumSHA256=checksum_sha256(obj.body),
                **extra,
            )
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, obj.key) from exc

    def put_many(self, objects: Iterable[StoredObject]) -> int:
        """Given objects, upload them concurrently and return how many were written.

        At most ``threads`` requests per process are in flight. On the first failure (of an
        upload or of the iterable itself) no further object is started and the error is
        raised once the running uploads finish; some objects may then be written.
        """
        if self.config.processes > 1:
            return self._put_processes(objects)
        with ThreadPoolExecutor(self.config.threads, thread_name_prefix="s3-put") as pool:
            return _bounded(pool, self.put, iter(objects), self.config.threads * 4, _one)

    def _put_processes(self, objects: Iterable[StoredObject]) -> int:
        worker = replace(self.config, processes=1)
        context = multiprocessing.get_context("spawn")  # fork would copy boto3's locks mid-use
        batches = _batches(objects, BATCH)
        with ProcessPoolExecutor(
            self.config.processes,
            mp_context=context,
            initializer=_init_worker,
            initargs=(worker,),
        ) as pool:
            return _bounded(pool, _put_batch, batches, self.config.processes * 2, len)

    def delete_many(self, keys: Iterable[str]) -> int:
        """Given keys, delete them in batches of 1000; return how many the store reports deleted.

        S3 reports a missing key as deleted, so the count can include keys that did not exist.
        """
        count = 0
        for batch in _batches(keys, 1000):
            try:
                response = self.client.delete_objects(
                    Bucket=self.config.bucket,
                    Delete={"Objects": [{"Key": self._full(k)} for k in batch], "Quiet": True},
                )
            except (ClientError, BotoCoreError) as exc:
                raise self._error(exc, batch[0]) from exc
            errors = response.get("Errors", [])
            if errors:
                raise ObjectStorageUnavailable(f"{self.location}: delete failed: {errors[0]}")
            count += len(batch)
        return count

    # -- the pointer -------------------------------------------------------------------------

    def _read_pointer(self) -> tuple[str | None, str | None]:
        try:
            response = self.client.get_object(
                Bucket=self.config.bucket, Key=self._full(POINTER_KEY)
            )
            value = response["Body"].read().decode().strip()
            return value or None, response["ETag"]
        except (ClientError, BotoCoreError) as exc:
            error = self._error(exc, POINTER_KEY)
            if isinstance(error, ObjectNotFound):
                return None, None
            raise error from exc

    def read_pointer(self) -> str | None:
        """Return the id in the ``current`` pointer, or None if no snapshot was published."""
        return self._read_pointer()[0]

    def swap_pointer(self, new: str, expected: str | None) -> None:
        """Set the pointer to ``new`` if it still holds ``expected``; else raise PointerConflict.

        The write is conditional on the ETag read with the old value (or on absence), so of two
        builds that read the same pointer exactly one write succeeds.
        """
        current, etag = self._read_pointer()
        if current != expected:
            raise PointerConflict(f"pointer is {current!r}, expected {expected!r}")
        condition: dict[str, Any] = {"IfMatch": etag} if etag else {"IfNoneMatch": "*"}
        body = new.encode()
        try:
            self.client.put_object(
                Bucket=self.config.bucket,
                Key=self._full(POINTER_KEY),
                Body=body,
                ContentType="text/plain; charset=utf-8",
                CacheControl=REVALIDATE,
                ChecksumSHA256=checksum_sha256(body),
                **condition,
            )
        except (ClientError, BotoCoreError) as exc:
            error = self._error(exc, POINTER_KEY)
            if _status(exc) == 501:
                error = ObjectStorageUnavailable(
                    f"{self.location}: the store does not support conditional writes"
                )
            raise error from exc


def _status(exc: Exception) -> int:
    if isinstance(exc, ClientError):
        return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
    return 0


def _one(_: object) -> int:
    return 1


def _batches(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _bounded(
    pool: Executor,
    fn: Any,
    items: Iterator[Any],
    window: int,
    weight: Any,
) -> int:
    """Run ``fn`` over ``items`` on ``pool`` with at most ``window`` tasks queued; return the
    sum of ``weight(item)`` over completed tasks. On any failure, cancel what has not
    started and re-raise after the running tasks end."""
    pending: dict[Future[Any], Any] = {}
    done_weight = 0

    def settle(futures: Iterable[Future[Any]]) -> int:
        total = 0
        for future in futures:
            future.result()
            total += weight(pending.pop(future))
        return total

    try:
        for item in items:
            pending[pool.submit(fn, item)] = item
            if len(pending) >= window:
                finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                done_weight += settle(finished)
        finished, _ = wait(list(pending))
        done_weight += settle(finished)
    except BaseException:
        for future in pending:
            future.cancel()
        wait(list(pending))
        raise
    return done_weight


_WORKER: S3Storage | None = None


def _init_worker(config: S3Config) -> None:
    global _WORKER
    _WORKER = S3Storage(config)


def _put_batch(batch: list[StoredObject]) -> int:
    assert _WORKER is not None, "worker process was not initialised"
    return _WORKER.put_many(batch)
