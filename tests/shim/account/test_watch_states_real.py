"""The account page's state of each event watch over the real snapshot (issue 58's bug: a watch
"at or below its recent low" or "when its next sale starts" said "waiting" even when it held,
since the list item it read carries neither the recent low nor the list price). For each event,
a real game whose detail record holds it and one whose record does not, chosen by the record's
own fields; the rendered page says which holds today, as the nightly alert would decide, and
dates every price it shows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bangscore.mail.alerts import SnapshotDetails
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import LocalStorage
from bangscore.stores.watchstore import Condition, WatchRecord, new_watch_id
from tests.shim.account.test_watches import WatchApp, _state, watch_app_over

COME_TRUE = "come true: alert on the next nightly run"
Record = dict[str, Any]


def _paid(r: Record) -> bool:
    return (r.get("list_price_usd") or 0) > 0


def _low_holds(r: Record) -> bool:
    low = r.get("recent_low_usd")
    return _paid(r) and low is not None and round(r["price_usd"] * 100) <= round(low * 100)


def _low_not(r: Record) -> bool:
    low = r.get("recent_low_usd")
    return _paid(r) and low is not None and round(r["price_usd"] * 100) > round(low * 100)


def _sale_holds(r: Record) -> bool:
    return _paid(r) and r["discount_percent"] > 0 and r["price_usd"] < r["list_price_usd"]


def _sale_not(r: Record) -> bool:
    return _paid(r) and r["discount_percent"] == 0


# (id, event, what the record's own fields say, the state the page must show)
CASES: list[tuple[str, str, Callable[[Record], bool], str]] = [
    ("recent-low-holds", "recent_low", _low_holds, COME_TRUE),
    ("recent-low-not", "recent_low", _low_not, "waiting"),
    ("next-sale-holds", "next_sale", _sale_holds, COME_TRUE),
    ("next-sale-not", "next_sale", _sale_not, "waiting"),
]


@pytest.fixture(scope="module")
def picked(real_snapshot: tuple[LocalStorage, list[ScoredGame]]) -> dict[str, Record]:
    """Return, per case of :data:`CASES`, the detail record of the first real game (by appid)
    whose fields say so."""
    details = SnapshotDetails(real_snapshot[0])
    found: dict[str, Record] = {}
    for game in sorted(real_snapshot[1], key=lambda g: g.record.appid):
        record = details.get(game.record.appid)
        for case, _, says, _ in CASES:
            if record is not None and case not in found and says(record):
                found[case] = record
        if len(found) == len(CASES):
            break
    assert sorted(found) == sorted(case for case, *_ in CASES)
    return found


@pytest.fixture
def real_app(
    tmp_path: Path, real_snapshot: tuple[LocalStorage, list[ScoredGame]]
) -> Iterator[WatchApp]:
    with watch_app_over(tmp_path, real_snapshot[0], real_snapshot[1][0]) as app:
        yield app


def _day(iso: str) -> str:
    return dt.date.fromisoformat(iso[:10]).strftime("%-d %b %Y")


def _row(page: str, watch_id: str) -> str:
    return page.split(f'data-watch-id="{watch_id}"')[1].split("</tr>")[0]


@pytest.mark.parametrize(
    ("case", "event", "state"), [pytest.param(c, e, s, id=c) for c, e, _, s in CASES]
)
def test_an_event_watch_says_whether_it_holds_today(
    real_app: WatchApp, picked: dict[str, Record], case: str, event: str, state: str
) -> None:
    record = picked[case]
    watch = WatchRecord(new_watch_id(), "watcher@x.io", record["appid"], Condition(event=event), 1)  # type: ignore[arg-type]
    real_app.store.add_watch(watch)
    page = real_app.browser.open()
    assert _state(page, watch.watch_id) == state
    row = _row(page, watch.watch_id)
    assert f"${record['price_usd']:.2f}" in row
    assert f"(seen {_day(record['price_observed_at'])})" in row
    if event == "recent_low":
        assert f"recent low ${record['recent_low_usd']:.2f}" in row
        assert f"(first seen {_day(record['recent_low_at'])})" in row
    elif record["discount_percent"]:
        assert f"({record['discount_percent']}% off ${record['list_price_usd']:.2f})" in row
    else:
        assert "(the list price)" in row
