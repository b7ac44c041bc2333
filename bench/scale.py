"""Scaled catalogs for benchmarks: the real catalog cloned up to N games, deterministically.

Clones keep every input of their source record (so scores, genres and page shapes stay
realistic) but get a fresh appid, a numbered name and a price moved by up to +-30 %, so
their detail records, pages and list positions differ from the source's. The same
(catalog, n, seed) always gives the same games.
"""

from __future__ import annotations

import random

from bangscore.scoring.records import Catalog, GameRecord


def _scaled_price(price: float, factor: float) -> float:
    return round(price * factor, 2) if price > 0 else 0.0


def clone(record: GameRecord, appid: int, copy: int, factor: float) -> GameRecord:
    """Given a record, a new appid, the copy number and a price factor, return the clone."""
    price = _scaled_price(record.price_usd, factor)
    list_price = max(price, _scaled_price(record.list_price_usd, factor))
    return record.model_copy(
        update={
            "appid": appid,
            "name": f"{record.name} ({copy})",
            "price_usd": price,
            "list_price_usd": list_price,
        }
    )


def scale_catalog(catalog: Catalog, n: int, *, seed: int = 0) -> Catalog:
    """Given a catalog and a size, return a catalog of ``n`` games: the originals first (cut
    to ``n`` if larger), then clones of randomly drawn originals with appids above the
    largest real one. Raises ValueError for an empty catalog or n < 1."""
    base = catalog.games
    if not base or n < 1:
        raise ValueError("need a non-empty catalog and n >= 1")
    rng = random.Random(seed)
    games = list(base[:n])
    # Above every known appid, rated or not, so a clone never shadows a not-rated app.
    known = [g.appid for g in base] + [a.appid for a in catalog.not_rated]
    next_appid = max(known) + 1
    copy = 1
    while len(games) < n:
        source = base[rng.randrange(len(base))]
        games.append(clone(source, next_appid, copy, rng.uniform(0.7, 1.3)))
        next_appid += 1
        copy += 1
    return catalog.model_copy(update={"games": tuple(games), "origin": f"scaled x{n}"})


def perturb(catalog: Catalog, fraction: float, *, seed: int = 1) -> tuple[Catalog, int]:
    """Given a catalog and a fraction (0-1), return (a copy with that fraction of games
    repriced by +-5-20 %, the number of games changed). Deterministic per seed."""
    rng = random.Random(seed)
    games = list(catalog.games)
    chosen = rng.sample(range(len(games)), max(1, round(len(games) * fraction)))
    for i in chosen:
        record = games[i]
        factor = 1 + rng.choice([-1, 1]) * rng.uniform(0.05, 0.2)
        price = _scaled_price(record.price_usd, factor) if record.price_usd > 0 else 0.99
        games[i] = record.model_copy(
            update={"price_usd": price, "list_price_usd": max(price, record.list_price_usd)}
        )
    return catalog.model_copy(update={"games": tuple(games)}), len(chosen)
