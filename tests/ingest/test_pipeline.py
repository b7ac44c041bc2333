"""The nightly pipeline end to end for a 2,000-game catalogue: ``ingest`` (batched, against
three replay servers, one per host) -> ``build`` -> ``alerts send`` (a real SMTP server).

What it pins: the requests each host receives (20 GetItems batches of 100 and one tag list,
10 ITAD lookup+lows pairs, appdetails only for the apps the batch flagged), a 429 honoured
after its ``Retry-After``, a 5xx mid-run that leaves the catalogue unwritten and a rerun that
resumes from the cache, and the prices and review counts that reach the published snapshot.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bangscore.cli.main import main
from bangscore.ingest.catalog import read_catalog, write_catalog
from bangscore.ingest.live.adapters import Endpoints
from bangscore.ingest.live.http import RateLimit
from bangscore.ingest.live.refresh import IngestConfig, run_ingest
from bangscore.mail.alerts import SnapshotDetails
from bangscore.storage import LocalStorage
from tests.ingest.store_replay import App, Faults, Hosts, start_hosts, stop_hosts
from tests.support import factories
from tests.support.smtp_server import SMTPServer as LiveSMTP

pytestmark = pytest.mark.slow

GAMES = 2_000
FIRST = 200_000
NOW = dt.datetime(2026, 11, 25, 4, 0, tzinfo=dt.UTC)
SALE_ENDS = int((NOW + dt.timedelta(days=5)).timestamp())
FREE, MISSING, NOT_A_GAME, PARTIAL, WATCHED = FREE_IDS = (
    FIRST + 7,
    FIRST + 13,
    FIRST + 14,
    FIRST + 15,
    FIRST + 20,
)
THROTTLED_BATCH = FIRST + 300  # the fourth batch of 100: a 429 with Retry-After: 1, once
FAILING_BATCH = FIRST + 1_200  # the thirteenth: 503 until the host recovers


def live_apps() -> dict[int, App]:
    """Every tenth app on sale at $7.49 (ends in 5 days), and one app of each odd case."""
    apps = {}
    for i in range(GAMES):
        appid = FIRST + i
        app = App(appid, review_count=1_000 + i, percent_positive=80 + i % 20)
        if i % 10 == 0:
            app.final_cents, app.discount_end, app.itad_low_cents = 749, SALE_ENDS, 499
        apps[appid] = app
    apps[FREE].is_free = True
    apps[MISSING].listed = False
    apps[NOT_A_GAME].item_type, apps[NOT_A_GAME].details_type = 4, "dlc"
    apps[PARTIAL].partial = True
    return apps


@pytest.fixture
def hosts() -> Iterator[Hosts]:
    faults = Faults(throttle_once={THROTTLED_BATCH}, unavailable={FAILING_BATCH})
    running = start_hosts(live_apps(), faults)
    yield running
    stop_hosts(running)


@pytest.fixture
def bangscore(
    tmp_path: Path, smtp_server: LiveSMTP, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., int]:
    """A runner of the command line on this test's state folder, mailing the SMTP server."""
    for name in list(os.environ):
        if name.startswith("BANGSCORE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("BANGSCORE_SMTP_URL", smtp_server.url)
    monkeypatch.setenv("BANGSCORE_MAIL_FROM", "BangScore <alerts@bangscore.test>")
    # The secret the served site signs its links with; `alerts send` refuses to invent one.
    monkeypatch.setenv("BANGSCORE_SESSION_SECRET", "pipeline-test-secret-" + "x" * 32)
    return lambda *args: main(["--state-dir", str(tmp_path / "state"), *args])


def config(hosts: Hosts, tmp_path: Path) -> IngestConfig:
    endpoints = Endpoints(
        store=hosts.store.base_url, steam_api=hosts.api.base_url, itad=hosts.itad.base_url
    )
    return IngestConfig(
        catalog_path=tmp_path / "catalog.json.gz",
        cache_dir=tmp_path / "cache",
        itad_api_key="test-key",
        endpoints=endpoints,
        rate_limits={},
        default_rate_limit=RateLimit(10_000, 1.0),
        retry_attempts=2,
        progress=False,
    )


def test_nightly_ingest_build_and_alerts_for_2000_games(
    hosts: Hosts, tmp_path: Path, bangscore: Callable[..., int], smtp_server: LiveSMTP
) -> None:
    previous = factories.make_catalog(
        [factories.make_record(appid=FIRST + i) for i in range(GAMES)], not_rated=()
    )
    write_catalog(previous, tmp_path / "catalog.json.gz")
    before = (tmp_path / "catalog.json.gz").read_bytes()
    slept: list[float] = []
    nightly = ["store_items", "storefront", "itad"]

    def ingest() -> object:
        return run_ingest(
            config(hosts, tmp_path), sources=nightly, today=NOW.date(), now=NOW, sleep=slept.append
        )

    # Night one: the thirteenth batch fails twice (two attempts); the run is partial.
    first = ingest()
    assert first.outcomes["store_items"].status == "failed"  # type: ignore[attr-defined]
    assert first.outcomes["storefront"].status == "skipped"  # type: ignore[attr-defined]
    assert not first.written  # type: ignore[attr-defined]
    assert (tmp_path / "catalog.json.gz").read_bytes() == before
    # 12 good batches, the 429 and its retry, the tag list, two 503s; ITAD all 10 pairs.
    assert hosts.counts() == {"api": 12 + 1 + 1 + 2, "store": 0, "itad": 20}
    assert 1.0 in slept  # the 429's Retry-After was honoured

    # The host recovers; the rerun resumes: only the 8 batches not yet fetched go out, then
    # appdetails (and, for the one still sold, its review summary and tags) for the apps the
    # batch flagged: the one it left out and the one that is no longer a game.
    hosts.faults.healed = True
    sent = hosts.counts()
    second = ingest()
    assert second.written, second.summary()  # type: ignore[attr-defined]
    after = hosts.counts()
    assert {host: after[host] - sent[host] for host in after} == {
        "api": 8 + 1,
        "store": 2 + 1,
        "itad": 0,
    }
    assert second.requests_by_host == {  # type: ignore[attr-defined]
        hosts.api.base_url.removeprefix("http://"): 9,
        hosts.store.base_url.removeprefix("http://"): 3,
    }
    assert second.not_rated == {"not_a_game": 1}  # type: ignore[attr-defined]
    catalog = read_catalog(tmp_path / "catalog.json.gz")
    assert len(catalog.games) == GAMES - 1
    assert [app.appid for app in catalog.not_rated] == [NOT_A_GAME]
    assert catalog.prices_as_of == NOW

    # Build and publish; the prices and review counts the snapshot serves are the live ones.
    snapshots = str(tmp_path / "snapshots")
    assert bangscore("build", "--catalog", str(tmp_path / "catalog.json.gz"),
                     "--out", snapshots) == 0  # fmt: skip
    # A watch names a game the published snapshot rates (`watch add` checks the appid there).
    assert bangscore("watch", "add", "--account", "player@example.com", "--appid",
                     str(WATCHED), "--below", "10", "--snapshot", snapshots) == 0  # fmt: skip
    details = SnapshotDetails(LocalStorage(Path(snapshots)))
    expected = {
        FIRST: (7.49, 19.99, 63, 1_000),  # on sale in cents, ending in 5 days
        FIRST + 1: (19.99, 19.99, 0, 1_001),
        FIRST + 1_999: (19.99, 19.99, 0, 2_999),  # past the failed batch: from the rerun
        FREE: (0.0, 0.0, 0, 1_007),
        MISSING: (19.99, 19.99, 0, 1_000),  # left out, delisted per game: previous values
        PARTIAL: (19.99, 19.99, 0, 1_000),  # answered without price or reviews: kept
    }
    for appid, (price, list_price, discount, reviews) in expected.items():
        record = details.get(appid)
        assert record is not None, appid
        got = (
            record["price_usd"],
            record["list_price_usd"],
            record["discount_percent"],
            record["review_count"],
        )
        assert got == (price, list_price, discount, reviews), appid
    assert details.get(NOT_A_GAME) is None
    sale = details.get(FIRST)
    assert sale is not None and sale["historical_low_usd"] == 4.99

    # Alerts: the watched game fell to $7.49 under a $10 watch; one mail, dated.
    assert bangscore("alerts", "send", "--snapshot", snapshots) == 0
    subjects = [m["Subject"] for m in smtp_server.inbox.messages]
    assert len(subjects) == 1 and "$7.49" in subjects[0], subjects
