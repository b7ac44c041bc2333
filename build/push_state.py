"""What push remembers from build to build (docs/API.md#push): each game's changed fields at
the last snapshot, the recent snapshots' changes and the Atom feeds' entries.

Builds remember nothing of their own, so (like the score history) this rides in the snapshot:
each build reads the current snapshot's :data:`PUSH_STATE_KEY` (:func:`read_push_state`),
advances it with its own games (:func:`advance`) and writes it again. The change feed's pages
and the feeds are rendered from the advanced state (:mod:`bangscore.build.changes`,
:mod:`bangscore.build.feeds`).

Pure except :func:`read_push_state`, which reads through the storage interface.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from bangscore.contract.push import CHANGE_FIELDS, CHANGE_HISTORY, FEED_ENTRIES, PUSH_STATE_KEY

__all__ = [
    "PUSH_STATE_KEY",
    "Change",
    "FeedEntry",
    "PushState",
    "Step",
    "advance",
    "decode",
    "diff",
    "encode",
    "game_fields",
    "qualifying",
    "read_push_state",
]
from bangscore.errors import SnapshotError
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import ObjectStorage

# A game's fields as compared between snapshots, in CHANGE_FIELDS order.
Fields = tuple[Any, ...]


@dataclass(frozen=True)
class Change:
    """One game's changed fields from one snapshot to the next: ``fields`` maps each changed
    field to ``[old, new]`` (old None: the game was not rated before; new None: no longer)."""

    appid: int
    name: str
    fields: dict[str, list[Any]]


@dataclass(frozen=True)
class Step:
    """One snapshot's place in the history: its id, the snapshot it followed (None: the
    first), when it was built (RFC 3339), the day its data describes and its changes."""

    snapshot: str
    previous: str | None
    created_at: str
    as_of: str | None
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class FeedEntry:
    """An Atom entry's lasting part: the game and the snapshot (id, RFC 3339 time) in which
    it joined the feed; the entry's id is drawn from these, so it never changes."""

    appid: int
    snapshot: str
    joined: str


@dataclass(frozen=True)
class PushState:
    """The state one snapshot hands the next: ``games`` (appid -> fields), ``log`` (the last
    :data:`CHANGE_HISTORY` steps, oldest first, this snapshot's last) and ``feeds`` (name ->
    entries, newest first)."""

    games: dict[int, Fields]
    log: tuple[Step, ...] = ()
    feeds: dict[str, tuple[FeedEntry, ...]] = field(default_factory=dict)

    @property
    def snapshot(self) -> str | None:
        """Return the id of the snapshot this state belongs to (None: an empty state)."""
        return self.log[-1].snapshot if self.log else None


def _wire_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def game_fields(item: Mapping[str, Any]) -> Fields:
    """Given a list item (dict), return its compared fields (dates as ISO strings)."""
    return tuple(_wire_value(item[name]) for name in CHANGE_FIELDS)


def diff(
    before: Mapping[int, Fields], after: Mapping[int, Fields], names: Mapping[int, str]
) -> tuple[Change, ...]:
    """Given each game's fields at two snapshots and names by appid, return the games whose
    fields differ, by appid: a game in one snapshot only has every field [None, new] or
    [old, None]."""
    changes = []
    for appid in sorted(before.keys() | after.keys()):
        old = before.get(appid, (None,) * len(CHANGE_FIELDS))
        new = after.get(appid, (None,) * len(CHANGE_FIELDS))
        if old != new:
            fields = {
                name: [o, n] for name, o, n in zip(CHANGE_FIELDS, old, new, strict=True) if o != n
            }
            changes.append(Change(appid, names.get(appid, ""), fields))
    return tuple(changes)


def _joined(
    kept: Sequence[FeedEntry], qualifying: Sequence[int], fresh: Iterable[int], joined: FeedEntry
) -> tuple[FeedEntry, ...]:
    """Given a feed's entries, the appids that qualify now (list order), those that newly
    qualify and an entry stamp, return the feed's entries: the new ones first (list order),
    then the kept ones still qualifying, at most :data:`FEED_ENTRIES`."""
    now, newly = set(qualifying), set(fresh)
    new_ids = [a for a in qualifying if a in newly]
    entries = [FeedEntry(a, joined.snapshot, joined.joined) for a in new_ids]
    taken = set(new_ids)
    entries += [e for e in kept if e.appid in now and e.appid not in taken]
    return tuple(entries[:FEED_ENTRIES])


