"""``GET /api/v1/export``: the latest Bulk export manifest with download links, bulk keys only.

Links: an S3 export store gets presigned GET URLs (the store checks them; the shim is not
in the download path). A local export folder cannot presign, so the shim serves its files
itself at ``{base_url}/export/<snapshot id>/<file>?expires=<unix s>&signature=<sig>``: an
HMAC-SHA256 (itsdangerous) over the key and the expiry, with a secret shared by every
replica (the session secret: ``BANGSCORE_SESSION_SECRET``, else ``STATE/session_secret``).
Like a presigned URL, such a link needs no API key, works until it expires and then
answers 403.

A file's permanent ``address`` (the same path without a signature) answers a bulk key, sent
as ``Authorization: Bearer`` or ``api_key``, with a ``307`` to a fresh link (presigned or
signed), counted as one request of the key: a cited address keeps working for whoever holds
a bulk key (issue 48).

A download is streamed from the export store (:meth:`ObjectStorage.open_range`: a file read in
chunks, or one ranged S3 GetObject read as it goes), never read whole: its ETag and size are
the manifest's, a HEAD reads nothing, one byte range answers 206 (:mod:`bangscore.shim.ranges`),
and each client address has at most ``downloads_per_client`` downloads under way per process
(issue 45: 48 connections that sent a GET and read nothing took a worker from 680 to 1,245 MB).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import time
from collections.abc import Callable
from functools import partial

import anyio
import anyio.to_thread
import orjson
from itsdangerous import Signer
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bangscore.contract.export import (
    PREFIX,
    ExportFile,
    ExportManifest,
    Link,
    download_type,
    export_manifest_key,
    file_key,
    link_to,
    presigned_urls,
    read_latest,
)
from bangscore.contract.limits import MAX_LINK_EXPIRES_DIGITS
from bangscore.errors import (
    ExportError,
    Forbidden,
    ObjectNotFound,
    ObjectStorageUnavailable,
    ResourceNotFound,
)
from bangscore.manifest import etag_for, etag_from_digest
from bangscore.shim import api
from bangscore.shim.answer import RawHeaders, Resolved, if_none_match
from bangscore.shim.api import ProblemVoice
from bangscore.shim.clients import client_group, client_ip
from bangscore.shim.file_stream import READ_THREADS, DownloadGate, FileBody, once
from bangscore.shim.lru import Lru
from bangscore.shim.ranges import Unsatisfiable, requested_span
from bangscore.shim.source import LoadedSnapshot
from bangscore.storage import ObjectStorage
from bangscore.stores.keystore import KeyRecord

SALT = "bangscore-export-link"
_PART = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")
DOWNLOADS_PER_CLIENT = 4  # the default of settings.export_downloads_per_client
SEND_TIMEOUT_SECONDS = 60.0  # the default of settings.export_send_timeout_seconds (nginx's)
DOWNLOAD_RETRY_SECONDS = 10  # Retry-After of a 429 too_many_downloads
MANIFESTS_KEPT = 16


class LocalLinks:
    """Signed, expiring links to files of a local export folder, served under ``/export/``."""

    def __init__(self, secret: str, base_url: str) -> None:
        self._signer = Signer(secret, salt=SALT, digest_method=hashlib.sha256)
        self.base_url = base_url.rstrip("/")

    def _signature(self, key: str, expires_at: int) -> str:
        return self._signer.get_signature(f"{key}\n{expires_at}").decode()

    def __call__(self, key: str, expires_at: int) -> str:
        """Given an export key and its expiry (Unix seconds), return the signed URL."""
        return (
            f"{self.base_url}/{key}?expires={expires_at}"
            f"&signature={self._signature(key, expires_at)}"
        )

    def valid(self, key: str, expires: str, signature: str, now: float) -> bool:
        """Given a key, the link's expires and signature values and the time, return True if
        the signature matches and the link has not expired."""
        if not (
            expires.isascii() and expires.isdigit() and len(expires) <= MAX_LINK_EXPIRES_DIGITS
        ):
            return False
        if int(expires) < now:
            return False
        expected = self._signature(key, int(expires))
        return hmac.compare_digest(expected.encode(), signature.encode())


class ExportService:
    """The export store as the shim sees it: the latest manifest, links, local downloads."""

    def __init__(
        self,
        storage: ObjectStorage,
        *,
        links: LocalLinks | None,
        link_seconds: int,
        clock: Callable[[], float] = time.time,
        downloads_per_client: int = DOWNLOADS_PER_CLIENT,
        send_timeout: float = SEND_TIMEOUT_SECONDS,
    ) -> None:
        self.storage = storage
        self.links = links
        self.link_seconds = link_seconds
        self.clock = clock
        self.gate = DownloadGate(downloads_per_client)
        self.send_timeout = send_timeout
        # Manifests by export id: a written export never changes, and only signed links
        # reach here, so the ids are the few exports kept.
        self._manifests: Lru[ExportManifest] = Lru(MANIFESTS_KEPT)

    def file_entry(self, snapshot_id: str, name: str) -> ExportFile | None:
        """Given an export's snapshot id and a file name, return the file's manifest entry
        (size, SHA-256) or None if that export or file is gone. Raises
        ObjectStorageUnavailable if the store is down or the manifest corrupt."""
        manifest = self._manifests.find(snapshot_id)
        if manifest is None:
            try:
                raw = self.storage.get(export_manifest_key(snapshot_id))
                manifest = ExportManifest.from_bytes(raw)
            except (ObjectNotFound, ValueError):  # ValueError: a key no store could hold
                return None
            except ExportError as exc:
                raise ObjectStorageUnavailable(str(exc)) from exc
            self._manifests.put(snapshot_id, manifest)
        return next((f for f in manifest.files if f.name == name), None)

    def manifest_body(self) -> bytes | None:
        """Return the ``GET /api/v1/export`` body for the latest export, or None if none.

        Shape: the stored manifest (:meth:`ExportManifest.to_json`: ``snapshot``,
        ``created_at``, ``previous``, ``licence``, ``sources``, ``tables``, ``files``) and
        ``expires_at``; each file, beside its permanent ``address``, gets an expiring ``url``
        and its ``expires_at`` (ISO 8601 UTC). Raises ObjectStorageError if the store is
        unreachable or the manifest is corrupt.
        """
        try:
            manifest = read_latest(self.storage)
        except ExportError as exc:
            raise ObjectStorageUnavailable(str(exc)) from exc
        if manifest is None:
            return None
        return self._body(manifest)

    def link_for(self, snapshot: str, name: str) -> Link | None:
        """Given a kept export's snapshot id and file name, return a fresh download link to
        it, or None when the store holds no such file. Raises ObjectStorageError."""
        if not (_PART.fullmatch(snapshot) and _PART.fullmatch(name)):
            return None  # never a path another folder could be listed by (`..`)
        key = file_key(snapshot, name)
        if key not in set(self.storage.list_keys(file_key(snapshot, ""))):  # its folder
            return None
        return link_to(
            self.storage, key, expires_in=self.link_seconds, now=self.clock(), fallback=self.links
        )

    def _body(self, manifest: ExportManifest) -> bytes:
        now = self.clock()
        links = presigned_urls(
            self.storage,
            manifest,
            expires_in=self.link_seconds,
            now=now,
            fallback=self.links,
        )
        expires_at = dt.datetime.fromtimestamp(int(now) + self.link_seconds, dt.UTC).isoformat()
        files = []
        for entry in manifest.files:
            link = links[entry.name]
            at = dt.datetime.fromtimestamp(link.expires_at, dt.UTC).isoformat()
            files.append({**entry.to_json(), "url": link.url, "expires_at": at})
        return orjson.dumps({**manifest.to_json(), "expires_at": expires_at, "files": files})


async def export_manifest(service: ExportService | None, record: KeyRecord) -> Resolved:
    """Given the export service (None when no export store is configured) and the caller's
    key, return the manifest answer.

    Raises Forbidden (403 ``insufficient_scope``) for keys not on the bulk plan, ResourceNotFound
    (404 ``not_found``) when nothing was exported, and ObjectStorageError (503) when the export
    store is unreachable.
    """
    if record.plan != "bulk":
        raise Forbidden(
            "insufficient_scope",
            f"The export needs a key on the bulk plan; this key is on the {record.plan} plan.",
        )
    body = None if service is None else await anyio.to_thread.run_sync(service.manifest_body)
    if body is None:
        raise ResourceNotFound("not_found", "No Bulk export has been published yet.")
    return Resolved(body, etag_for(body))


async def download(request: Request) -> Response:
    """Given a ``GET`` or ``HEAD /export/<id>/<file>`` request with ``expires`` and
    ``signature``, return the file (``application/gzip``, or ``application/vnd.apache.parquet``
    for a Parquet table: :func:`download_type`) from the export service on
    ``app.state.export``, streamed from the store (:class:`FileBody`).

    The ETag and the size come from the export's manifest (its ``sha256`` and ``bytes``):
    nothing is hashed per request, and a HEAD or a 304 reads no file. One byte range
    (``Range``, :func:`requested_span`) answers 206 with ``Content-Range``; one past the end
    416. Answers 403 ``insufficient_scope`` for a missing, forged or expired link, 404 for a
    file that is gone, 429 ``too_many_downloads`` past the client address's concurrent
    downloads, 503 when the export store cannot be read. Not counted: the link was already
    paid for by the ``/api/v1/export`` request that issued it.
    """
    service: ExportService | None = request.app.state.export
    voice: ProblemVoice = request.app.state.problems
    snapshot, name = request.path_params["snapshot"], request.path_params["name"]
    key = f"{PREFIX}{snapshot}/{name}"
    query = request.query_params
    # The permanent address (no link parameters, or a key instead of a signature) needs a
    # bulk key: without one, a 401 saying so, not "the link expired" (issue 56).
    bare = "signature" not in query and "expires" not in query
    keyed = "signature" not in query and api.presented_key(request)
    if service is not None and (bare or keyed):
        return await _address(request, service, snapshot, name)
    links = service.links if service is not None else None
    if service is None or links is None:
        return voice.problem(request, "not_found", f"No resource at {request.url.path}.", [])
    if not links.valid(key, query.get("expires", ""), query.get("signature", ""), service.clock()):
        return voice.problem(
            request,
            "insufficient_scope",
            "The download link is invalid or expired; get a fresh one from /api/v1/export.",
            [],
        )
    try:
        entry = await anyio.to_thread.run_sync(service.file_entry, snapshot, name)
    except ObjectStorageUnavailable:
        return voice.unavailable(request, [])
    if entry is None:
        return voice.problem(request, "not_found", f"No export file {snapshot}/{name}.", [])
    client = client_group(client_ip(request))  # an IPv6 client by its /64
    gate = service.gate
    if not gate.enter(client):
        return voice.problem(
            request,
            "too_many_downloads",
            f"This address already has {gate.per_client} downloads under way, the most at "
            "once; retry when one ends.",
            [],
            headers={"Retry-After": str(DOWNLOAD_RETRY_SECONDS)},
        )
    release = once(partial(gate.leave, client))
    try:
        return await _file_answer(request, service, entry, key, release)
    except BaseException:
        release()
        raise


async def _file_answer(
    request: Request,
    service: ExportService,
    entry: ExportFile,
    key: str,
    release: Callable[[], None],
) -> Response:
    """Given a valid download request, its file's manifest entry and store key, and how to
    give back its slot, return the answer: 200, 206, 304, 412 (an ``If-Match`` naming
    another version, checked first as RFC 9110 13.2.2 orders), 416 or a problem."""
    voice: ProblemVoice = request.app.state.problems
    etag = etag_from_digest(entry.sha256)
    headers: RawHeaders = [
        (b"cache-control", b"private, max-age=3600"),
        (b"etag", etag.encode()),
        (b"accept-ranges", b"bytes"),
        (b"content-disposition", f'attachment; filename="{entry.name}"'.encode()),
        (b"content-type", download_type(entry.name).encode()),
    ]
    if not if_match(request.headers.get("if-match"), etag):
        release()
        return voice.problem(
            request,
            "precondition_failed",
            f"If-Match names no version of this file; its ETag is {etag}.",
            [],
            headers={"ETag": etag},
        )
    star, tags = if_none_match(request.headers.get("if-none-match"))
    if star or etag in tags:
        return FileBody(304, headers, None, release)
    try:
        span = requested_span(
            request.headers.get("range"),
            entry.bytes,
            if_range=request.headers.get("if-range"),
            etag=etag,
        )
    except Unsatisfiable:
        release()
        return voice.problem(
            request,
            "range_not_satisfiable",
            f"The range asked for starts past the end of the file ({entry.bytes} bytes).",
            [],
            headers={"Content-Range": f"bytes */{entry.bytes}", "Accept-Ranges": "bytes"},
        )
    headers.append((b"content-length", str(span.length).encode()))
    if not span.whole:
        headers.append((b"content-range", span.content_range().encode()))
    status = 200 if span.whole else 206
    if request.method == "HEAD":
        return FileBody(status, headers, None, release)
    try:
        reader = await anyio.to_thread.run_sync(
            service.storage.open_range, key, span.start, span.stop, limiter=READ_THREADS
        )
    except (ObjectNotFound, ValueError):  # ValueError: a key no store could hold
        release()
        return voice.problem(request, "not_found", f"No export file {key}.", [])
    except ObjectStorageUnavailable:
        release()
        return voice.unavailable(request, [])
    return FileBody(status, headers, reader, release, send_timeout=service.send_timeout)


def if_match(header: str | None, etag: str) -> bool:
    """Given an ``If-Match`` value (None: not sent) and the file's strong ETag, return True
    if the request may go on: no header, ``*`` (the file exists) or a list naming the ETag,
    compared strongly (RFC 9110 13.1.1: a weak ``W/`` tag never matches)."""
    if header is None:
        return True
    tags = {tag.strip() for tag in header.split(",")}
    return "*" in tags or etag in tags


_NEEDS_BULK_KEY = (
    "This permanent address needs a bulk key: send it as Authorization: Bearer <key>. "
    "A signed link from /api/v1/export needs none."
)


async def _address(request: Request, service: ExportService, snapshot: str, name: str) -> Response:
    """Given a request for a file's permanent address with a key, the export service and the
    file, answer a bulk key ``307`` to a fresh link (``Location``; the body gives ``url`` and
    ``expires_at``, ``no-store``), counted as one request; another plan 403
    ``insufficient_scope``, a file no kept export holds 404, as the API answers."""
    found: list[Link] = []

    async def resolve(_: Request, record: KeyRecord, __: LoadedSnapshot, ___: None) -> Resolved:
        if record.plan != "bulk":
            raise Forbidden(
                "insufficient_scope",
                f"The export needs a key on the bulk plan; this key is on the {record.plan} plan.",
            )
        link = await anyio.to_thread.run_sync(service.link_for, snapshot, name)
        if link is None:
            raise ResourceNotFound("not_found", f"No export file {snapshot}/{name}.")
        found.append(link)
        at = dt.datetime.fromtimestamp(link.expires_at, dt.UTC).isoformat()
        body = orjson.dumps({"url": link.url, "expires_at": at})
        return Resolved(body, etag_for(body))

    route = api.KeyedRoute(_no_read, resolve, missing=_NEEDS_BULK_KEY)
    response = await api.keyed(request, route)
    if response.status_code == 200 and found:
        response.status_code = 307
        response.headers["Location"] = found[0].url
        response.headers["Cache-Control"] = "no-store"
    return response


def _no_read(_: Request) -> None:
    """A file's address takes any query (a link's signature is read by the route itself)."""


async def _manifest(request: Request, record: KeyRecord, _: LoadedSnapshot, __: None) -> Resolved:
    return await export_manifest(request.app.state.export, record)


async def manifest(request: Request) -> Response:
    """Given ``GET /api/v1/export`` with a key, return the export manifest with fresh links
    (counted, no-store: its links expire)."""
    response = await api.keyed(request, MANIFEST)
    if response.status_code == 200:
        response.headers["Cache-Control"] = "no-store"
    return response


MANIFEST = api.KeyedRoute(api.no_query, _manifest)
ROUTES = [
    Route("/api/v1/export", manifest),
    Route("/export/{snapshot}/{name}", download),
]
