"""The change feed's pages (``GET /api/v1/changes?since=``, docs/API.md#changes), rendered
by the builder from the push state's log (:mod:`bangscore.build.push_state`): for every
snapshot id a client may hold (each kept step's predecessor, and this snapshot), every page
of the changes after it, so the shim only serves stored bytes.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from bangscore.build.push_state import PushState, Step
from bangscore.contract.push import CHANGES_INDEX_KEY, CHANGES_PAGE_SIZE, changes_key
from bangscore.storage import StoredObject

JSON_TYPE = "application/json"


def _snapshot(step: Step) -> dict[str, Any]:
    return {
        "id": step.snapshot,
        "previous": step.previous,
        "created_at": step.created_at,
        "as_of": step.as_of,
        "changed": len(step.changes),
    }


def change_pages(since: str, steps: Sequence[Step]) -> list[bytes]:
    """Given a snapshot id and the steps after it (oldest first), return every page of the
    change feed since it (at least one): the envelope ``since``, ``snapshot`` (the newest),
    ``page``, ``pages``, ``total`` (changes, one per game and step), ``snapshots`` and
    ``changes`` (each ``{"snapshot", "appid", "name", "changes": {field: [old, new]}}``,
    oldest step first, then by appid)."""
    rows = [
        {"snapshot": s.snapshot, "appid": c.appid, "name": c.name, "changes": c.fields}
        for s in steps
        for c in s.changes
    ]
    pages = -(-len(rows) // CHANGES_PAGE_SIZE)
    head = {
        "since": since,
        "snapshot": steps[-1].snapshot if steps else since,
        "snapshots": [_snapshot(s) for s in steps],
    }
    return [
        orjson.dumps(
            {
                "since": head["since"],
                "snapshot": head["snapshot"],
                "page": page,
                "pages": pages,
                "total": len(rows),
                "snapshots": head["snapshots"],
                "changes": rows[(page - 1) * CHANGES_PAGE_SIZE : page * CHANGES_PAGE_SIZE],
            }
        )
        for page in range(1, max(pages, 1) + 1)
    ]


def answerable(state: PushState) -> list[str]:
    """Given a push state, return the ``since`` values its snapshot answers: each kept step's
    predecessor, then the snapshot itself (oldest first)."""
    ids = [s.previous for s in state.log if s.previous is not None]
    return ids + ([state.snapshot] if state.snapshot is not None else [])


def change_objects(state: PushState) -> Iterator[StoredObject]:
    """Given this snapshot's push state, yield every page of the change feed for every
    answerable ``since`` and the index naming them (oldest first, this snapshot last)."""
    for n, step in enumerate(state.log):
        if step.previous is not None:
            for page, body in enumerate(change_pages(step.previous, state.log[n:]), start=1):
                yield StoredObject(changes_key(step.previous, page), body, JSON_TYPE)
    current = state.snapshot
    if current is not None:
        yield StoredObject(changes_key(current, 1), change_pages(current, [])[0], JSON_TYPE)
    index = {"snapshots": answerable(state)}
    yield StoredObject(CHANGES_INDEX_KEY, orjson.dumps(index), JSON_TYPE)
