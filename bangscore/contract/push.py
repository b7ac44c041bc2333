"""Push's wire names and snapshot keys (docs/API.md#push): the Atom feeds, the change feed
``GET /api/v1/changes?since=`` and the fields a change reports.

Shared by the builder (which writes the feeds and every page of the change feed into the
snapshot) and the shim (which serves them, never composing one on the hot path).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Final, Literal

from pydantic import Field

from bangscore.contract.records import AppId
from bangscore.contract.records_base import Record
from bangscore.scoring.genres import GENRES

__all__ = [
    "ATOM",
    "CHANGES_INDEX_KEY",
    "CHANGES_PAGE_SIZE",
    "CHANGE_FIELDS",
    "CHANGE_HISTORY",
    "FEEDS",
    "FEED_ENTRIES",
    "FEED_TYPE",
    "PUSH_STATE_KEY",
    "ChangeFeed",
    "changes_key",
    "feed_key",
    "feed_names",
]

# The fields a change lists as [old, new], in this order (docs/API.md#changes).
CHANGE_FIELDS: Final = (
    "bang_score",
    "tier",
    "verdict",
    "price_usd",
    "verdict_price_usd",
    "next_sale_starts",
)
# Games a page of the change feed holds; each page is one counted request.
CHANGES_PAGE_SIZE: Final = 100
# Snapshots whose changes stay answerable: as many as the store keeps for rollback (7), so a
# client that read any kept snapshot can catch up.
CHANGE_HISTORY: Final = 7
FEED_ENTRIES: Final = 100
FEED_TYPE: Final = "application/atom+xml; charset=utf-8"
ATOM: Final = "http://www.w3.org/2005/Atom"  # the feeds' XML namespace (RFC 4287)
# The builder's memory between builds (never served): each game's changed fields at this
# snapshot, the recent snapshots' changes and the feeds' entries.
PUSH_STATE_KEY: Final = "push/state.json"
# {"snapshots": [ids oldest first, the current last]}: which ``since`` values are answerable.
CHANGES_INDEX_KEY: Final = "api/v1/changes/index.json"
# The feeds besides one per genre: name -> the feed's title.
FEEDS: Final = {"deals": "BangScore: new deals", "bangers": "BangScore: new bangers"}


def feed_names() -> list[str]:
    """Return every feed's name as its URL spells it (``deals``, ``bangers``,
    ``genre/rpg``...)."""
    return [*FEEDS, *(f"genre/{g}" for g in GENRES)]


def feed_key(name: str) -> str:
    """Given a feed's name (:func:`feed_names`), return its snapshot key; the site serves
    it at ``/feeds/<name>.atom``."""
    return f"site/feeds/{name}.atom"


def changes_key(since: str, page: int) -> str:
    """Given a snapshot id and a page (from 1), return the key of that page of the change
    feed since that snapshot."""
    return f"api/v1/changes/{since}/{page}.json"


ChangeField = Literal[
    "bang_score", "tier", "verdict", "price_usd", "verdict_price_usd", "next_sale_starts"
]


class ChangeSnapshot(Record):
    """One snapshot after ``since``: its id, the one before it, when it was built, the day
    its data describes and how many games changed in it."""

    id: str = Field(description="The snapshot's id.")
    previous: str | None = Field(description="The snapshot it followed; null for the first.")
    created_at: dt.datetime = Field(description="When it was built (RFC 3339, UTC).")
    as_of: dt.date | None = Field(description="The day its data describes.")
    changed: int = Field(ge=0, description="Games whose fields changed in it.")


class GameChange(Record):
    """One game's changed fields in one snapshot, each as [old, new] (old null: newly rated;
    new null: no longer rated)."""

    snapshot: str = Field(description="The snapshot the change came in.")
    appid: AppId
    name: str = Field(description="Game title.")
    changes: dict[ChangeField, tuple[Any, Any]] = Field(
        description="Each changed field as [old, new]."
    )


class ChangeFeed(Record):
    """A page of ``GET /api/v1/changes?since=`` (docs/API.md#changes): the snapshots after
    ``since``, oldest first, and their games' changes, 100 a page."""

    since: str = Field(description="The snapshot id asked for.")
    snapshot: str = Field(description="The newest snapshot: the next call's since.")
    page: int = Field(ge=1)
    pages: int = Field(ge=0)
    total: int = Field(ge=0, description="Changes over every page (one per game and snapshot).")
    snapshots: list[ChangeSnapshot] = Field(description="The snapshots after since, oldest first.")
    changes: list[GameChange] = Field(max_length=CHANGES_PAGE_SIZE)
