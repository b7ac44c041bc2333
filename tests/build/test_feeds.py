"""The Atom feeds (build/feeds.py) as a feed reader sees them: every feed of two builds of the
small catalogue read by feedparser, RFC 4287's required elements present, ids stable across a
rebuild, and the title, link and summary of each entry taken from the snapshot's records."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import feedparser
import orjson
import pytest

from bangscore.build.feeds import ATOM, entry_title, tag_uri
from bangscore.contract.objects import detail_key
from bangscore.contract.push import FEED_ENTRIES, feed_key, feed_names
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import LocalStorage, ObjectStorage
from tests.support.factories import SITE
from tests.support.push_builds import TwoBuilds, build, two_builds


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> TwoBuilds:
    """The small catalogue built twice into one store, the second with changes."""
    return two_builds(tmp_path_factory.mktemp("feeds"))


def body(storage: ObjectStorage, snapshot: str, key: str) -> bytes:
    """Given a store, a snapshot id and a key, return that object's bytes."""
    return read_body(storage, read_manifest(storage, snapshot).entries[key])


def required(feed: ET.Element) -> list[str]:
    """Given an Atom feed element, return what RFC 4287 requires of it and it lacks
    (atom:feed: id, title, updated, an author (or one per entry); atom:entry: id, title,
    updated, and a link or content)."""
    missing = [
        t for t in ("id", "title", "updated", "author") if feed.find(f"{{{ATOM}}}{t}") is None
    ]
    for n, entry in enumerate(feed.iter(f"{{{ATOM}}}entry")):
        missing += [
            f"entry {n} {t}"
            for t in ("id", "title", "updated", "link")
            if entry.find(f"{{{ATOM}}}{t}") is None
        ]
    return missing


@pytest.mark.parametrize("name", feed_names())
def test_every_feed_is_valid_atom_read_by_feedparser(builds: TwoBuilds, name: str) -> None:
    raw = body(builds.storage, builds.second, feed_key(name))
    parsed = feedparser.parse(raw)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.id == tag_uri(SITE, "2026", f"feeds/{name}")
    assert parsed.feed.links[0].href == f"{SITE}/feeds/{name}.atom"
    assert required(ET.fromstring(raw)) == []
    assert len(parsed.entries) <= FEED_ENTRIES
    assert len({e.id for e in parsed.entries}) == len(parsed.entries)


def test_each_entry_is_its_games_title_page_and_verdict(builds: TwoBuilds) -> None:
    parsed = feedparser.parse(body(builds.storage, builds.second, feed_key("deals")))
    assert parsed.entries
    for entry in parsed.entries:
        appid = int(entry.id.split("/")[1])
        record: dict[str, Any] = orjson.loads(
            body(builds.storage, builds.second, detail_key(appid))
        )
        assert record["verdict"] == "buy_now"
        assert entry.title == entry_title(record)
        assert entry.link == record["url"]
        assert entry.summary == record["verdict_text"]
        assert entry.tags[0].term == record["genre"]


def test_the_deals_feed_of_a_first_build_holds_its_buy_now_games(builds: TwoBuilds) -> None:
    parsed = feedparser.parse(body(builds.storage, builds.first, feed_key("deals")))
    deals = [
        r["appid"]
        for r in (
            orjson.loads(body(builds.storage, builds.first, detail_key(g.appid)))
            for g in builds.before
            if detail_key(g.appid) in read_manifest(builds.storage, builds.first).entries
        )
        if r["verdict"] == "buy_now"
    ]
    assert sorted(int(e.id.split("/")[1]) for e in parsed.entries) == sorted(deals)[:FEED_ENTRIES]
    assert {e.id.split("/")[-1] for e in parsed.entries} == {builds.first}


def test_ids_stay_the_same_across_a_rebuild(builds: TwoBuilds, tmp_path: Path) -> None:
    # A third build of the second build's records into a copy of the store: nothing changes,
    # so every feed keeps its entries and ids (each naming the snapshot it joined in).
    before = {
        n: feedparser.parse(body(builds.storage, builds.second, feed_key(n)))
        for n in ("deals", "genre/rpg")
    }
    folder = tmp_path / "copy"
    shutil.copytree(builds.storage.root, folder)
    third = build(folder, builds.after)
    copy = LocalStorage(folder)
    for name, parsed in before.items():
        again = feedparser.parse(body(copy, third, feed_key(name)))
        assert [e.id for e in again.entries] == [e.id for e in parsed.entries]
        assert [e.updated for e in again.entries] == [e.updated for e in parsed.entries]


@pytest.mark.parametrize(
    ("item", "title"),
    [
        pytest.param(
            {"verdict": "buy_now", "price_usd": 9.99}, "Hades: 99, buy now at $9.99", id="buy-now"
        ),
        pytest.param({"verdict": "buy_now", "price_usd": 0}, "Hades: 99, free: get it", id="free"),
        pytest.param(
            {"verdict": "wait_for_sale", "price_usd": 24.99, "verdict_price_usd": 12.49},
            "Hades: 99, wait for $12.49",
            id="wait",
        ),
        pytest.param({"verdict": "skip", "price_usd": 24.99}, "Hades: 99, skip", id="skip"),
    ],
)
def test_an_entry_title_says_the_verdict_and_its_price(item: dict[str, Any], title: str) -> None:
    assert entry_title({"name": "Hades", "bang_score": 99, **item}) == title
