"""One ``alerts send`` run over 10,000 watches: wall time, emails sent, on this machine.

A synthetic catalogue of 2,000 games (prices $1-$60) is scored and published into a folder;
10,000 watches of 5,000 confirmed addresses (a price condition each, about half of them met)
go into a SQLite watch store; a real SMTP server (aiosmtpd) on loopback receives the mail.
The first run sends every due alert (the day many prices drop); the second finds nothing new
(the usual night). Not part of ``make bench``'s RESULTS.md; run it by hand:

    .venv/bin/python -m bench.alerts [--watches 10000] [--games 2000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

from bangscore.build.publish import publish
from bangscore.build.snapshot import snapshot_objects
from bangscore.mail.alerts import SnapshotDetails, send_alerts
from bangscore.mail.links import WatchLinks
from bangscore.mail.smtp import Mailer, SMTPServer
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import GameRecord, Sources
from bangscore.storage import LocalStorage
from bangscore.stores import open_watch_store
from bangscore.stores.watchstore import Condition, WatchRecord


class Counting:
    """An aiosmtpd handler that only counts the messages it accepts."""

    def __init__(self) -> None:
        self.received = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.received += 1
        return "250 OK"


def games(n: int, rng: random.Random) -> list[GameRecord]:
    """Given a count, return that many plausible records with prices from $1 to $60."""
    out = []
    for i in range(n):
        price = round(rng.uniform(1, 60), 2)
        out.append(
            GameRecord(
                appid=10_000 + i,
                name=f"Game {i}",
                price_usd=price,
                list_price_usd=price,
                discount_percent=0,
                review_score=rng.uniform(0.6, 0.98),
                review_count=rng.randint(500, 100_000),
                release_year=rng.randint(2005, 2025),
                main_story_hours=rng.uniform(2, 60),
                length_source="hltb",
                sources=Sources(storefront=dt.date(2026, 7, 1), play_length=dt.date(2025, 12, 1)),
            )
        )
    return out


def main() -> None:
    """Build, fill the store, and time two runs; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--watches", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=2_000)
    args = parser.parse_args()
    rng = random.Random(20)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        storage = LocalStorage(folder / "snapshots")
        scored = score_catalog(games(args.games, rng))
        objects = snapshot_objects(scored, site_url="http://b.test", base_url="http://b.test")
        publish(storage, "s1", objects, created_at=dt.datetime.now(dt.UTC), meta={}, keep=7)
        prices = {g.record.appid: g.record.price_usd for g in scored}
        store = open_watch_store(f"sqlite:///{folder / 'bangscore.sqlite3'}")
        appids = sorted(prices)
        for n in range(args.watches):
            appid = rng.choice(appids)
            # About half the conditions hold: the watched price is around today's.
            below = round(prices[appid] * rng.uniform(0.5, 1.5), 2)
            email = f"player{n // 2}@example.com"
            store.add_watch(WatchRecord(f"w_{n}", email, appid, Condition(below_usd=below), n))
            store.confirm_address(email, n)
        handler = Counting()
        with socket.socket() as probe:  # a free loopback port
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        controller = Controller(handler, hostname="127.0.0.1", port=port)
        controller.start()
        server = SMTPServer("127.0.0.1", port)
        links = WatchLinks("bench-secret", "http://b.test")
        try:
            for label in ("first run (every due alert)", "second run (nothing new)"):
                started = time.perf_counter()
                run = send_alerts(
                    store,
                    SnapshotDetails(storage),
                    lambda: Mailer(server),
                    links=links,
                    from_address="alerts@b.test",
                    now=time.time,
                )
                seconds = time.perf_counter() - started
                print(
                    f"{label}: {args.watches} watches, {len(run.sent)} emails sent, "
                    f"{seconds:.2f} s ({handler.received} received so far)"
                )
        finally:
            controller.stop()
            store.close()


if __name__ == "__main__":
    main()
