"""Score histories that grow build by build and a rebuild that adds nothing
(docs/API.md#detail-record ``score_history``)."""

from __future__ import annotations

import datetime as dt

import orjson
import pytest

from bangscore.build.publish import publish
from bangscore.build.score_history import (
    MAX_SCORE_HISTORY,
    SCORE_HISTORY_KEY,
    ScorePoint,
    decode,
    encode,
    extend,
    read_score_history,
)
from bangscore.build.snapshot import snapshot_objects
from bangscore.contract.objects import detail_key, game_page_key
from bangscore.errors import SnapshotError
from bangscore.manifest import object_key, read_body, read_manifest
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import GameRecord
from bangscore.storage import MemoryStorage, StoredObject
from tests.support import factories

D1, D2, D3 = dt.date(2026, 7, 22), dt.date(2026, 7, 23), dt.date(2026, 7, 24)


@pytest.mark.parametrize(
    ("previous", "now", "day", "expected"),
    [
        pytest.param((), (80, 9.99), D2, [(D2, 80, 9.99)], id="first-point"),
        pytest.param(
            [(D1, 80, 9.99)], (80, 9.99), D2, [(D1, 80, 9.99)], id="unchanged-adds-nothing"
        ),
        pytest.param(
            [(D1, 80, 9.99)],
            (84, 4.99),
            D2,
            [(D1, 80, 9.99), (D2, 84, 4.99)],
            id="price-and-score-changed",
        ),
        pytest.param(
            [(D1, 80, 9.99), (D2, 84, 4.99)],
            (82, 4.99),
            D2,
            [(D1, 80, 9.99), (D2, 82, 4.99)],
            id="same-day-replaced",
        ),
        pytest.param(
            [(D1, 80, 9.99), (D3, 84, 4.99)],
            (81, 9.99),
            D2,
            [(D1, 80, 9.99), (D2, 81, 9.99)],
            id="later-points-dropped-on-rollback",
        ),
    ],
)
def test_extend(
    previous: list[tuple[dt.date, int, float]],
    now: tuple[int, float],
    day: dt.date,
    expected: list[tuple[dt.date, int, float]],
) -> None:
    history = {620: tuple(ScorePoint(*p) for p in previous)}
    assert extend(history, [(620, *now)], day) == {620: tuple(ScorePoint(*p) for p in expected)}


def test_extend_keeps_the_newest_60_and_forgets_games_no_longer_scored() -> None:
    days = [D1 - dt.timedelta(days=n) for n in range(70, 0, -1)]
    long = {
        1: tuple(ScorePoint(d, n % 2, 1.0) for n, d in enumerate(days)),
        2: (ScorePoint(D1, 5, 1.0),),
    }
    out = extend(long, [(1, 50, 1.0)], D2)
    assert len(out[1]) == MAX_SCORE_HISTORY
    assert out[1][-1] == ScorePoint(D2, 50, 1.0) and out[1][0].date == days[11]
    assert 2 not in out


def test_encode_decode_round_trip_and_bad_body() -> None:
    history = {620: (ScorePoint(D1, 80, 9.99), ScorePoint(D2, 84, 4.99))}
    assert decode(encode(history)) == history
    with pytest.raises(ValueError, match="not a score history"):
        decode(b"[1, 2]")


def build(store: MemoryStorage, records: list[GameRecord], snapshot: str, day: dt.date) -> None:
    """Build and publish ``records`` as the real build does: reading the current histories."""
    created = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    objects = snapshot_objects(
        score_catalog(records),
        site_url=factories.SITE,
        base_url=factories.SITE,
        prices_as_of=dt.datetime(day.year, day.month, day.day, 14, tzinfo=dt.UTC),
        created_at=created,
        score_history=read_score_history(store),
    )
    publish(store, snapshot, objects, created_at=created, meta={}, keep=7)


def detail(store: MemoryStorage, appid: int) -> dict[str, object]:
    pointer = store.read_pointer()
    assert pointer is not None
    entry = read_manifest(store, pointer).entries[detail_key(appid)]
    record: dict[str, object] = orjson.loads(read_body(store, entry))
    return record


def page(store: MemoryStorage, appid: int) -> str:
    pointer = store.read_pointer()
    assert pointer is not None
    entry = read_manifest(store, pointer).entries[game_page_key(appid)]
    return read_body(store, entry).decode()


def test_nightly_builds_grow_the_history_and_a_rebuild_adds_nothing() -> None:
    store = MemoryStorage()
    assert read_score_history(store) == {}
    # $59.99 is more than its 12 hours are worth (docked); $4.99 is less (its ceiling).
    full = factories.make_record(appid=620, price_usd=59.99, list_price_usd=59.99)
    sale = factories.make_record(
        appid=620, price_usd=4.99, list_price_usd=59.99, discount_percent=92
    )
    others = factories.small_catalog()[:5]
    build(store, [full, *others], "s1", D1)
    first = detail(store, 620)["score_history"]
    assert isinstance(first, list) and len(first) == 1
    assert first[0]["date"] == D1.isoformat() and first[0]["price_usd"] == 59.99
    build(store, [full, *others], "s2", D1)  # the same catalogue again
    assert detail(store, 620)["score_history"] == first
    build(store, [sale, *others], "s3", D2)
    grown = detail(store, 620)["score_history"]
    assert isinstance(grown, list) and [p["date"] for p in grown] == [
        D1.isoformat(),
        D2.isoformat(),
    ]
    assert grown[1]["price_usd"] == 4.99 and grown[1]["bang_score"] > grown[0]["bang_score"]
    # Drawn on the game page's history chart: one diamond per point, said in words.
    html = page(store, 620)
    assert html.count('class="score-mark"') == 2 * 2  # the wide and the phone chart
    assert f"BangScore {grown[0]['bang_score']} on 22 Jul 2026" in html


def test_a_corrupt_history_object_stops_the_build() -> None:
    store = MemoryStorage()
    build(store, factories.small_catalog()[:3], "s1", D1)
    pointer = store.read_pointer()
    assert pointer is not None
    entry = read_manifest(store, pointer).entries[SCORE_HISTORY_KEY]
    store.put_many([StoredObject(object_key(entry.stored[0]), b"{}", "application/json")])
    with pytest.raises(SnapshotError, match="corrupt"):
        read_score_history(store)
