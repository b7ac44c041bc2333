"""One build as a function (build.pipeline.run_build): a small catalogue published into a
folder, the shrink guard, and the Bulk export written after the pointer moved."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest

from bangscore.build.export import write_export
from bangscore.build.pipeline import BuildOptions, DetailRecords, current_games, run_build
from bangscore.build.score_history import read_score_history
from bangscore.contract.export import CHANGES_JSONL, CHANGES_PARQUET, file_key
from bangscore.contract.objects import ROOT_KEY, detail_key
from bangscore.errors import CatalogRefused, SnapshotError
from bangscore.manifest import list_snapshots, read_body, read_manifest
from bangscore.scoring.pipeline import score_catalog
from bangscore.storage import LocalStorage, StoredObject
from tests.support.factories import SITE, make_catalog, small_catalog


def options(tmp_path: Path, count: int = 45, **changes: object) -> BuildOptions:
    """Given a folder, the options of a build of the first ``count`` small-catalogue games."""
    catalog = make_catalog(small_catalog()[:count])
    return BuildOptions(
        load_catalog=lambda: catalog,
        out=str(tmp_path / "snapshots"),
        site_url=SITE,
        base_url=SITE,
        **changes,  # type: ignore[arg-type]
    )


def test_a_build_publishes_one_snapshot_and_moves_the_pointer(tmp_path: Path) -> None:
    result = run_build(options(tmp_path))
    store = LocalStorage(tmp_path / "snapshots")
    assert store.read_pointer() == result.snapshot_id
    assert list_snapshots(store) == [result.snapshot_id]
    manifest = read_manifest(store, result.snapshot_id)
    assert result.games == manifest.meta["games"] == current_games(store) == 45
    assert manifest.meta["site_url"] == SITE
    assert result.publish.objects == len(manifest.entries) > 45
    # Content-addressed: equal bodies (without adult games the site's no_adult lists equal the
    # API's) are one object, uploaded once.
    assert result.publish.uploaded == len({e.sha256 for e in manifest.entries.values()})
    assert result.export_counts is None
    assert (result.collected, result.freed) == (0, 0)


def test_a_shrinking_catalogue_is_refused_unless_allowed(tmp_path: Path) -> None:
    first = run_build(options(tmp_path))
    with pytest.raises(CatalogRefused, match="--allow-shrink"):
        run_build(options(tmp_path, count=20))
    store = LocalStorage(tmp_path / "snapshots")
    assert store.read_pointer() == first.snapshot_id
    allowed = run_build(options(tmp_path, count=20, allow_shrink=True))
    assert store.read_pointer() == allowed.snapshot_id and current_games(store) == 20


def test_an_export_is_written_with_its_change_counts(tmp_path: Path) -> None:
    export = tmp_path / "export"
    first = run_build(options(tmp_path, count=40, export=str(export)))
    assert first.export_counts == {"added": 40, "changed": 0, "removed": 0}
    second = run_build(options(tmp_path, export=str(export)))
    assert second.export_counts is not None and second.export_counts["added"] == 5


def test_the_export_reuses_the_snapshots_detail_records_byte_for_byte(tmp_path: Path) -> None:
    # The build hands the export the detail records it published (DetailRecords): its files
    # are the bytes the export would have computed again from the games, score histories
    # included (the second build's games carry a second point).
    opts = options(tmp_path, export=str(tmp_path / "export"))
    run_build(opts)
    built = run_build(opts)
    store = LocalStorage(tmp_path / "snapshots")
    games = score_catalog(opts.load_catalog().games)
    again = write_export(
        LocalStorage(tmp_path / "again"),
        games,
        snapshot_id=built.snapshot_id,
        created_at=read_manifest(store, built.snapshot_id).created_at,
        site_url=SITE,
        keep=2,
        prices_as_of=opts.load_catalog().prices_as_of,
        score_history=read_score_history(store),
        base_url=SITE,
    )
    kept = LocalStorage(tmp_path / "export")
    for name, body in again.bodies.items():
        if name not in {CHANGES_JSONL, CHANGES_PARQUET}:  # the second export diffs with the first
            assert kept.get(file_key(built.snapshot_id, name)) == body, name


def test_detail_records_kept_from_a_snapshot_must_cover_every_game() -> None:
    games = score_catalog(make_catalog(small_catalog()[:3]).games)
    kept = DetailRecords(games)
    first = detail_key(games[0].record.appid)
    objects = [StoredObject(first, b"{}"), StoredObject("index.json", b"[]")]
    assert list(kept.keep(objects)) == objects
    with pytest.raises(ValueError, match="no detail record"):
        kept.bodies()


def test_no_snapshot_yet_has_no_current_game_count(tmp_path: Path) -> None:
    assert current_games(LocalStorage(tmp_path)) is None


@pytest.mark.parametrize(
    ("as_of", "day", "sale"),
    [
        (None, None, None),  # today: read around the build, which may cross midnight
        (dt.date(2026, 6, 24), dt.date(2026, 6, 24), ("Summer Sale", "2026-06-25")),
        (dt.date(2026, 7, 1), dt.date(2026, 7, 1), ("Summer Sale", "2026-06-25")),
        (dt.date(2026, 12, 1), dt.date(2026, 12, 1), ("Winter Sale", "2026-12-17")),
    ],
    ids=["today-by-default", "eve-of-the-summer-sale", "during-it", "1-dec-2026"],
)
def test_a_build_records_its_day_and_forecasts_from_it(
    tmp_path: Path, as_of: dt.date | None, day: dt.date | None, sale: tuple[str, str] | None
) -> None:
    before = dt.datetime.now(dt.UTC).date()
    result = run_build(options(tmp_path, as_of=as_of))
    after = dt.datetime.now(dt.UTC).date()
    store = LocalStorage(tmp_path / "snapshots")
    manifest = read_manifest(store, result.snapshot_id)
    if (
        day is None
    ):  # issue 60: the day was read at collection, a build started at 23:59:59 ends tomorrow
        assert manifest.meta["as_of"] in {before.isoformat(), after.isoformat()}
        day = dt.date.fromisoformat(manifest.meta["as_of"])
    assert manifest.meta["as_of"] == day.isoformat()
    root = orjson.loads(read_body(store, manifest.entries[ROOT_KEY]))
    assert root["as_of"] == day.isoformat()
    forecasts = [
        orjson.loads(read_body(store, manifest.entries[detail_key(g.record.appid)]))["next_sale"]
        for g in score_catalog(options(tmp_path).load_catalog().games)
    ]
    named = {(f["name"], f["starts"]) for f in forecasts if f is not None}
    assert named and all(dt.date.fromisoformat(f["ends"]) >= day for f in forecasts if f)
    if sale is not None:
        assert named == {sale}


def test_pages_later_publishes_without_them_then_completes_the_same_snapshot(
    tmp_path: Path,
) -> None:
    # Issue 56: `make run` answers before the games' pages are written; they are then added
    # to the same snapshot, the very bytes a build writing them at once publishes.
    result = run_build(options(tmp_path, pages_later=True))
    store = LocalStorage(tmp_path / "snapshots")
    pending = read_manifest(store, result.snapshot_id)
    assert pending.meta["pages"] == "pending" and store.read_pointer() == result.snapshot_id
    assert not any(k.startswith(("site/game/", "site/badge/")) for k in pending.entries)
    assert detail_key(small_catalog()[0].appid) in pending.entries
    assert result.pending_pages is not None
    assert result.pending_pages() == 90  # a page and a badge for each of 45 games
    done = read_manifest(store, result.snapshot_id)
    assert "pages" not in done.meta and store.read_pointer() == result.snapshot_id
    assert {k: e for k, e in done.entries.items() if k in pending.entries} == pending.entries
    whole = run_build(options(tmp_path / "whole"))
    entries = read_manifest(LocalStorage(tmp_path / "whole" / "snapshots"), whole.snapshot_id)
    pages = {k: e for k, e in done.entries.items() if k.startswith("site/")}
    assert pages.keys() == {k for k in entries.entries if k.startswith("site/")}
    for key in pages.keys() & {f"site/game/{r.appid}.html" for r in small_catalog()[:45]}:
        assert pages[key].sha256 == entries.entries[key].sha256, key
    with pytest.raises(SnapshotError, match="not waiting for its pages"):
        result.pending_pages()


def test_a_whole_build_leaves_nothing_pending(tmp_path: Path) -> None:
    result = run_build(options(tmp_path))
    assert result.pending_pages is None
    assert (
        "pages" not in read_manifest(LocalStorage(tmp_path / "snapshots"), result.snapshot_id).meta
    )
