"""The abuse report (docs/API.md#terms-of-use, term 4): accounts whose keys together exceed one
key's limit, from
pure views and through ``bangscore usage report`` on SQLite and on Redis."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bangscore.cli.usage import AccountUsage, abuse_report, format_report
from bangscore.stores import Stores
from bangscore.stores.keystore import KeyRecord, KeyView
from tests.support.live import REPO


def view(
    account: str, key_id: str, today: int, limit: int = 1000, state: str = "active"
) -> KeyView:
    plan = "free" if limit == 1000 else "pro" if limit == 50_000 else "bulk"
    record = KeyRecord(key_id, key_id * 8, account, plan, limit, state, 0)  # type: ignore[arg-type]
    return KeyView(record, None, today)


@pytest.mark.parametrize(
    ("views", "expected"),
    [
        pytest.param([], [], id="no-keys"),
        pytest.param([view("a@x.io", "k1", 1000)], [], id="one-key-at-its-limit"),
        pytest.param(
            [view("a@x.io", "k1", 600), view("a@x.io", "k2", 400)], [], id="two-keys-at-the-limit"
        ),
        pytest.param(
            [view("a@x.io", "k1", 600), view("a@x.io", "k2", 401)],
            [AccountUsage("a@x.io", (("k1", 600), ("k2", 401)), 1001, 1000)],
            id="two-keys-one-over",
        ),
        pytest.param(
            [view("a@x.io", "k1", 999), view("a@x.io", "k2", 0), view("b@x.io", "k3", 1000)],
            [],
            id="unused-keys-ignored",
        ),
        pytest.param(
            [view("a@x.io", "k1", 900, state="revoked"), view("a@x.io", "k2", 900)],
            [AccountUsage("a@x.io", (("k1", 900), ("k2", 900)), 1800, 1000)],
            id="revoked-keys-count",
        ),
        pytest.param(
            [view("p@x.io", "k1", 40_000, limit=50_000), view("p@x.io", "k2", 1000)],
            [],
            id="held-to-the-largest-limit",
        ),
        pytest.param(
            [
                view("a@x.io", "k1", 700),
                view("a@x.io", "k2", 700),
                view("b@x.io", "k3", 1000),
                view("b@x.io", "k4", 1000),
                view("b@x.io", "k5", 1000),
            ],
            [
                AccountUsage("b@x.io", (("k3", 1000), ("k4", 1000), ("k5", 1000)), 3000, 1000),
                AccountUsage("a@x.io", (("k1", 700), ("k2", 700)), 1400, 1000),
            ],
            id="largest-excess-first",
        ),
    ],
)
def test_abuse_report(views: list[KeyView], expected: list[AccountUsage]) -> None:
    assert abuse_report(views) == expected


def test_format_report_lists_each_account_with_its_key_counts() -> None:
    report = [AccountUsage("a@x.io", (("k1", 600), ("k2", 401)), 1001, 1000)]
    text = format_report(report, "2026-11-20")
    assert text.splitlines()[0] == "2026-11-20: 1 account(s) over one key's limit with several keys"
    assert text.splitlines()[2].split() == ["a@x.io", "2", "1001", "1000", "1", "k1=600,", "k2=401"]
    assert "no account" in format_report([], "2026-11-20")


@pytest.mark.redis
@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_usage_report_command_reads_the_store_given_by_store(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        request.getfixturevalue("redis_url")
        if backend == "redis"
        else f"sqlite:///{tmp_path}/keys.sqlite3"
    )
    store_factory: Callable[[str], Stores] = request.getfixturevalue("store_factory")
    store = store_factory(url)
    # Yesterday, not a fixed date: a key's count is kept 40 days after its day, so a fixed
    # 2026-11-20 vanished from Redis from 1 Jan 2027 on (found under `make test-clock`).
    day = dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)
    for key_id, account, count in [
        ("AAAA0001", "abuser@x.io", 800),
        ("AAAA0002", "abuser@x.io", 300),
        ("AAAA0003", "fine@x.io", 900),
    ]:
        record = KeyRecord(key_id, key_id * 8, account, "free", 1000, "active", 1)
        store.keys.add_key(record)
        store.counter.add(record.subject, day, count, 1_700_000_000)
    store.close()

    def report(*extra: str) -> str:
        args = [sys.executable, "-m", "bangscore", "--state-dir", str(tmp_path), "--store", url]
        done = subprocess.run(
            [*args, "usage", "report", *extra], cwd=REPO, capture_output=True, text=True, check=True
        )
        return done.stdout

    lines = report("--date", day.isoformat()).splitlines()
    assert lines[0].startswith(f"{day.isoformat()}: 1 account(s)")
    assert lines[2].split()[:5] == ["abuser@x.io", "2", "1100", "1000", "100"]
    assert "no account" in report("--date", (day + dt.timedelta(days=1)).isoformat())
