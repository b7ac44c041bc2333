"""The registry of bundled sources: every dump under ``data/raw`` as one :class:`Source` (its
layer, its path and its reader) in :data:`BUNDLED`, and :func:`read_observations`, which reads
them all into one :class:`Observations`. Provenance of every file: ``data/README.md``.

Adding a source is one reader and one line in :data:`BUNDLED`.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import datetime as dt
import multiprocessing
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tqdm import tqdm

from bangscore.errors import CatalogError
from bangscore.ingest.dumps import early_window, files, insights, legacy, pics, readers
from bangscore.ingest.dumps.expectations import EXPECTED, Expectation
from bangscore.ingest.resolve.observations import (
    TRUST_MATCHED,
    Layer,
    Observation,
    Observations,
    tabulate,
)

__all__ = ["BUNDLED", "PRICE_HISTORY_LAYER", "Source", "read_observations"]

PRICE_HISTORY_LAYER: Final = "steam_prices_usd_2026-07"

Reader = Callable[[Path, Observations], Iterable[Observation]]
# A reader of a dump whose rows carry their own dates: (path, known, day) -> the observations
# dated on or before the day.
DatedReader = Callable[[Path, Observations, dt.date], Iterable[Observation]]
# What a reader may raise on a damaged dump: a short or bad compressed stream, bytes that are
# not UTF-8 (UnicodeDecodeError) or not JSON (JSONDecodeError), both ValueErrors, a damaged
# zip, a malformed CSV, a document of another shape (KeyError, TypeError, AttributeError,
# IndexError). Each is wrapped as a CatalogError naming the file.
READ_ERRORS = (
    OSError,
    EOFError,
    zlib.error,
    zipfile.BadZipFile,
    csv.Error,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    IndexError,
)


@dataclass(frozen=True)
class Source:
    """One bundled dump: its layer, its path under ``data/raw`` and its reader, and for a dump
    whose rows are dated one by one, ``read_until``: its reader of the rows up to a day (a
    build ``--as-of`` keeps those; a dump without it is dated by its layer alone)."""

    layer: Layer
    path: str
    read: Reader
    read_until: DatedReader | None = None
    # A reader matching its rows against what the sources before it observed (its ``known``)
    # reads in order, in the build's process; any other may be read ahead in a worker
    # (:func:`read_observations` with ``workers``).
    matches_known: bool = False

    def as_of(self, day: dt.date | None) -> Source | None:
        """Given a build's day (None: no limit), return this source as a build of that day
        reads it: unchanged when its data is not newer; its rows up to the day under a layer
        dated that day when they are dated one by one; None when it is newer and is not."""
        if day is None or self.layer.date <= day:
            return self
        if self.read_until is None:
            return None
        read_until = self.read_until
        return Source(
            dataclasses.replace(self.layer, date=day),
            self.path,
            lambda p, known: read_until(p, known, day),
            matches_known=self.matches_known,
        )


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


# Freshest first within a trust rank is the resolver's rule; the order here only breaks ties.
BUNDLED: tuple[Source, ...] = (
    Source(
        Layer("steam_pics_2026", "storefront", _d("2026-07-24")),
        "steam_pics_2026",
        lambda p, _: pics.observe_pics(p),
    ),
    # 28 dated versions of one US price file: each app's newest is its price, every one a
    # point of its price history (ingest.resolve.prices). Dated by its newest version.
    Source(
        Layer(PRICE_HISTORY_LAYER, "storefront", _d("2026-07-24")),
        "steam_prices_usd_2026-07_history",
        lambda p, _: readers.observe_price_history(p, PRICE_HISTORY_LAYER),
        lambda p, _, day: readers.observe_price_history(p, PRICE_HISTORY_LAYER, until=day),
    ),
    Source(
        Layer("steam_delisted_2026-08", "storefront", _d("2026-08-22")),
        "steam_delisted_2026-08/delisted_first_last_seen.csv.gz",
        lambda p, _: readers.observe_delisted(p),
        lambda p, _, day: readers.observe_delisted(p, until=day),
    ),
    # A recent sample of up to 1,000 reviews (readers.REVIEW_SAMPLE_CAP): matched, so a full
    # total wins unless the sample is newer and larger; a capped sample is a lower bound.
    Source(
        Layer("steam_review_playtime_2026", "player_stats", _d("2026-07-24"), TRUST_MATCHED),
        "steam_review_playtime_2026/playtime.json.gz",
        lambda p, _: readers.observe_review_playtime(p),
    ),
    Source(
        Layer("steamspy_2025-01-01", "player_stats", _d("2025-01-01")),
        "steamspy_all_2025-01-01",
        lambda p, _: legacy.observe_steamspy(files.read_steamspy(p).rows, current=True),
    ),
    Source(
        Layer("steam_insights_2024", "storefront", _d("2024-10-31")),
        "steam_insights_2024",
        lambda p, _: insights.observe_insights(p),
    ),
    Source(
        Layer("steamspy_2023-02-04", "player_stats", _d("2023-02-04")),
        "steamspy_all_2023-02-04",
        lambda p, _: legacy.observe_steamspy(files.read_steamspy(p).rows, current=False),
    ),
    Source(
        Layer("steam_store_2019", "storefront", _d("2019-05-01")),
        "steam_store_games_2019/steam.csv.gz",
        lambda p, _: legacy.observe_store_2019(files.read_store_games_2019(p).rows),
    ),
    Source(
        Layer("hltb_steam_2025-12", "play_length", _d("2025-12-27")),
        "hltb_steam_2025-12/howlongtobeat_games.csv.gz",
        lambda p, _: readers.observe_hltb_2025(p),
    ),
    # HLTB by title similarity (June 2026): fresher, but a title match can pick the wrong game.
    Source(
        Layer("hltb_steam_2026", "play_length", _d("2026-06-30"), TRUST_MATCHED),
        "hltb_steam_2026/hltb.json.gz",
        lambda p, _: readers.observe_hltb_2026(p),
    ),
    Source(
        Layer("hltb_2023", "play_length", _d("2023-12-31")),
        "hltb_2023/hltb_clean.csv",
        lambda p, known: legacy.observe_hltb_2023_by_appid(files.read_hltb(p).rows, known),
        matches_known=True,
    ),
    Source(
        Layer("hltb_2023 by title", "play_length", _d("2023-12-31"), TRUST_MATCHED),
        "hltb_2023/hltb_clean.csv",
        lambda p, known: legacy.observe_hltb_2023_by_title(files.read_hltb(p).rows, known),
        matches_known=True,
    ),
    Source(
        Layer("steam_rarest_achievement_2024-12", "player_stats", _d("2024-12-17")),
        "steam_rarest_achievement_2024-12/steam_hltb_map.json.gz",
        lambda p, _: readers.observe_rarest_achievement(p),
    ),
    Source(
        Layer("steam_players_2018", "player_stats", _d("2018-07-01")),
        "steam_players_2018/games_achievements_players_2018-07-01.csv",
        lambda p, _: legacy.observe_players_2018(files.read_players_2018(p).rows),
    ),
    Source(
        Layer("itad_2025", "price_history", _d("2025-10-16"), TRUST_MATCHED),
        "itad_price_history_2025/steam_games_analysis.csv.gz",
        lambda p, known: legacy.observe_itad(files.read_itad_games(p).rows, known),
        matches_known=True,
    ),
    Source(
        Layer("steam_reviews_window_2025-01", "player_stats", _d("2025-01-20")),
        "steam_reviews_window_2025-01/reviews_playtime_at_review.csv.gz",
        lambda p, _: early_window.observe_early_window(p, "steam_reviews_window_2025-01"),
    ),
    Source(
        Layer("steam_reviews_popular_2024-04", "player_stats", _d("2024-04-22")),
        "steam_reviews_popular_2024-04/reviews_playtime_at_review.csv.gz",
        lambda p, _: early_window.observe_early_window(p, "steam_reviews_popular_2024-04"),
    ),
    Source(
        Layer("steam_reviews_indie_2023-11", "player_stats", _d("2023-11-27")),
        "steam_reviews_indie_2023-11/reviews_playtime_at_review.csv.gz",
        lambda p, _: early_window.observe_early_window(p, "steam_reviews_indie_2023-11"),
    ),
)


def read_observations(
    raw_dir: Path,
    sources: Iterable[Source] = BUNDLED,
    *,
    progress: bool = False,
    as_of: dt.date | None = None,
    expected: Mapping[str, Expectation] = EXPECTED,
    workers: int = 1,
) -> tuple[Observations, Counter[str]]:
    """Given the ``data/raw`` folder, return (every source's observations, count per layer).
    Each source with an expectation in ``expected`` (by layer name; the bundled dumps' by
    default) is checked against it as soon as it is read.

    With ``as_of`` (a build's day), only observations dated on or before it are read: a source
    whose data is newer is left out, or, when its rows carry their own dates
    (:attr:`Source.read_until`), read up to that day; such a build is not held to the
    expectations, which describe the bundled dumps as the nightly build reads them.

    With ``workers`` > 1, that many forked processes read the sources that match nothing
    against earlier ones (not :attr:`Source.matches_known`) ahead, while this process adds
    each source's observations in order and reads the others: the same observations, in the
    same order, as one process reads them (issue 56: a first build's ingest used one core).

    Raises CatalogError naming the file if a file or folder is missing or unreadable, or a
    source fails its expectation (:class:`Expectation`: required fields, row count).
    """
    known = Observations()
    counts: Counter[str] = Counter()
    kept = [s for s in (source.as_of(as_of) for source in sources) if s is not None]
    with _read_ahead(raw_dir, kept, workers) as ahead:
        for n, source in enumerate(
            tqdm(kept, desc="reading sources", unit="source", disable=not progress)
        ):
            path = raw_dir / source.path
            if not path.exists():
                raise CatalogError(f"missing raw dump {path}")
            try:
                if n in ahead:
                    tables, count, seen = ahead[n].result()
                    counts[source.layer.name] = known.add_tables(source.layer, tables, count)
                else:
                    tables, count = tabulate(source.read(path, known))
                    counts[source.layer.name] = known.add_tables(source.layer, tables, count)
                    seen = set(tables)
            except READ_ERRORS as err:  # a CatalogError of a reader is a ValueError too
                raise CatalogError(
                    f"cannot read raw dump {path}: {type(err).__name__}: {err}"
                ) from err
            # A build as of a day is held to nothing: a dump's count there depends on what the
            # sources before it knew by then (matches by name), not only on the dump.
            expectation = expected.get(source.layer.name) if as_of is None else None
            if expectation is not None:
                expectation.check(path, counts[source.layer.name], seen)
    return known, counts


# Tables by field, observation count, fields seen: what a worker reads of one source. The
# fields seen are the tables' keys (a table is made for each field observed), so no pass over
# the observations counts them (a generator and a set insert per observation, 5 million).
Read = tuple[dict[str, dict[int, Any]], int, set[str]]
_AHEAD: tuple[Path, Sequence[Source]] | None = None  # set before the workers fork


def _read_one(n: int) -> Read:
    assert _AHEAD is not None, "a reader runs only in a process forked by _read_ahead"
    raw_dir, sources = _AHEAD
    tables, count = tabulate(sources[n].read(raw_dir / sources[n].path, Observations()))
    return tables, count, set(tables)


@contextlib.contextmanager
def _read_ahead(
    raw_dir: Path, sources: Sequence[Source], workers: int
) -> Iterator[dict[int, Future[Read]]]:
    """Given the raw folder, the sources in order and a number of processes, yield the
    reading (by position) of every source a worker may read: none with one worker. The
    workers are forked (they inherit the readers, which do not pickle) and end with the
    block."""
    global _AHEAD
    free = [n for n, s in enumerate(sources) if not s.matches_known]
    if workers <= 1 or len(free) < 2:
        yield {}
        return
    _AHEAD = (raw_dir, sources)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = {n: pool.submit(_read_one, n) for n in free}
            try:
                yield futures
            finally:
                for future in futures.values():
                    future.cancel()
    finally:
        _AHEAD = None
