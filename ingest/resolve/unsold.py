"""Listings the storefront no longer sells (score version 6.0, docs/API.md#game_not_rated), and
what an edition inherits from the listing it replaces.

* **Not for sale** (:func:`unsold`): a game whose newest 2026 price row has no price (the
  storefront answered with no ``price_overview``), newer than any price it was rated at, and
  that the storefront does not file as free, is not rated: ``not_for_sale``, or ``superseded``
  with ``superseded_by`` where an edition or remaster by the same developer (or publisher) is
  rated (Horizon
  Zero Dawn Complete Edition -> Horizon Zero Dawn Remastered, Darksiders -> Darksiders
  Warmastered Edition).
* **Editions inherit** (:func:`inherit`): an edition that supersedes a listing keeps the old
  listing's measured length (the same game) where its own is only estimated (never over how long
  players play a multiplayer-first edition), and takes the old
  listing's positive share as the prior of its own review sample (``review_prior_score``).

Pure functions of the assembled records and the ``unpriced_at`` observations;
:func:`ingest.resolve.resolution.assemble` applies them after :func:`~ingest.resolve.editions.
supersede`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Final

from bangscore.ingest.resolve.editions import edition_base, name_key
from bangscore.scoring.records import GameRecord, NotRated

# Words an old listing's name may end in that name no edition of its own: "Divinity: Original
# Sin (Classic)" is "Divinity: Original Sin" as the Enhanced Edition replaced it.
OLD_LISTING_WORDS: Final = ("classic",)
MEASURED: Final = ("hltb",)
ESTIMATED: Final = ("playtime_estimate", None)


def _base(name: str) -> str:
    """Given a name, return what an edition of it is named after: its key without an edition
    phrase or an old listing's word."""
    key = edition_base(name) or name_key(name)
    for word in OLD_LISTING_WORDS:
        if key.endswith(" " + word):
            key = key[: -len(word) - 1]
    return key


def _makers(record: GameRecord) -> set[str]:
    """Given a record, return the keys of its developer and publisher (none empty): a remaster
    is often made by a studio the publisher hired (Horizon Zero Dawn Remastered: Nixxes)."""
    return {name_key(m) for m in (record.developer, record.publisher) if m and name_key(m)}


def _is_free(record: GameRecord) -> bool:
    return record.price_usd == 0 and record.list_price_usd == 0


def is_unsold(record: GameRecord, unpriced_at: dt.date | None) -> bool:
    """Given a rated record and the day of its newest price row when that row had no price
    (None when it had one or none was seen), return True when the storefront no longer sells
    it: that day is after the price the record is rated at, and the game is not free."""
    if unpriced_at is None or _is_free(record):
        return False
    priced = record.price_observed_at.date() if record.price_observed_at else None
    return priced is None or unpriced_at > priced


def editions_of(
    old: GameRecord,
    rated: Sequence[GameRecord],
    by_base: Mapping[str, Sequence[GameRecord]] | None = None,
) -> list[GameRecord]:
    """Given an old listing, the rated records and (optionally) their :func:`edition_index`,
    return the rated editions of it by the same developer or publisher (another appid, a name
    that is the old one's followed by an edition phrase, or the same work under another edition
    phrase), most reviewed first."""
    base, makers = _base(old.name), _makers(old)
    if not makers:
        return []
    editions = (by_base if by_base is not None else edition_index(rated)).get(base, ())
    found = [r for r in editions if r.appid != old.appid and makers & _makers(r)]
    return sorted(found, key=lambda r: -r.review_count)


def edition_index(rated: Sequence[GameRecord]) -> dict[str, list[GameRecord]]:
    """Given the rated records, return those whose name carries an edition phrase, by the
    key of the work they are an edition of (in the records' order). Built once for every old
    listing, where a search of all the rated records for each took a tenth of the ingest's
    samples in a py-spy profile (its CPU time showed no change beyond a loaded machine's noise:
    53.0 s before, 56.9 s after, 2 Dec 2026)."""
    index: dict[str, list[GameRecord]] = {}
    for record in rated:
        if edition_base(record.name) is not None:
            index.setdefault(_base(record.name), []).append(record)
    return index


def unsold(
    rated: Sequence[GameRecord],
    refused: Sequence[NotRated],
    unpriced: Mapping[int, dt.date],
) -> tuple[list[GameRecord], list[NotRated]]:
    """Given the rated records, the not-rated apps (both sorted by appid) and the day of each
    app's newest price row that had no price, return them with every unsold record
    (:func:`is_unsold`) moved to the not-rated apps as ``superseded`` (with its edition) or
    ``not_for_sale``, both still sorted by appid."""
    gone = {r.appid for r in rated if is_unsold(r, unpriced.get(r.appid))}
    if not gone:
        return list(rated), list(refused)
    kept = [r for r in rated if r.appid not in gone]
    by_base = edition_index(kept)
    moved: list[NotRated] = []
    for record in rated:
        if record.appid not in gone:
            continue
        editions = editions_of(record, kept, by_base)
        moved.append(
            NotRated(
                appid=record.appid,
                name=record.name,
                reason="superseded" if editions else "not_for_sale",
                review_count=record.review_count,
                superseded_by=editions[0].appid if editions else None,
            )
        )
    return kept, sorted([*refused, *moved], key=lambda a: a.appid)


def inherit(
    rated: Sequence[GameRecord], old: Mapping[int, GameRecord], refused: Sequence[NotRated]
) -> list[GameRecord]:
    """Given the rated records, the records of the listings moved out as superseded (by appid)
    and the not-rated apps, return the rated records with each edition that supersedes one of
    them given its measured length (where the edition's own is not measured) and its share as
    ``review_prior_score``; the rest unchanged."""
    parent: dict[int, GameRecord] = {}
    for app in refused:
        if app.reason == "superseded" and app.superseded_by and app.appid in old:
            best = parent.get(app.superseded_by)
            if best is None or old[app.appid].review_count > best.review_count:
                parent[app.superseded_by] = old[app.appid]
    out: list[GameRecord] = []
    for record in rated:
        before = parent.get(record.appid)
        if before is None:
            out.append(record)
            continue
        update: dict[str, object] = {"review_prior_score": before.review_score}
        # Only an estimate gives way: a multiplayer-first edition is measured by its own play.
        if before.length_source in MEASURED and record.length_source in ESTIMATED:
            update |= {
                "main_story_hours": before.main_story_hours,
                "length_source": before.length_source,
                "completionist_hours": before.completionist_hours,
                "estimated": tuple(e for e in record.estimated if e != "length_hours"),
                "checks": (),
            }
            if "length_hours" in before.provenance:
                update["provenance"] = {
                    **record.provenance,
                    "length_hours": before.provenance["length_hours"],
                }
        out.append(record.model_copy(update=update))
    return out