def qualifying(items: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Given list items in list order, return each feed's qualifying appids in list order:
    ``deals`` (verdict ``buy_now``), ``bangers`` (tier ``banger``) and ``genre/<g>`` (the
    deals of genre g, for each genre present)."""
    deals = [i for i in items if i["verdict"] == "buy_now"]
    out = {
        "deals": [int(i["appid"]) for i in deals],
        "bangers": [int(i["appid"]) for i in items if i["tier"] == "banger"],
    }
    for item in deals:
        out.setdefault(f"genre/{item['genre']}", []).append(int(item["appid"]))
    return out


def _was(before: Mapping[int, Fields], name: str) -> set[int]:
    """Given each game's fields at the previous snapshot and a feed's name, return the appids
    that qualified for it then (a genre feed's by the verdict alone: a game that changes
    genre while a deal is no new deal)."""
    at, value = (
        (CHANGE_FIELDS.index("tier"), "banger")
        if name == "bangers"
        else (CHANGE_FIELDS.index("verdict"), "buy_now")
    )
    return {a for a, f in before.items() if f[at] == value}


def advance(
    previous: PushState | None,
    items: Sequence[Mapping[str, Any]],
    *,
    snapshot_id: str,
    created_at: dt.datetime | None,
    as_of: dt.date | None,
) -> PushState:
    """Given the current snapshot's state (None: nothing published yet), this build's list
    items in list order, its snapshot id, build time and data day, return this snapshot's
    state.

    A feed's entries are the games that newly qualify (:func:`qualifying`: ``deals`` became
    ``buy_now``, ``bangers`` became tier ``banger``), before those that joined earlier and
    still qualify. With no previous state every qualifying game is new."""
    games = {int(i["appid"]): game_fields(i) for i in items}
    names = {int(i["appid"]): str(i["name"]) for i in items}
    built = created_at or dt.datetime.now(dt.UTC)  # None: now
    created = built.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    stamp = FeedEntry(0, snapshot_id, created)
    day = as_of.isoformat() if as_of else None
    if previous is None:
        step = Step(snapshot_id, None, created, day, ())
        feeds = {name: _joined((), now, now, stamp) for name, now in qualifying(items).items()}
        return PushState(games, (step,), feeds)
    step = Step(snapshot_id, previous.snapshot, created, day, diff(previous.games, games, names))
    feeds = {}
    for name, now in qualifying(items).items():
        earlier = _was(previous.games, name)
        fresh = [a for a in now if a not in earlier]
        feeds[name] = _joined(previous.feeds.get(name, ()), now, fresh, stamp)
    return PushState(games, (*previous.log, step)[-CHANGE_HISTORY:], feeds)


def encode(state: PushState) -> bytes:
    """Given a state, return the snapshot object's bytes (compact JSON)."""
    return orjson.dumps(
        {
            "games": {str(a): list(f) for a, f in sorted(state.games.items())},
            "log": [
                {
                    "snapshot": s.snapshot,
                    "previous": s.previous,
                    "created_at": s.created_at,
                    "as_of": s.as_of,
                    "changes": [[c.appid, c.name, c.fields] for c in s.changes],
                }
                for s in state.log
            ],
            "feeds": {
                name: [[e.appid, e.snapshot, e.joined] for e in entries]
                for name, entries in sorted(state.feeds.items())
            },
        }
    )


def decode(body: bytes) -> PushState:
    """Given the snapshot object's bytes, return the state. Raises ValueError on a body that
    is not one."""
    try:
        raw = orjson.loads(body)
        return PushState(
            {int(a): tuple(f) for a, f in raw["games"].items()},
            tuple(
                Step(
                    s["snapshot"],
                    s["previous"],
                    s["created_at"],
                    s["as_of"],
                    tuple(Change(int(a), str(n), dict(f)) for a, n, f in s["changes"]),
                )
                for s in raw["log"]
            ),
            {
                name: tuple(FeedEntry(int(a), str(s), str(j)) for a, s, j in entries)
                for name, entries in raw["feeds"].items()
            },
        )
    except (orjson.JSONDecodeError, KeyError, AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"not a push state object: {exc}") from exc


def read_push_state(storage: ObjectStorage) -> PushState | None:
    """Given a snapshot store, return the current snapshot's push state; None when nothing is
    published yet or the snapshot predates push. Raises SnapshotError for a missing, corrupt
    or unreadable state object (a build then stops rather than lose every change)."""
    current = storage.read_pointer()
    if current is None:
        return None
    entry = read_manifest(storage, current).entries.get(PUSH_STATE_KEY)
    if entry is None:
        return None
    body = read_body(storage, entry)
    try:
        return decode(body)
    except ValueError as exc:
        raise SnapshotError(f"snapshot {current}: {exc}") from exc
