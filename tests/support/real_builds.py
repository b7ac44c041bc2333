"""What the tests build from the real catalogue, kept in its cache beside it
(tests/support/real_catalogue.py): the as-of pair of builds that the push and alert tests read,
with every detail record of its two builds decoded, and the real catalogue's Bulk export that
the Parquet tests read.

Each is computed once per set of inputs (:data:`~tests.support.real_catalogue.SNAPSHOT_INPUTS`)
by whichever process gets there first, under its entry's lock: in ``make test`` the warm-up
(``python -m tests.support.real_catalogue``, untraced by coverage, beside the tests), so that no
pytest worker builds them under coverage or waits on one that does. Both start from what the
cache already holds: the catalogues (today's and the eve's) and their scored games.
"""

from __future__ import annotations

import datetime as dt
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import orjson

from bangscore.build.export import export_records, render_export
from bangscore.build.pipeline import BuildOptions, run_build
from bangscore.build.score_history import extend
from bangscore.build.stage_cache import StageCache
from bangscore.contract.export import ExportManifest
from bangscore.manifest import list_snapshots, read_body, read_manifest
from bangscore.storage import LocalStorage
from tests.support.factories import SITE
from tests.support.real_catalogue import (
    CATALOGUE_INPUTS,
    EVE,
    SNAPSHOT_INPUTS,
    cached_catalogue,
    cached_catalogue_as_of,
    cached_entry,
    cached_games,
    cached_games_as_of,
    digest,
    say,
    unpickled,
)

# Detail records by appid.
Details = dict[int, dict[str, Any]]
# The export's creation time, fixed so that equal inputs give equal bytes.
EXPORT_CREATED_AT = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
# What the pair and the export are computed from: what the snapshot is, and this module.
BUILD_INPUTS = (*SNAPSHOT_INPUTS, "tests/support/real_builds.py")


def cached_pair(cache: Path) -> Path:
    """Given the real catalogue's cache folder, return the folder store holding the pair of
    builds: the catalogue as of :data:`EVE` (``bangscore build --as-of``), then as of today (the
    default build), in that order; built once per set of inputs."""
    return cached_entry(cache, "push-pair", lambda f: build_pair(cache, f), BUILD_INPUTS)


def build_pair(cache: Path, folder: Path) -> None:
    """Given the cache folder and an empty folder, build the catalogue as of EVE, then as of
    today, into the folder. Each build scores nothing: its scored games are the cache's
    (the same ``score_catalog`` of the same catalogue), handed to it as the build's own stage
    cache hands a rebuild its scores (``BuildOptions.cache`` and ``score_key``)."""
    stages = StageCache(cache / f".push-pair-stages.{os.getpid()}.tmp")
    code = digest(CATALOGUE_INPUTS)
    pairs = (
        (cached_catalogue_as_of(cache, EVE), cached_games_as_of(cache, EVE), EVE),
        (cached_catalogue(cache)[0], cached_games(cache), None),
    )
    try:
        for catalog, games, day in pairs:
            say(f"building the real catalogue as of {day or 'today'} into {folder}")
            key = f"{day or 'today'}-{code}"  # (the file is named by the key's first 40 chars)
            stages.get("score", key, lambda g=games: g)  # type: ignore[misc]
            options = BuildOptions(
                load_catalog=lambda c=catalog: c,  # type: ignore[misc]
                out=str(folder),
                site_url=SITE,
                base_url=SITE,
                allow_shrink=True,
                as_of=day,
                cache=stages,
                score_key=key,
            )
            run_build(options)
    finally:
        shutil.rmtree(stages.folder, ignore_errors=True)


def detail_records(storage: LocalStorage, snapshot: str) -> Details:
    """Given a store and a snapshot id, return every detail record of the snapshot (the
    manifest's ``games/<appid>.json`` bodies, decoded) by appid."""
    manifest = read_manifest(storage, snapshot)
    return {
        int(key.removeprefix("games/").removesuffix(".json")): orjson.loads(
            read_body(storage, entry)
        )
        for key, entry in manifest.entries.items()
        if key.startswith("games/") and key.endswith(".json")
    }


def cached_pair_details(cache: Path) -> tuple[Details, Details]:
    """Given the real catalogue's cache folder, return every detail record of the pair's two
    builds (:func:`cached_pair`) by appid: (the eve's, today's). Decoded once per set of inputs
    and kept as a pickle: decoding them again cost each of the two modules reading them about
    8 s of CPU under coverage, unpickling 1 s (3 Dec 2026)."""
    entry = cached_entry(
        cache, "pair-details", lambda f: write_pair_details(cache, f), BUILD_INPUTS
    )
    before, after = unpickled(entry / "details.pickle")
    return before, after


def write_pair_details(cache: Path, folder: Path) -> None:
    """Given the cache folder and an empty folder, write the pair's detail records, (the eve's,
    today's) by appid, as ``details.pickle``."""
    storage = LocalStorage(cached_pair(cache))
    eve, today = list_snapshots(storage)
    say(f"decoding the detail records of {eve} and {today} into {folder}")
    pair = (detail_records(storage, eve), detail_records(storage, today))
    (folder / "details.pickle").write_bytes(pickle.dumps(pair, protocol=pickle.HIGHEST_PROTOCOL))


def cached_export(cache: Path) -> tuple[Path, ExportManifest, list[dict[str, Any]]]:
    """Given the real catalogue's cache folder, return its Bulk export: (the folder of its
    files, its manifest, its detail records). Its score history is one build's, a point per
    game, as the first build writes it. Written once per set of inputs."""
    entry = cached_entry(cache, "export", lambda f: write_export(cache, f), BUILD_INPUTS)
    manifest, records = pickle.loads((entry / "loaded.pickle").read_bytes())
    return entry / "files", manifest, records


def write_export(cache: Path, folder: Path) -> None:
    """Given the cache folder and an empty folder, write the real catalogue's export's files
    under ``files/`` and its (manifest, records) as ``loaded.pickle``."""
    say(f"writing the real catalogue's Bulk export into {folder}")
    catalog, _ = cached_catalogue(cache)
    games = cached_games(cache)
    assert catalog.prices_as_of is not None
    scores = ((g.record.appid, g.bang_score, g.record.price_usd) for g in games)
    history = extend({}, scores, catalog.prices_as_of.date())
    records = export_records(games, SITE, catalog.prices_as_of, history)
    export = render_export(records, snapshot_id="s1", created_at=EXPORT_CREATED_AT, site_url=SITE)
    (folder / "files").mkdir()
    for name, body in export.bodies.items():
        (folder / "files" / name).write_bytes(body)
    (folder / "loaded.pickle").write_bytes(pickle.dumps((export.manifest, records)))
