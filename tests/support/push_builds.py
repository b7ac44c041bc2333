"""Two builds of the small catalogue into one store, the second with real changes, for the
push tests (feeds, the change feed, webhooks): games repriced, one dropped, one added."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bangscore.build.pipeline import BuildOptions, run_build
from bangscore.scoring.records import GameRecord
from bangscore.storage import LocalStorage
from tests.support.factories import SITE, make_catalog, small_catalog

# Repriced in the second build: the first half of these cut to a fifth, the rest doubled.
REPRICED = 6


@dataclass(frozen=True)
class TwoBuilds:
    """The store, the two snapshot ids (first, second) and the two catalogues' records."""

    storage: LocalStorage
    first: str
    second: str
    before: list[GameRecord]
    after: list[GameRecord]


def changed_records(records: list[GameRecord]) -> list[GameRecord]:
    """Given the small catalogue's records, return the second build's: the first REPRICED
    games repriced (cut to a fifth, then doubled), the last game dropped and the first one's price
    kept (the changes the push tests expect come from these)."""
    out = []
    for n, record in enumerate(records[:-1]):
        if 0 < n <= REPRICED:
            factor = 0.2 if n <= REPRICED // 2 else 2.0
            price = round(record.price_usd * factor, 2)
            record = record.model_copy(update={"price_usd": price, "list_price_usd": price})
        out.append(record)
    return out


def build(folder: Path, records: list[GameRecord]) -> str:
    """Given a snapshot folder and records, build and publish them there; return the id."""
    catalog = make_catalog(records)
    options = BuildOptions(
        load_catalog=lambda: catalog,
        out=str(folder),
        site_url=SITE,
        base_url=SITE,
        allow_shrink=True,
    )
    return run_build(options).snapshot_id


def two_builds(folder: Path) -> TwoBuilds:
    """Given an empty folder, build the small catalogue, then its changed records, into it."""
    before = small_catalog()
    after = changed_records(before)
    first = build(folder, before)
    second = build(folder, after)
    return TwoBuilds(LocalStorage(folder), first, second, before, after)
