"""Push over two real builds (docs/API.md#push): the bundled catalogue built as of 24 Jun
2026, then as of today, into one store (``bangscore build --as-of``, then the default build:
the session's ``as_of_pair``, tests/support/real_builds.py).
The change feed lists exactly the games whose compared fields differ between the two
snapshots' detail records (every record compared), and the deals feed holds the games that
became ``buy_now``, valid Atom, its ids stable when the same data is built again."""

from __future__ import annotations

import datetime as dt
from typing import Any

import feedparser
import orjson
import pytest

from bangscore.build.push_state import advance, decode, qualifying
from bangscore.build.snapshot import push_objects
from bangscore.contract.push import (
    CHANGE_FIELDS,
    FEED_ENTRIES,
    PUSH_STATE_KEY,
    changes_key,
    feed_key,
)
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import LocalStorage
from tests.support.factories import SITE
from tests.support.real_builds import Details

pytestmark = pytest.mark.slow


def _pages(storage: LocalStorage, snapshot: str, since: str) -> list[dict[str, Any]]:
    """Given a store, a snapshot and a since, return every page of its change feed."""
    manifest = read_manifest(storage, snapshot)
    first = orjson.loads(read_body(storage, manifest.entries[changes_key(since, 1)]))
    return [first] + [
        orjson.loads(read_body(storage, manifest.entries[changes_key(since, n)]))
        for n in range(2, first["pages"] + 1)
    ]


def test_the_change_feed_is_every_detail_records_difference(
    as_of_pair: Any, pair_details: tuple[Details, Details]
) -> None:
    storage, eve, today = as_of_pair
    before, after = pair_details
    expected = {}
    for appid in sorted(before.keys() | after.keys()):
        old, new = before.get(appid, {}), after.get(appid, {})
        fields = {f: [old.get(f), new.get(f)] for f in CHANGE_FIELDS if old.get(f) != new.get(f)}
        if fields:
            expected[appid] = fields
    pages = _pages(storage, today, eve)
    listed = {c["appid"]: c["changes"] for p in pages for c in p["changes"]}
    assert sum(len(p["changes"]) for p in pages) == len(listed) == pages[0]["total"]
    assert listed == expected
    assert len(expected) > 1000  # half a year of prices: most games changed


def test_the_deals_feed_holds_the_games_that_became_buy_now(
    as_of_pair: Any, pair_details: tuple[Details, Details]
) -> None:
    storage, _, today = as_of_pair
    before, after = pair_details
    became = {
        a for a, r in after.items() if r["verdict"] == "buy_now"
        and before.get(a, {}).get("verdict") != "buy_now"
    }  # fmt: skip
    raw = read_body(storage, read_manifest(storage, today).entries[feed_key("deals")])
    parsed = feedparser.parse(raw)
    assert not parsed.bozo
    entries = {int(e.id.split("/")[1]) for e in parsed.entries}
    assert len(entries) == min(FEED_ENTRIES, len(became))
    assert entries <= became
    assert {e.id.split("/")[-1] for e in parsed.entries} == {today}
    # The best of them: list order is bang_score descending.
    shown = min(after[a]["bang_score"] for a in entries)
    assert all(after[a]["bang_score"] <= shown for a in became - entries)


def test_the_same_data_built_again_keeps_every_feeds_ids(
    as_of_pair: Any, pair_details: tuple[Details, Details]
) -> None:
    storage, _, today = as_of_pair
    manifest = read_manifest(storage, today)
    state = decode(read_body(storage, manifest.entries[PUSH_STATE_KEY]))
    records = sorted(pair_details[1].values(), key=lambda r: (-r["bang_score"], r["appid"]))
    assert set(qualifying(records)) >= {"deals", "bangers"}
    now = dt.datetime.now(dt.UTC)
    rebuilt = advance(state, records, snapshot_id="rebuilt", created_at=now, as_of=now.date())
    again = {o.key: o.body for o in push_objects(rebuilt, records, records, site_url=SITE)}
    for name in ("deals", "bangers", "genre/rpg"):
        first = feedparser.parse(read_body(storage, manifest.entries[feed_key(name)]))
        second = feedparser.parse(again[feed_key(name)])
        assert [e.id for e in second.entries] == [e.id for e in first.entries]
