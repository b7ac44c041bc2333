"""The change feed's pages (build/changes.py): paged 100 at a time, one set of pages for
every answerable ``since``, each page a valid ChangeFeed, and (over two real builds of the
small catalogue) exactly the games whose compared fields differ between the two snapshots'
detail records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from bangscore.build.changes import change_objects, change_pages
from bangscore.build.push_state import Change, PushState, Step
from bangscore.contract.objects import detail_key
from bangscore.contract.push import (
    CHANGE_FIELDS,
    CHANGES_INDEX_KEY,
    CHANGES_PAGE_SIZE,
    ChangeFeed,
    changes_key,
)
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import ObjectStorage
from tests.support.push_builds import two_builds


def steps(*counts: int) -> tuple[Step, ...]:
    """Given a change count per step, return steps s1, s2, ... each following the one before
    (s0 before the first), with that many games' scores changed."""
    return tuple(
        Step(
            f"s{n}",
            f"s{n - 1}",
            f"2026-12-0{n}T03:15:00Z",
            f"2026-12-0{n}",
            tuple(Change(a, f"Game {a}", {"bang_score": [50, 60]}) for a in range(1, count + 1)),
        )
        for n, count in enumerate(counts, start=1)
    )


def test_changes_are_paged_oldest_step_first_each_page_a_change_feed() -> None:
    pages = [orjson.loads(p) for p in change_pages("s0", steps(150, 60))]
    assert [p["page"] for p in pages] == [1, 2, 3]
    assert {(p["pages"], p["total"]) for p in pages} == {(3, 210)}
    rows = [(c["snapshot"], c["appid"]) for p in pages for c in p["changes"]]
    assert rows == [("s1", a) for a in range(1, 151)] + [("s2", a) for a in range(1, 61)]
    assert [len(p["changes"]) for p in pages] == [CHANGES_PAGE_SIZE, CHANGES_PAGE_SIZE, 10]
    for page in pages:
        ChangeFeed.model_validate(page)
        assert page["snapshot"] == "s2"
        assert [s["id"] for s in page["snapshots"]] == ["s1", "s2"]
        assert [s["changed"] for s in page["snapshots"]] == [150, 60]


def test_since_the_current_snapshot_is_one_empty_page() -> None:
    (page,) = change_pages("s2", [])
    assert orjson.loads(page) == {"since": "s2", "snapshot": "s2", "page": 1, "pages": 0,
                                  "total": 0, "snapshots": [], "changes": []}  # fmt: skip


def test_every_kept_predecessor_and_the_current_snapshot_are_answerable() -> None:
    state = PushState({}, steps(1, 2, 3))
    objects = {o.key: orjson.loads(o.body) for o in change_objects(state)}
    assert objects[CHANGES_INDEX_KEY] == {"snapshots": ["s0", "s1", "s2", "s3"]}
    assert [objects[changes_key(s, 1)]["total"] for s in ("s0", "s1", "s2", "s3")] == [6, 5, 3, 0]


def fields(storage: ObjectStorage, snapshot: str, appid: int) -> dict[str, Any] | None:
    """Given a store, a snapshot and an appid, return the compared fields of its detail
    record (None: not rated there)."""
    entry = read_manifest(storage, snapshot).entries.get(detail_key(appid))
    if entry is None:
        return None
    record = orjson.loads(read_body(storage, entry))
    return {f: record[f] for f in CHANGE_FIELDS}


def test_the_changes_between_two_builds_are_the_detail_records_differences(
    tmp_path: Path,
) -> None:
    builds = two_builds(tmp_path)
    manifest = read_manifest(builds.storage, builds.second)
    page = orjson.loads(read_body(builds.storage, manifest.entries[changes_key(builds.first, 1)]))
    listed = {c["appid"]: c["changes"] for c in page["changes"]}
    appids = {r.appid for r in builds.before} | {r.appid for r in builds.after}
    expected = {}
    for appid in sorted(appids):
        old = fields(builds.storage, builds.first, appid) or dict.fromkeys(CHANGE_FIELDS)
        new = fields(builds.storage, builds.second, appid) or dict.fromkeys(CHANGE_FIELDS)
        diff = {f: [old[f], new[f]] for f in CHANGE_FIELDS if old[f] != new[f]}
        if diff:
            expected[appid] = diff
    assert listed == expected
    assert len(expected) >= 5  # the repriced games and the dropped one
