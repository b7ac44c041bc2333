"""The Atom feeds (RFC 4287; docs/API.md#feeds) the builder writes into the snapshot:
``/feeds/deals.atom``, ``/feeds/bangers.atom`` and ``/feeds/genre/<genre>.atom``, each from
the push state's entries (:mod:`bangscore.build.push_state`) and this snapshot's list items.

Written with the standard library's ElementTree (no feed library is needed for the handful of
elements Atom requires); ``tests/build/test_feeds.py`` checks every feed against RFC 4287's
required elements and reads it with feedparser, as a reader does. Pure: no I/O.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from bangscore.build.push_state import FeedEntry, PushState
from bangscore.contract.push import ATOM, FEED_TYPE, FEEDS, feed_key, feed_names
from bangscore.storage import StoredObject

FEEDS_SINCE = "2026"
GENRE_TITLES = {
    "rpg": "RPG",
    "indie_short": "short indie",
}


def tag_uri(site_url: str, day: str, specific: str) -> str:
    """Given the site URL, a day (YYYY-MM-DD) and a specific part, return a tag URI
    (RFC 4151) under the site's host: ``tag:bangscore.example,2026-12-02:<specific>``."""
    host = urlsplit(site_url).hostname or "bangscore"
    return f"tag:{host},{day}:{specific}"


def entry_title(item: Mapping[str, Any]) -> str:
    """Given a list item, return its entry's title: ``Hades: 99, buy now at $9.99`` (a free
    game: ``..., free: get it``; other verdicts say theirs)."""
    head = f"{item['name']}: {item['bang_score']}"
    price = float(item["price_usd"])
    if item["verdict"] == "buy_now":
        return f"{head}, free: get it" if price == 0 else f"{head}, buy now at ${price:.2f}"
    if item["verdict"] == "wait_for_sale" and item.get("verdict_price_usd") is not None:
        return f"{head}, wait for ${float(item['verdict_price_usd']):.2f}"
    return f"{head}, {str(item['verdict']).replace('_', ' ')}"


def feed_title(name: str) -> str:
    """Given a feed's name, return its title."""
    if name in FEEDS:
        return FEEDS[name]
    genre = name.removeprefix("genre/")
    return f"BangScore: new {GENRE_TITLES.get(genre, genre)} deals"


def _text(parent: ET.Element, tag: str, text: str, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    element.text = text
    return element


def render_feed(
    name: str,
    entries: Sequence[FeedEntry],
    items: Mapping[int, Mapping[str, Any]],
    verdict_texts: Mapping[int, str],
    *,
    site_url: str,
    updated: str,
) -> bytes:
    """Given a feed's name, its entries (newest first), this snapshot's list items and
    verdict sentences by appid, the site URL and the snapshot's time (RFC 3339, the feed's
    ``updated`` when it has no entry), return the Atom document (UTF-8 bytes).

    Each entry: id a tag URI of the appid and the snapshot it joined in (stable while the
    game stays in the feed), the title of :func:`entry_title`, the game page as link,
    ``verdict_text`` as summary, the genre as category, ``updated`` the time it joined."""
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    # The year the feeds began: a feed's id never changes.
    _text(feed, "id", tag_uri(site_url, FEEDS_SINCE, f"feeds/{name}"))
    _text(feed, "title", feed_title(name))
    _text(feed, "updated", max((e.joined for e in entries), default=updated))
    ET.SubElement(feed, f"{{{ATOM}}}link", {"rel": "self", "href": f"{site_url}/feeds/{name}.atom"})
    ET.SubElement(feed, f"{{{ATOM}}}link", {"rel": "alternate", "href": f"{site_url}/"})
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "BangScore")
    _text(author, "uri", f"{site_url}/")
    for entry in entries:
        item = items[entry.appid]
        element = ET.SubElement(feed, f"{{{ATOM}}}entry")
        specific = f"game/{entry.appid}/snapshot/{entry.snapshot}"
        _text(element, "id", tag_uri(site_url, entry.joined[:10], specific))
        _text(element, "title", entry_title(item))
        ET.SubElement(element, f"{{{ATOM}}}link", {"rel": "alternate", "href": str(item["url"])})
        _text(element, "updated", entry.joined)
        _text(element, "summary", verdict_texts.get(entry.appid, ""))
        ET.SubElement(element, f"{{{ATOM}}}category", {"term": str(item["genre"])})
    body: bytes = ET.tostring(feed, encoding="utf-8", xml_declaration=True)
    return body


def feed_objects(
    state: PushState,
    items: Sequence[Mapping[str, Any]],
    verdict_texts: Mapping[int, str],
    *,
    site_url: str,
) -> Iterator[StoredObject]:
    """Given this snapshot's push state, its list items, verdict sentences by appid and the
    site URL, yield every feed (:func:`bangscore.contract.push.feed_names`; a genre with no
    game rated is an empty feed)."""
    by_appid = {int(i["appid"]): i for i in items}
    updated = state.log[-1].created_at if state.log else "1970-01-01T00:00:00Z"
    for name in feed_names():
        body = render_feed(
            name,
            state.feeds.get(name, ()),
            by_appid,
            verdict_texts,
            site_url=site_url,
            updated=updated,
        )
        yield StoredObject(feed_key(name), body, FEED_TYPE)
