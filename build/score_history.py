"""A score history that grows build by build: each game's dated ``bang_score`` and price at
every snapshot where either changed (docs/API.md#detail-record, ``score_history``).

Builds remember nothing of their own, so the history rides in the snapshot: every build
writes one object (:data:`SCORE_HISTORY_KEY`, appid -> points) and the next build reads the
current snapshot's copy (:func:`read_score_history`), extends it with its own scores
(:func:`extend`) and writes it again. A point is dated by the catalogue's ``prices_as_of``
day (the day its data describes, not the day of the build), so rebuilding the same catalogue
adds nothing, and a rebuild the same day with other scores (a new scoring model) replaces that
day's point instead of adding one.

Pure except :func:`read_score_history`, which reads through the storage interface.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

import orjson

from bangscore.errors import SnapshotError
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import ObjectStorage

__all__ = [
    "MAX_SCORE_HISTORY",
    "SCORE_HISTORY_KEY",
    "ScorePoint",
    "decode",
    "encode",
    "extend",
    "read_score_history",
    "wire",
]

MAX_SCORE_HISTORY: Final = 60
# A snapshot's object key (beside the index and the search index); never served.
SCORE_HISTORY_KEY: Final = "score_history.json"

ScoreHistory = Mapping[int, Sequence["ScorePoint"]]


class ScorePoint(NamedTuple):
    """A game's ``bang_score`` (integer 0-100) and ``price_usd`` (dollars) on ``date``."""

    date: dt.date
    bang_score: int
    price_usd: float


def extend(
    previous: ScoreHistory, scores: Iterable[tuple[int, int, float]], day: dt.date
) -> dict[int, tuple[ScorePoint, ...]]:
    """Given the previous histories by appid, this build's (appid, bang_score, price_usd) and
    the day they describe, return every scored game's history, oldest first.

    A game's point of ``day`` is added only when its score or price differs from its last
    point; a point already dated ``day`` is replaced; points dated after ``day`` (a rollback
    to older data) are dropped; at most :data:`MAX_SCORE_HISTORY` points, the oldest dropped.
    A game no longer scored has no history."""
    out: dict[int, tuple[ScorePoint, ...]] = {}
    for appid, score, price in scores:
        kept = [p for p in previous.get(appid, ()) if p.date < day]
        point = ScorePoint(day, int(score), round(float(price), 2))
        if not kept or kept[-1][1:] != point[1:]:
            kept.append(point)
        out[appid] = tuple(kept[-MAX_SCORE_HISTORY:])
    return out


def wire(points: Sequence[ScorePoint]) -> list[dict[str, Any]]:
    """Given a game's history, return its ``score_history`` wire value."""
    return [
        {"date": p.date.isoformat(), "bang_score": p.bang_score, "price_usd": p.price_usd}
        for p in points
    ]


def encode(histories: Mapping[int, Sequence[ScorePoint]]) -> bytes:
    """Given histories by appid, return the snapshot object's bytes (compact JSON, appids
    in order, each point ``[date, bang_score, price_usd]``)."""
    return orjson.dumps(
        {
            str(appid): [[p.date.isoformat(), p.bang_score, p.price_usd] for p in points]
            for appid, points in sorted(histories.items())
        }
    )


def decode(body: bytes) -> dict[int, tuple[ScorePoint, ...]]:
    """Given the snapshot object's bytes, return histories by appid. Raises ValueError on a
    body that is not such an object."""
    try:
        raw = orjson.loads(body)
        return {
            int(appid): tuple(
                ScorePoint(dt.date.fromisoformat(d), int(s), float(p)) for d, s, p in points
            )
            for appid, points in raw.items()
        }
    except (orjson.JSONDecodeError, AttributeError, TypeError) as exc:
        raise ValueError(f"not a score history object: {exc}") from exc


def read_score_history(storage: ObjectStorage) -> dict[int, tuple[ScorePoint, ...]]:
    """Given a snapshot store, return the current snapshot's histories by appid; empty when
    nothing is published yet or the snapshot predates score histories. Raises SnapshotError
    for a missing, corrupt or unreadable history object (a build then stops rather than
    start every history again)."""
    current = storage.read_pointer()
    if current is None:
        return {}
    entry = read_manifest(storage, current).entries.get(SCORE_HISTORY_KEY)
    if entry is None:
        return {}
    body = read_body(storage, entry)  # SnapshotError when missing or corrupt
    try:
        return decode(body)
    except ValueError as exc:
        raise SnapshotError(str(exc)) from exc
