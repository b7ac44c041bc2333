"""The real bundled catalogue for the tests: built once, kept on disk, published once.

Joining the bundled dumps takes over a minute (more under coverage) and publishing the whole
catalogue about as long again, while reading the joined catalogue back takes a few seconds. So the
catalogue is kept under pytest's cache folder, named by a digest of what it is computed from
(:data:`CATALOGUE_INPUTS`: the dumps and the ingest and scoring code), with a pickle of it read
back and scored (unpickling takes seconds, reading the file and scoring it again most of a minute
under coverage), and the published snapshot beside it, named by a digest of the dumps and of all
the code that writes it (:data:`SNAPSHOT_INPUTS`). A change to any of those files names a new
entry, so a stale one is never read; ``make clean`` (it removes ``.pytest_cache``) drops them all.

``python -m tests.support.real_catalogue`` fills the cache outside pytest (:func:`warm`): ``make
test`` runs it beside the tests, untraced by coverage, while the tests that need no real
catalogue run first (``tests/conftest.py`` orders the others last, in the order of the warm-up's
steps they need). Besides the catalogue and its snapshot it keeps the catalogue as of the eve of
the Summer Sale 2026 (:data:`EVE`) with its scored games, the real Bulk export and the as-of
pair of builds (tests/support/real_builds.py), so no pytest worker computes any of them under
coverage.

Entries are built under a lock file each (``fcntl.flock``), so when several processes need one
at once, one builds it and the others wait and then read it; and written into a temporary
folder renamed into place, so a killed test run never leaves a half-written entry, and one
that exists is read without taking its lock.
(The lock, not ``--dist loadgroup``, is what keeps it to one build: with pytest 9.2,
pytest-xdist 3.8 no longer groups tests by ``xdist_group``, pytest-dev/pytest-xdist#1386.)

Every step that takes long says so as it starts, and a process that waits for another's lock
says what it waits on (issue 56: a cold ``make test`` sat silent for minutes): through
:data:`VOICE`, standard error by default (tests/conftest.py routes it past pytest's capture);
the warm-up also shows the ingest's and scoring's progress bars, with totals and ETAs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import gc
import hashlib
import os
import pickle
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from bangscore.ingest.catalog import IngestReport, load_bundled_catalog, read_catalog, write_catalog
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.records import Catalog
from bangscore.storage import LocalStorage

REPO = Path(__file__).resolve().parents[2]
# pytest's cache folder for the key "real-catalogue" (``config.cache.mkdir``), for the warm-up.
DEFAULT_CACHE = REPO / ".pytest_cache" / "d" / "real-catalogue"
CATALOGUE_INPUTS = ("data/raw", "ingest", "scoring")
SNAPSHOT_INPUTS = (
    *CATALOGUE_INPUTS,
    *("build", "bangscore/contract", "bangscore/site", "bangscore/storage"),
    *("bangscore/manifest.py", "tests/support/factories.py"),
)
# Fixed, so that equal inputs give equal bytes (the catalogue's own date is not an input).
CREATED_AT = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
SNAPSHOT_ID = "s1"
# The eve of the Summer Sale 2026: the warm-up keeps the catalogue as of this day too (what
# `bangscore build --as-of` builds from; the as-of pair's first build, the forecast backtest).
EVE = dt.date(2026, 6, 24)
_COUNTERS = ("observations", "dropped", "checks", "years", "length_sources")


def _to_stderr(message: str) -> None:
    print(f"real catalogue: {message}", file=sys.stderr, flush=True)


# Where the long steps and the waits are told (replaceable: tests/conftest.py), and whether
# the ingest and the scoring show their progress bars (the warm-up, __main__, does).
VOICE: Callable[[str], None] = _to_stderr
PROGRESS = False


def say(message: str) -> None:
    """Given a message, tell it through :data:`VOICE`."""
    VOICE(message)


def digest(paths: Iterable[str], root: Path = REPO) -> str:
    """Given files and folders relative to ``root``, return the SHA-256 (hex) of every file
    under them (cache folders aside), each with its relative path, in sorted order."""
    hasher = hashlib.sha256()
    files: list[Path] = []
    for name in paths:
        path = root / name
        files.extend([path] if path.is_file() else (p for p in path.rglob("*") if p.is_file()))
    for path in sorted(files):
        if "__pycache__" in path.parts:
            continue
        hasher.update(str(path.relative_to(root)).encode() + b"\0")
        hasher.update(path.read_bytes())
    return hasher.hexdigest()


def report_to_json(report: IngestReport) -> bytes:
    """Given an ingest report, return it as JSON (Counter keys as strings; ``null`` year as "")."""
    fields: dict[str, Any] = {k: v for k, v in vars(report).items() if k not in _COUNTERS}
    for name in _COUNTERS:
        fields[name] = {"" if k is None else str(k): v for k, v in getattr(report, name).items()}
    return orjson.dumps(fields)


def report_from_json(raw: bytes) -> IngestReport:
    """Given :func:`report_to_json`'s bytes, return the ingest report they hold."""
    fields = orjson.loads(raw)
    report = IngestReport(**{k: v for k, v in fields.items() if k not in _COUNTERS})
    for name in _COUNTERS:
        counts = fields[name]
        if name == "years":
            counts = {(int(k) if k else None): v for k, v in counts.items()}
        setattr(report, name, Counter(counts))
    return report


