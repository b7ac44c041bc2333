"""What serving a snapshot at another address costs (issue 56, item 1): the CPU time of reading
a body into the shim's cache (:meth:`bangscore.shim.source.SnapshotSource._fetch`, a miss)
when it is served where it was built, against when its addresses are moved
(:mod:`bangscore.shim.readdress`). A cache hit, the hot path, costs the same either way (the
cache holds the moved bytes). Measured on a real snapshot: game pages, detail records, the
first list page, each as the identity and as gzip (the representation most clients take).

    .venv/bin/python -m bench.readdress [--state var] [--games 400] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from pathlib import Path

from bangscore.contract.objects import detail_key, game_page_key
from bangscore.manifest import GZIP, Entry
from bangscore.shim.readdress import Readdress, readdress_for
from bangscore.shim.source import SnapshotSource
from bangscore.storage import LocalStorage


def cpu_per_body(
    source: SnapshotSource,
    entries: Sequence[Entry],
    coding: str | None,
    moves: Readdress | None,
    rounds: int,
) -> float:
    """Given a source that caches nothing, entries, a coding and how addresses move (None:
    not), return the least, over ``rounds``, of the mean CPU microseconds to fetch one."""
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for entry in entries:
            source._fetch(entry, coding, moves)
        best = min(best, (time.process_time() - started) / len(entries) * 1e6)
    return best


def stored_size(entry: Entry, coding: str | None) -> int:
    """Given an entry and a coding (None: the identity), return that representation's bytes."""
    encoded = entry.encoded(coding) if coding else None
    return encoded.size if encoded else entry.size


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table of CPU microseconds per body, served where built and moved."""
    parser = argparse.ArgumentParser(prog="bench.readdress", description=__doc__.split("\n")[0])
    parser.add_argument("--state", type=Path, default=Path("var"))
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--to", default="http://127.0.0.1:9001", help="the address served")
    args = parser.parse_args(argv)
    storage = LocalStorage(args.state / "snapshots")
    source = SnapshotSource(storage, cache_bytes=0, poll_seconds=3600)  # every fetch a miss
    pointer = storage.read_pointer()
    assert pointer is not None, f"no snapshot in {args.state}/snapshots: run bangscore build"
    snap = source.load(pointer, defer=True)
    moves = readdress_for(snap.manifest.meta, args.to, args.to)
    assert moves is not None, f"the snapshot was built for {args.to}: name another with --to"
    appids = sorted(
        int(k.split("/")[1].split(".")[0])
        for k in snap.manifest.entries
        if k.startswith("games/") and k.endswith(".json")
    )
    chosen = random.Random(56).sample(appids, min(args.games, len(appids)))
    kinds = {
        "game page": [snap.manifest.entries[game_page_key(a)] for a in chosen],
        "detail record": [snap.manifest.entries[detail_key(a)] for a in chosen],
    }
    print(f"snapshot {pointer}, built for {snap.manifest.meta.get('site_url')}, moved to {args.to}")
    print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}")
    print("| body | coding | mean KiB | as built µs CPU | moved µs CPU | extra µs |")
    print("|---|---|---:|---:|---:|---:|")
    for kind, entries in kinds.items():
        for coding in (GZIP, None):
            size = sum(stored_size(e, coding) for e in entries) / len(entries) / 1024
            plain = cpu_per_body(source, entries, coding, None, args.rounds)
            moved = cpu_per_body(source, entries, coding, moves, args.rounds)
            label = coding or "identity"
            print(
                f"| {kind} | {label} | {size:.1f} | {plain:.0f} | {moved:.0f} "
                f"| {moved - plain:.0f} |"
            )
    # A replica's start: the snapshot loaded and its indexes built, as built and moved.
    for to in (str(snap.manifest.meta.get("site_url")), args.to):
        fresh = SnapshotSource(storage, cache_bytes=0, poll_seconds=3600)
        fresh.serve_at(to, to)
        started = time.process_time()
        fresh.settle(fresh.load(pointer))
        print(
            f"load and index the snapshot served at {to}: {time.process_time() - started:.2f} s CPU"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
