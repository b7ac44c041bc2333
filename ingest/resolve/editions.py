"""Superseded listings (docs/API.md#game_not_rated): a storefront app that no source of the
catalogue's year sees any more, whose newer edition by the same developer is rated, is not
rated itself: ``game_not_rated`` with reason ``superseded`` and ``superseded_by`` (the
edition's appid).

An edition's name is the old name followed by an edition phrase (:data:`EDITION_PHRASES`):
Grand Theft Auto V -> Grand Theft Auto V Enhanced, The Elder Scrolls V: Skyrim -> The Elder
Scrolls V: Skyrim Special Edition. A sequel is never an edition: Hades II does not supersede
Hades (the 2026 dumps simply missed Hades; its price stays dated and stale).

Pure functions of the assembled records; :func:`ingest.resolve.resolution.assemble` applies
:func:`supersede` last.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Final

from bangscore.scoring.records import GameRecord, NotRated

# The storefront's edition phrases, normalised as :func:`name_key` normalises names.
EDITION_PHRASES: Final = (
    "enhanced",
    "enhanced edition",
    "special edition",
    "remastered",
    "remaster",
    "definitive edition",
    "complete edition",
    "game of the year",
    "game of the year edition",
    "goty",
    "goty edition",
    "anniversary",
    "anniversary edition",
    "director s cut",
    # Round 7's words for a remaster that replaced an unsold listing (ingest.resolve.unsold).
    "warmastered",
    "warmastered edition",
)
_NOT_ALNUM: Final = re.compile(r"[^0-9a-z]+")


def name_key(name: str) -> str:
    """Given a storefront name, return it casefolded with every run of other characters than
    letters and digits as one space (™, ®, colons and dashes go): "The Elder Scrolls V:
    Skyrim" -> "the elder scrolls v skyrim"."""
    return _NOT_ALNUM.sub(" ", name.casefold()).strip()


def seen_in(record: GameRecord, year: int) -> bool:
    """Given a record and a year, return True when a source of that year (or later) saw it: a
    price observed then, or any input whose provenance is dated then."""
    first = dt.date(year, 1, 1)
    if record.price_observed_at is not None and record.price_observed_at.date() >= first:
        return True
    if any(point.date >= first for point in record.price_history):
        return True
    return any(source.date >= first for source in record.provenance.values())


def edition_base(name: str) -> str | None:
    """Given a name, return the name key it is an edition of (the key without its edition
    phrase), or None when it ends in no edition phrase."""
    key = name_key(name)
    for phrase in EDITION_PHRASES:
        if key.endswith(" " + phrase) and len(key) > len(phrase) + 1:
            return key[: -len(phrase) - 1]
    return None


def _same_maker(old: GameRecord, new: GameRecord) -> bool:
    return bool(old.developer) and name_key(old.developer or "") == name_key(new.developer or "")


def superseded(records: Sequence[GameRecord], year: int) -> dict[int, int]:
    """Given the rated records and the catalogue's year, return ``{old appid: edition appid}``
    for every record no source of that year saw whose edition (same developer, its name
    followed by an edition phrase, seen that year) is among the records."""
    by_key: dict[str, list[GameRecord]] = {}
    for record in records:
        by_key.setdefault(name_key(record.name), []).append(record)
    found: dict[int, int] = {}
    for edition in records:
        base = edition_base(edition.name)
        if base is None or not seen_in(edition, year):
            continue
        for old in by_key.get(base, ()):
            if old.appid != edition.appid and _same_maker(old, edition) and not seen_in(old, year):
                found.setdefault(old.appid, edition.appid)
    return found


def supersede(
    rated: Sequence[GameRecord], refused: Sequence[NotRated], year: int
) -> tuple[list[GameRecord], list[NotRated]]:
    """Given the rated records, the not-rated apps (both sorted by appid) and the catalogue's
    year, return them with every superseded record (:func:`superseded`) moved to the not-rated
    apps as ``superseded``, both still sorted by appid."""
    moved = superseded(rated, year)
    if not moved:
        return list(rated), list(refused)
    kept = [r for r in rated if r.appid not in moved]
    gone = [
        NotRated(
            appid=r.appid,
            name=r.name,
            reason="superseded",
            review_count=r.review_count,
            superseded_by=moved[r.appid],
        )
        for r in rated
        if r.appid in moved
    ]
    return kept, sorted([*refused, *gone], key=lambda a: a.appid)