def _place(temp: Path, final: Path) -> None:
    """Move a finished temporary folder to its final name; a concurrent winner keeps its own."""
    try:
        os.rename(temp, final)
    except OSError:
        if not final.is_dir():
            raise
        shutil.rmtree(temp, ignore_errors=True)


@contextlib.contextmanager
def locked(cache: Path, what: str) -> Iterator[None]:
    """Hold the cache folder's lock on ``what`` (a catalogue entry's name, "snapshot",
    "export", "push-pair") for the block (other processes wait for it). One lock each, so the
    tests that read one entry need not wait while the warm-up builds another."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f".lock-{what}", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(
                f"waiting for another process (pid of the warm-up or a pytest worker) that "
                f"builds the {what} under {cache} (lock {handle.name})"
            )
            started = time.perf_counter()
            fcntl.flock(handle, fcntl.LOCK_EX)
            say(f"the {what} is ready after {time.perf_counter() - started:.0f} s of waiting")
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def cached_catalogue(cache: Path) -> tuple[Catalog, IngestReport]:
    """Given a cache folder, return (the real catalogue of ``data/raw``, its ingest report),
    read from the cache when its inputs are unchanged, else built and then kept there."""
    entry = _catalogue_entry(cache)
    return _loaded(cache, entry)[0], report_from_json((entry / "report.json").read_bytes())


def cached_games(cache: Path) -> list[ScoredGame]:
    """Given a cache folder, return the real catalogue's games scored
    (:func:`~bangscore.scoring.pipeline.score_catalog`), their records those of
    :func:`cached_catalogue`'s catalogue."""
    return _loaded(cache, _catalogue_entry(cache))[1]


def _catalogue_entry(cache: Path) -> Path:
    """Given a cache folder, return the catalogue entry of the current inputs, built first
    when missing (:func:`_built`)."""
    return _built(cache, cache / f"catalogue-{digest(CATALOGUE_INPUTS)[:20]}")


# What this process unpickled, per catalogue entry: the catalogue and its scored games.
_LOADED: dict[Path, tuple[Catalog, list[ScoredGame]]] = {}


