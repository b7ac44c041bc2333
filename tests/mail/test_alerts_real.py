"""The event watches over two real builds (issue 58: "the new conditions fire on the as-of pair
of builds"): the bundled catalogue built as of 24 Jun 2026, then as of today, into one store
(the session's ``as_of_pair``, tests/support/real_builds.py, which tests/build/test_push_real.py
reads too). Watches "at or below its recent low" and "when its next sale starts" on every game
that comes true between the two and on a sample of the rest; ``send_alerts`` over the first
snapshot, then over the second, mails a real SMTP server (aiosmtpd). The second run mails
exactly the watches whose condition holds in the second snapshot's detail record and did not in
the first, once each; and what fired is held to the raw 2026 price dumps (data/raw), not only
to our catalogue: a game newly on sale is discounted in its newest dump row at the price we
show, a game newly at its recent low is no dearer than any price the dumps saw of it."""

from __future__ import annotations

import time
from email.message import EmailMessage
from typing import Any

import pytest

from bangscore.mail.alerts import SnapshotDetails, send_alerts
from bangscore.mail.links import WatchLinks
from bangscore.mail.smtp import Mailer, SMTPServer
from bangscore.manifest import read_manifest_view
from bangscore.stores import open_watch_store
from bangscore.stores.watchstore import Condition, WatchRecord
from tests.support.raw_prices import raw_newest, raw_prices
from tests.support.real_builds import Details
from tests.support.smtp_server import SMTPServer as LiveSMTP

pytestmark = pytest.mark.slow
DUMP = "steam_prices_usd_2026-07"  # the 2026 dumps' layer name in a record's provenance
LOW, SALE = Condition(event="recent_low"), Condition(event="next_sale")
SAMPLE_EVERY = 50  # of the games that do not come true, every 50th is watched too


def _cents(value: Any) -> int:
    return round(float(value) * 100)


def _source(record: dict[str, Any]) -> str | None:
    source = (record.get("provenance") or {}).get("price_usd") or {}
    return source.get("source") if isinstance(source, dict) else None


def test_event_watches_fire_on_the_as_of_pair_as_the_raw_dumps_say(
    as_of_pair: Any,
    pair_details: tuple[Details, Details],
    smtp_server: LiveSMTP,
    tmp_path: Any,
) -> None:
    storage, eve, today = as_of_pair
    before, after = pair_details
    both = sorted(before.keys() & after.keys())
    comes_true = {
        (appid, name): cond.met(after[appid]) and not cond.met(before[appid])
        for appid in both
        for name, cond in (("recent_low", LOW), ("next_sale", SALE))
    }
    true_ones = {key for key, value in comes_true.items() if value}
    others = [key for key, value in comes_true.items() if not value][::SAMPLE_EVERY]
    watched = sorted(true_ones) + others
    store = open_watch_store(f"sqlite:///{tmp_path / 'bangscore.sqlite3'}")
    ids: dict[str, tuple[int, str]] = {}
    for n, (appid, name) in enumerate(watched):
        email = f"player{n // 90}@example.com"  # at most 100 watches an address
        watch = WatchRecord(f"w_{n}", email, appid, Condition(event=name), 1)  # type: ignore[arg-type]
        store.add_watch(watch)
        store.confirm_address(email, 1)
        ids[watch.watch_id] = (appid, name)
    server = SMTPServer.from_url(smtp_server.url)
    links = WatchLinks("secret", "http://site.test")

    def run(snapshot: str) -> list[str]:
        details = SnapshotDetails(storage)
        details.snapshot_id, details.manifest = snapshot, read_manifest_view(storage, snapshot)
        result = send_alerts(
            store, details, lambda: Mailer(server), links=links,
            from_address="alerts@bangscore.test", now=time.time,
        )  # fmt: skip
        assert result.error is None and not result.skipped
        return result.sent

    first = run(eve)
    assert {ids[w] for w in first} == {k for k in watched if _holds(before, k)}
    mailed_before = len(smtp_server.inbox.raw)
    second = run(today)
    store.close()
    fired = {ids[w] for w in second}
    assert fired == true_ones and len(second) == len(fired)  # one mail a watch
    assert len(smtp_server.inbox.raw) - mailed_before == len(second)
    # Both kinds come true between the two days, and a sample that does not is watched too.
    assert sum(1 for _, n in fired if n == "next_sale") >= 50
    assert sum(1 for _, n in fired if n == "recent_low") >= 50
    assert len(others) >= 300
    _mails_name_their_event(smtp_server.inbox.messages[mailed_before:], ids)
    _held_to_the_raw_dumps(fired, [k for k in watched if k not in fired], after)


def _holds(records: dict[int, dict[str, Any]], key: tuple[int, str]) -> bool:
    appid, name = key
    return (LOW if name == "recent_low" else SALE).met(records[appid])


def _mails_name_their_event(messages: list[EmailMessage], ids: dict[str, tuple[int, str]]) -> None:
    """Each mail of the second run (its watch read from its Message-ID,
    ``<alert.<watch id>.<snapshot>@...>``) names its watch's event in the subject."""
    words = {"next_sale": " is on sale: $", "recent_low": ", at or below its recent low of $"}
    for message in messages:
        watch_id = str(message["Message-ID"]).split(".")[1]
        _, name = ids[watch_id]
        assert words[name] in str(message["Subject"]), message["Subject"]


def _held_to_the_raw_dumps(
    fired: set[tuple[int, str]],
    quiet: list[tuple[int, str]],
    after: dict[int, dict[str, Any]],
) -> None:
    """Every fired watch whose price came from the 2026 dumps agrees with their newest row
    (and a recent low with every row); every quiet next-sale watch of a game not on sale
    whose newest row is a discount shows that sale as ended (``ended_sale_usd``: seen too
    long before the prices' date to count)."""
    newest, seen = raw_newest(), raw_prices()
    checked = {"next_sale": 0, "recent_low": 0, "ended": 0}
    for appid, name in fired:
        record = after[appid]
        if _source(record) != DUMP:
            continue
        _, final, initial = newest[appid]
        assert final == _cents(record["price_usd"]), appid
        if name == "next_sale":
            assert final < initial, appid
        else:
            assert final <= min(cents for _, cents in seen[appid]), appid
        checked[name] += 1
    for appid, name in quiet:
        record = after[appid]
        if name != "next_sale" or SALE.met(record) or _source(record) != DUMP:
            continue
        if appid not in newest:
            continue
        _, final, initial = newest[appid]
        if final < initial:
            assert record["ended_sale_usd"] is not None, appid
            assert _cents(record["ended_sale_usd"]) == final, appid
            checked["ended"] += 1
    assert checked["next_sale"] >= 50 and checked["recent_low"] >= 50, checked
    assert checked["ended"] >= 10, checked
