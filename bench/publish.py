"""Publish benchmark: full and incremental publish to a local folder and to SeaweedFS (S3).

For each catalog (the real one from the bundled dumps, or a scaled copy of N games) and each
target, it scores the catalog and renders every object into memory (timed apart, so the
publish figure is storage work: digests, uploads, manifest, pointer), publishes into an
empty store, then reprices 1 % of the games, renders again and publishes incrementally.
One JSON line per measurement goes to stdout and is appended to ``--results``.

    .venv/bin/python -m bench.publish --games 0 --target local --target s3
    .venv/bin/python -m bench.publish --games 200000 --target s3 --processes 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bangscore.build.publish import PublishReport, publish
from bangscore.build.snapshot import snapshot_objects
from bangscore.ingest.catalog import load_bundled_catalog
from bangscore.manifest import digest, read_manifest
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import Catalog
from bangscore.storage import LocalStorage, ObjectStorage, StoredObject
from bangscore.storage.s3 import S3Config, S3Storage
from bench.scale import perturb, scale_catalog

SITE = "http://127.0.0.1:8000"
T0 = dt.datetime(2026, 11, 22, tzinfo=dt.UTC)


def render(catalog: Catalog) -> tuple[list[StoredObject], float]:
    """Given a catalog, return (every object of its snapshot, seconds to score and render)."""
    started = time.perf_counter()
    games = score_catalog(catalog.games)
    objects = list(
        snapshot_objects(
            games,
            site_url=SITE,
            base_url=SITE,
            not_rated=catalog.not_rated,
            prices_as_of=catalog.prices_as_of,
        )
    )
    return objects, time.perf_counter() - started


def _row(kind: str, report: PublishReport, render_s: float, **fields: Any) -> dict[str, Any]:
    """Given a publish report and its render time, return one result row."""
    return {
        "kind": kind,
        "objects": report.objects,
        "uploaded": report.uploaded,
        "skipped": report.skipped,
        "mb_uploaded": round(report.bytes_uploaded / 1e6, 1),
        "render_s": round(render_s, 1),
        "publish_s": round(report.seconds, 1),
        "objects_per_s": round(report.uploaded / report.seconds),
        **fields,
    }


def measure(
    storage: ObjectStorage, target: str, catalog: Catalog, label: str, extra: dict[str, Any]
) -> list[dict[str, Any]]:
    """Given an empty store and a catalog, return the full and incremental publish figures."""
    common = {"catalog": label, "games": len(catalog.games), "target": target, **extra}
    objects, render_s = render(catalog)
    report = publish(storage, "bench-1", objects, created_at=T0, meta={}, keep=7)
    rows = [_row("full", report, render_s, **common)]
    print(json.dumps(rows[-1]), flush=True)
    del objects
    changed, n_changed = perturb(catalog, 0.01)
    objects, render_s = render(changed)
    before = {e.sha256 for e in read_manifest(storage, "bench-1").entries.values()}
    by_kind = Counter(_kind(o.key) for o in objects if digest(o.body) not in before)
    report = publish(storage, "bench-2", objects, created_at=T0, meta={}, keep=7)
    rows.append(
        _row(
            "incremental 1%",
            report,
            render_s,
            games_changed=n_changed,
            changed_by_kind=dict(sorted(by_kind.items())),
            **common,
        )
    )
    print(json.dumps(rows[-1]), flush=True)
    return rows


def _kind(key: str) -> str:
    """Given a snapshot key, return its kind for the breakdown (first path segment)."""
    return key.split("/", 1)[0] if "/" in key else key


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark with ``argv``; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=0, help="scaled size (0: real catalog)")
    parser.add_argument("--target", action="append", choices=["local", "s3"], required=True)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--data", type=Path, default=Path("data"))
    parser.add_argument("--results", type=Path, default=Path("bench/publish_results.jsonl"))
    args = parser.parse_args(argv)

    catalog, _ = load_bundled_catalog(args.data)
    label = "real"
    if args.games:
        catalog = scale_catalog(catalog, args.games, seed=0)
        label = f"scaled {args.games}"
    with tempfile.TemporaryDirectory(prefix="bench-publish-") as tmp:
        for target in args.target:
            if target == "local":
                rows = measure(LocalStorage(Path(tmp) / "local"), target, catalog, label, {})
                _save(args.results, rows)
                continue
            from tests.support.servers import start_seaweed

            server = start_seaweed(Path(tmp) / "weed")
            try:
                bucket = server.create_bucket("bench")
                config = S3Config(
                    bucket,
                    "snap",
                    endpoint_url=server.endpoint,
                    region=server.region,
                    access_key=server.access_key,
                    secret_key=server.secret_key,
                    threads=args.threads,
                    processes=args.processes,
                )
                extra = {"threads": args.threads, "processes": args.processes}
                rows = measure(S3Storage(config), "seaweedfs", catalog, label, extra)
                _save(args.results, rows)
            finally:
                server.stop()
    return 0


def _save(path: Path, rows: list[dict[str, Any]]) -> None:
    # Saved per target, before the temporary store is removed (which takes minutes at scale).
    load = os.getloadavg()[0]
    with path.open("a") as out:
        for row in rows:
            out.write(json.dumps({**row, "loadavg_1m": round(load, 1)}) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