def _loaded(cache: Path, entry: Path) -> tuple[Catalog, list[ScoredGame]]:
    """Given a cache folder and a built catalogue entry, return (the catalogue as read back from
    its file, its games scored), unpickled once per process from ``loaded.pickle`` (made first
    when an entry of an older cache lacks it). Unpickling runs in C: under coverage it takes
    seconds where reading the catalogue file and scoring it take most of a minute."""
    if entry in _LOADED:
        return _LOADED[entry]
    path = entry / "loaded.pickle"
    if not path.is_file():
        with locked(cache, entry.name):
            if not path.is_file():
                temp = path.with_name(f".loaded.{os.getpid()}.tmp")
                _LOADED[entry] = _score(entry / "catalog.json.gz", temp)
                os.replace(temp, path)
    if entry not in _LOADED:
        _LOADED[entry] = unpickled(path)
    # Kept for the whole session, scored here or unpickled, so out of the cyclic collector: each
    # full collection walked these millions of objects again (test_memo and test_compose
    # together: 14.0 s of 65 s in collections, 6.5 s with them frozen; 3 Dec 2026, quiet).
    gc.freeze()
    return _LOADED[entry]


def unpickled(path: Path) -> Any:
    """Given a pickle file the cache wrote, return what it holds, unpickled with the cyclic
    collector off: unpickling makes millions of objects, each one more for the collections it
    would set off to walk (the scored catalogue: 3.6 s with it on, 2.1 s off, 3 Dec 2026,
    quiet)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(path.read_bytes())
    finally:
        if collecting:
            gc.enable()


def _score(catalogue: Path, pickled: Path) -> tuple[Catalog, list[ScoredGame]]:
    """Given a catalogue file and a path, read the catalogue back, score its games, keep both
    pickled at the path and return them."""
    say(f"scoring the real catalogue of {catalogue} (about half a minute), kept beside it")
    catalog = read_catalog(catalogue)
    loaded = catalog, score_catalog(catalog.games, progress=PROGRESS)
    pickled.write_bytes(pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL))
    return loaded


def cached_catalogue_as_of(cache: Path, day: dt.date) -> Catalog:
    """Given a cache folder and a day, return the real catalogue as that day knew it
    (``load_bundled_catalog(as_of=day)``, what ``bangscore build --as-of`` builds from), read
    from the cache when its inputs are unchanged, else built and then kept there."""
    return _loaded(cache, _as_of_entry(cache, day))[0]


def cached_games_as_of(cache: Path, day: dt.date) -> list[ScoredGame]:
    """Given a cache folder and a day, return :func:`cached_catalogue_as_of`'s games scored
    (:func:`~bangscore.scoring.pipeline.score_catalog`), kept beside it."""
    return _loaded(cache, _as_of_entry(cache, day))[1]


def _as_of_entry(cache: Path, day: dt.date) -> Path:
    """Given a cache folder and a day, return the entry of the catalogue as of that day, built
    first when missing (:func:`_built`)."""
    return _built(
        cache, cache / f"catalogue-{day.isoformat()}-{digest(CATALOGUE_INPUTS)[:20]}", day
    )


def _built(cache: Path, entry: Path, as_of: dt.date | None = None) -> Path:
    """Given a cache folder, a catalogue entry's folder and its day (None: all the dumps),
    return the entry, built first when missing under its own lock (a process reading one
    catalogue never waits while another is built). An entry is renamed into place whole, so
    one that exists is read without the lock."""
    if not entry.is_dir():
        with locked(cache, entry.name):
            if not entry.is_dir():
                _build_catalogue(cache, entry, as_of)
    return entry


def _build_catalogue(cache: Path, entry: Path, as_of: dt.date | None = None) -> None:
    """Join the bundled dumps (as of a day, or all); keep the catalogue, its report and the
    catalogue read back with its games scored (``loaded.pickle``) as ``entry``: one step, so
    that no other process scores it meanwhile."""
    say(
        f"joining the bundled dumps of {REPO / 'data' / 'raw'} into the real catalogue (a "
        f"minute or two on a quiet machine), kept as {entry}"
    )
    catalog, report = load_bundled_catalog(
        REPO / "data", created_at=CREATED_AT, as_of=as_of, progress=PROGRESS
    )
    temp = cache / f".{entry.name}.{os.getpid()}.tmp"
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir(parents=True)
    write_catalog(catalog, temp / "catalog.json.gz")
    (temp / "report.json").write_bytes(report_to_json(report))
    del catalog  # scored as read back from its file, as every reader gets it
    _LOADED[entry] = _score(temp / "catalog.json.gz", temp / "loaded.pickle")
    _place(temp, entry)


def cached_snapshot(cache: Path) -> LocalStorage:
    """Given a cache folder, return the folder store holding the real catalogue (its
    :func:`cached_games`, with its not-rated apps) published as snapshot :data:`SNAPSHOT_ID`,
    published once per set of inputs. Callers read it and never write to it."""
    from tests.support import factories

    entry = cache / f"snapshot-{digest(SNAPSHOT_INPUTS)[:20]}"
    if entry.is_dir():  # renamed into place whole: read without the lock
        return LocalStorage(entry)
    with locked(cache, "snapshot"):
        if not entry.is_dir():
            catalog, games = _loaded(cache, _catalogue_entry(cache))
            say(f"publishing the real catalogue's snapshot (a few minutes), kept as {entry}")
            temp = cache / f".{entry.name}.{os.getpid()}.tmp"
            shutil.rmtree(temp, ignore_errors=True)
            factories.publish_scored(
                games,
                LocalStorage(temp),
                snapshot_id=SNAPSHOT_ID,
                not_rated=catalog.not_rated,
            )
            _place(temp, entry)
    return LocalStorage(entry)


def cached_entry(
    cache: Path,
    what: str,
    make: Callable[[Path], None],
    inputs: tuple[str, ...] = SNAPSHOT_INPUTS,
) -> Path:
    """Given a cache folder, a name (``"export"``), a function that fills an empty folder and
    the files it is computed from (:data:`SNAPSHOT_INPUTS` by default), return the entry
    folder of that name for the current inputs, filled first (under the lock on ``what``)
    when missing: the process that gets there first (``make test``'s warm-up) computes it,
    every other one reads it."""
    entry = cache / f"{what}-{digest(inputs)[:20]}"
    if entry.is_dir():  # renamed into place whole: read without the lock
        return entry
    with locked(cache, what):
        if not entry.is_dir():
            temp = cache / f".{entry.name}.{os.getpid()}.tmp"
            shutil.rmtree(temp, ignore_errors=True)
            temp.mkdir(parents=True)
            make(temp)
            _place(temp, entry)
    return entry


# The warm-up's steps in the order it takes them; tests/conftest.py runs the modules needing a
# later step later (WARM_STEP_BY_FIXTURE), so each finds its entry filled. The snapshot comes
# second: the last `serial` test (tests/hardening/test_memory.py) serves it, and the serial
# run ends only when it has.
WARM_STEPS = ("catalogue", "snapshot", "eve", "export", "pair")


def warm(cache: Path = DEFAULT_CACHE) -> list[tuple[str, float]]:
    """Given a cache folder, fill it, each entry only if missing, in :data:`WARM_STEPS`' order:
    the catalogue with its scored games, the published snapshot, the catalogue as of the eve of
    the Summer Sale 2026 with its scored games, the Bulk export and the as-of pair of builds
    (tests/support/real_builds.py); return each step's name and wall seconds."""
    from tests.support import real_builds

    fill: dict[str, Callable[[], object]] = {
        "catalogue": lambda: cached_games(cache),  # its pickle holds the catalogue too
        "snapshot": lambda: cached_snapshot(cache),
        "eve": lambda: cached_games_as_of(cache, EVE),
        "export": lambda: real_builds.cached_export(cache),
        "pair": lambda: real_builds.cached_pair_details(cache),  # the pair, then its records
    }
    steps: list[tuple[str, float]] = []
    for name in WARM_STEPS:
        started = time.perf_counter()
        fill[name]()
        steps.append((name, time.perf_counter() - started))
        say(f"warm-up: {name} ready ({steps[-1][1]:.0f} s)")
    return steps


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CACHE
    PROGRESS = True
    timings = warm(folder)
    print("real catalogue cache ready:", ", ".join(f"{n} {s:.0f} s" for n, s in timings))
