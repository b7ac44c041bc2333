"""What a build reads, as one digest, so that ``bangscore build --if-changed`` (and so a second
``make run``) serves at once when nothing it reads has changed (issue 56, item 1).

A snapshot is a function of the bundled dumps, the code that joins, scores and renders them,
the settings baked into its objects (the export's store, and the site's and the API's addresses
when configured: one that follows the host and port is moved by the shim as it serves,
:mod:`bangscore.shim.readdress`) and its day (the forecast is made from it). The digest
covers exactly those: every file of the data folder and of the package (its linked layer
folders included, byte caches left out), hashed by content, so a fresh clone's new timestamps
change nothing and any edit changes it. Hashing the bundled data and code reads about 90 MB: a
fraction of a second, against minutes for the build it saves.

The stamp (``<state dir>/build-inputs.json``) pairs the digest with the snapshot it built; a
build is skipped only while that snapshot is still the current one, so a rollback, a deleted
state folder or a build of something else brings the next build back.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import orjson

STAMP_NAME = "build-inputs.json"
_CHUNK = 1 << 20


def _files(folder: Path) -> Iterator[Path]:
    """Given a folder, yield its files in a stable order, following linked folders and leaving
    out Python's byte caches (they change with every run, never the snapshot)."""
    for top, dirs, names in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            if not name.endswith((".pyc", ".pyo")):
                yield Path(top) / name


def input_digest(folders: Mapping[str, Path], settings: Mapping[str, str]) -> str:
    """Given the folders a build reads by name (``{"data": Path("data"), "code": <package>}``)
    and the settings baked into its objects (name to text), return a SHA-256 hex digest of
    every file's path within its folder and bytes, and of each setting. A missing folder
    counts as empty. Raises OSError if a file cannot be read."""
    digest = hashlib.sha256()
    for key, value in sorted(settings.items()):
        digest.update(f"setting {key}={value}\n".encode())
    for label, folder in sorted(folders.items()):
        if not folder.is_dir():
            digest.update(f"folder {label} missing\n".encode())
            continue
        for path in _files(folder):
            digest.update(f"file {label}/{path.relative_to(folder).as_posix()}\n".encode())
            with path.open("rb") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
    return digest.hexdigest()


def current_build(stamp: Path, digest: str, pointer: str | None) -> str | None:
    """Given the stamp's path, this build's input digest and the snapshot store's current
    pointer, return the snapshot id that already holds these inputs (so the build can be
    skipped), or None: no stamp, another digest, or a current snapshot other than the one
    the stamp names. A stamp that does not parse counts as none."""
    try:
        recorded = orjson.loads(stamp.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(recorded, dict) or recorded.get("digest") != digest:
        return None
    snapshot_id = recorded.get("snapshot_id")
    return snapshot_id if isinstance(snapshot_id, str) and snapshot_id == pointer else None


def write_stamp(stamp: Path, digest: str, snapshot_id: str) -> None:
    """Given the stamp's path, the inputs' digest and the snapshot just published, record
    them (written to a temporary file and renamed, so a killed build leaves none half
    written). Raises OSError if the state folder cannot be written."""
    stamp.parent.mkdir(parents=True, exist_ok=True)
    partial = stamp.with_name(stamp.name + ".partial")
    partial.write_bytes(orjson.dumps({"digest": digest, "snapshot_id": snapshot_id}))
    partial.replace(stamp)


def stage_keys(package: Path, data: Path, catalog_file: Path | None) -> tuple[str | None, str]:
    """Given the package's folder, the data folder and the catalogue file a build reads (None:
    it joins the bundled dumps), return the keys of its kept stages
    (:mod:`bangscore.build.stage_cache`): the joined catalogue's (None when it reads a file:
    nothing to keep) and the scored games'. The catalogue's digests the dumps and the code
    that joins them (the ingest and scoring packages, which define its records, and the
    errors module they share); the scores' digests the catalogue (its key, or the file's
    bytes) and the scoring package. A template or a renderer is in neither: an edit to one
    re-renders, and scores nothing again. Raises OSError if a file cannot be read."""
    shared = {"errors": package / "errors.py"}
    scoring = {"scoring": package / "scoring"}
    if catalog_file is not None:
        with catalog_file.open("rb") as handle:
            catalog = hashlib.file_digest(handle, "sha256").hexdigest()
        return None, input_digest(scoring, {"catalog": catalog, **_file_digests(shared)})
    ingest = input_digest(
        {"data": data, "ingest": package / "ingest", **scoring}, _file_digests(shared)
    )
    return ingest, input_digest(scoring, {"catalog": ingest, **_file_digests(shared)})


def _file_digests(files: Mapping[str, Path]) -> dict[str, str]:
    """Given files by name, return each one's SHA-256 hex digest by the same name."""
    return {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in files.items()}
