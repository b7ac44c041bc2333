"""Early-window review signals (docs/API.md#early-window-signals) from dumps of single reviews
with the playtime at
review time (``author_playtime_at_review``, minutes).

Per game and dump: among the sample's storefront-purchase reviews (``steam_purchase`` true,
``received_for_free`` false: reviewers only, never buyers without a review), the early-window
reviews are those written with under :data:`EARLY_WINDOW_MINUTES` played. The summary is raw
counts over the sample: ``reviews`` = early-window count, ``positive_share`` = their positive
share, ``review_share`` = early-window / all storefront-purchase reviews with a known playtime,
``window`` = first and last review date of the sample. Every game with at least one such
review gets its figures: the sample size is published beside them (``early_window_sample``),
so a client can weigh a small sample itself.
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bangscore.ingest.resolve.observations import Observation
from bangscore.scoring.records import DateWindow, EarlyWindow

EARLY_WINDOW_MINUTES = 120
MIN_SAMPLE = 1


@dataclass
class _Tally:
    sample: int = 0
    early: int = 0
    early_positive: int = 0
    first: int = 0
    last: int = 0

    def add(self, created: int, playtime: int, positive: bool) -> None:
        self.sample += 1
        if playtime < EARLY_WINDOW_MINUTES:
            self.early += 1
            self.early_positive += positive
        self.first = created if not self.first else min(self.first, created)
        self.last = max(self.last, created)


def summarise(rows: Iterable[tuple[int, int, int, bool]], source: str) -> dict[int, EarlyWindow]:
    """Given (appid, created unix seconds, playtime at review in minutes, voted up) rows of
    storefront-purchase reviews and the source's name, return appid -> :class:`EarlyWindow`
    for every game with at least :data:`MIN_SAMPLE` rows."""
    tallies: dict[int, _Tally] = {}
    for appid, created, playtime, positive in rows:
        tally = tallies.get(appid)
        if tally is None:
            tally = tallies[appid] = _Tally()
        tally.add(created, playtime, positive)
    out: dict[int, EarlyWindow] = {}
    for appid, t in tallies.items():
        if t.sample < MIN_SAMPLE:
            continue
        out[appid] = EarlyWindow(
            reviews=t.early,
            positive_share=t.early_positive / t.early if t.early else None,
            review_share=t.early / t.sample,
            sample=t.sample,
            window=DateWindow(from_=_day(t.first), to=_day(t.last)),
            source=source,
        )
    return out


def _day(seconds: int) -> dt.date:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).date()


def read_review_rows(path: Path) -> Iterator[tuple[int, int, int, bool]]:
    """Given a ``reviews_playtime_at_review.csv.gz`` dump, yield (appid, created, playtime at
    review, voted up) for its storefront-purchase reviews with a known playtime at review."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as text:
        rows = csv.reader(text)
        header = next(rows, [])
        columns = (
            "appid",
            "timestamp_created",
            "author_playtime_at_review",
            "voted_up",
            "steam_purchase",
            "received_for_free",
        )
        where = [header.index(c) for c in columns]
        for row in rows:
            if len(row) != len(header):
                continue
            appid, created, playtime, voted_up, purchase, free = (row[i] for i in where)
            if purchase != "True" or free == "True":
                continue
            try:
                minutes = int(float(playtime))
                yield int(appid), int(created), minutes, voted_up == "True"
            except ValueError:
                continue


def observe_early_window(path: Path, source: str) -> Iterator[Observation]:
    """Given a review dump and its source name, yield ``early_window`` per covered game."""
    for appid, summary in summarise(read_review_rows(path), source).items():
        yield Observation(appid, "early_window", summary)
