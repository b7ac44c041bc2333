"""Search under attack: the worst queries one can construct, and normal requests while one
client sends them back to back (docs/API.md#search-limits).

Against a running ``bangscore serve`` (one worker) over the real catalogue:

1. each worst query alone, on the API and on the website: size and latency, each request a
   cache miss (the query's letters change case, which search folds away but the per-snapshot
   answer caches do not);
2. normal requests (a detail record, a precomputed list page, a game page) one after another
   while a second client sends the worst queries back to back: p50, p99 and max latency,
   against the same without the attacker.

    .venv/bin/python -m bench.search --url http://127.0.0.1:8000 --key bsk_... [--seconds 20]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import threading
import time
from collections.abc import Iterator, Sequence

import httpx

from bench.servers import wait_warm

WORST = (
    " ".join(f"the{c}" for c in "abcdefghijklmnopqrst"),
    "thee thea theo thei",
    " ".join("abcdefghijklmnopqrstuvwxyz"),
    "a",
    "s",
    "sima simb simc simd sime simf simg simh",
    "starr warz jedi knigt acadamy outcst",
    "qwertyuiopasdfgh zxcvbnmqwertyui asdfghjklzxcvbnm",
)
NORMAL = ("/api/v1/games/620", "/api/v1/games?genre=rpg", "/game/620/portal-2")


def variants(query: str, seed: int = 7) -> Iterator[str]:
    """Given a query, yield case variants of it (the same search work, new cache keys), each
    once, then endlessly again (a query of one letter has only two)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    for _ in range(10_000):
        text = "".join(c.upper() if rng.random() < 0.5 else c for c in query)
        if text not in seen:
            seen.add(text)
            yield text
    yield from itertools.cycle(sorted(seen))


def percentile(values: Sequence[float], pct: float) -> float:
    """Given values, return the pct-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


def worst_alone(
    client: httpx.Client, key: str, rounds: int = 5
) -> list[tuple[str, str, int, float]]:
    """Given a client and a key, return (where, query, bytes, median ms of ``rounds``) per
    worst query, API and website, every request a cache miss (a one-letter query gets two)."""
    out = []
    for query in WORST:
        fresh = variants(query)
        for where, path, headers in (
            ("api", "/api/v1/search", {"Authorization": f"Bearer {key}"}),
            ("site", "/search", {}),
        ):
            times, size = [], 0
            for _ in range(rounds if len(query) > 1 else 1):
                started = time.perf_counter()
                answer = client.get(path, params={"q": next(fresh)}, headers=headers)
                times.append((time.perf_counter() - started) * 1000)
                size = len(answer.content)
                answer.raise_for_status()
            out.append((where, query, size, statistics.median(times)))
    return out


def normal_latencies(client: httpx.Client, key: str, seconds: float) -> list[float]:
    """Given a client, return the latencies (ms) of normal requests sent for ``seconds``."""
    out = []
    stop = time.monotonic() + seconds
    for path in itertools.cycle(NORMAL):
        if time.monotonic() > stop:
            break
        started = time.perf_counter()
        client.get(path, headers={"Authorization": f"Bearer {key}"}).raise_for_status()
        out.append((time.perf_counter() - started) * 1000)
    return out


def attack(url: str, key: str, stop: threading.Event, sent: list[int]) -> None:
    """Send the worst queries back to back (API and site alternately) until ``stop``."""
    fresh = [variants(q, seed=n) for n, q in enumerate(WORST)]
    with httpx.Client(base_url=url, timeout=30) as client:
        for n in itertools.count():
            if stop.is_set():
                return
            query = next(fresh[n % len(fresh)])
            if n % 2:
                client.get("/search", params={"q": query})
            else:
                client.get(
                    "/api/v1/search",
                    params={"q": query},
                    headers={"Authorization": f"Bearer {key}"},
                )
            sent[0] += 1


def summary(latencies: Sequence[float]) -> str:
    """Given latencies (ms), return 'n, p50, p99, max'."""
    return (
        f"{len(latencies)} requests, p50 {statistics.median(latencies):.1f} ms, "
        f"p99 {percentile(latencies, 99):.1f} ms, max {max(latencies):.1f} ms"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark against a running server and print its figures (Markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args(argv)
    with httpx.Client(base_url=args.url, timeout=30) as client:
        wait_warm(args.url, {"Authorization": f"Bearer {args.key}"})  # indexes built, heap settled
        print("| where | query | bytes | median ms |\n|---|---|---|---|")
        for where, query, size, ms in worst_alone(client, args.key):
            print(f"| {where} | `{query[:40]}` | {size:,} | {ms:.1f} |")
        quiet = normal_latencies(client, args.key, args.seconds / 2)
        stop, sent = threading.Event(), [0]
        attacker = threading.Thread(target=attack, args=(args.url, args.key, stop, sent))
        attacker.start()
        try:
            loaded = normal_latencies(client, args.key, args.seconds)
        finally:
            stop.set()
            attacker.join()
    print(f"\nnormal requests, alone: {summary(quiet)}")
    print(f"normal requests, with one client sending {sent[0]} worst queries: {summary(loaded)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
