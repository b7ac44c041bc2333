"""The snapshot source against malformed snapshots (issue 55): each is refused whole at the
switch with one log line and the refusal counted, the old snapshot keeps serving, the next good
snapshot is switched to; an app started on one answers 503 (never 500) until a good one."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bangscore.build.pipeline import BuildOptions, run_build
from bangscore.errors import SnapshotError
from bangscore.shim.source import SnapshotSource
from bangscore.storage import LocalStorage, MemoryStorage
from tests.support import factories
from tests.support.factories import add_key, make_app
from tests.support.malformed import DAMAGED_KEY, EVERY_CASE, named_in_log, publish_copy

CASES = sorted(EVERY_CASE)
# Every kind of answer the round saw fail: the compact index (lists, lookup), the search
# index, the not-rated index and the website's pages.
PATHS = (
    "/api/v1/games",
    "/api/v1/games?genre=rpg&year_from=2011",
    "/api/v1/search?q=quest",
    "/api/v1/lookup?appids=10000,1",
    f"/api/v1/{DAMAGED_KEY.removesuffix('.json')}",
    "/games",
    "/search?q=quest",
)


@pytest.fixture
def published() -> MemoryStorage:
    """The small catalog published as ``s1``."""
    storage = MemoryStorage()
    factories.publish_catalog(factories.small_catalog(), storage, snapshot_id="s1")
    return storage


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Return the messages of the snapshot refusals logged so far."""
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("refused ")]


@pytest.mark.parametrize("case", CASES, ids=CASES)
def test_a_malformed_snapshot_is_refused_once_and_the_next_good_one_switched_to(
    published: MemoryStorage, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    source = SnapshotSource(published, cache_bytes=8 << 20, poll_seconds=0.01)
    assert source.refresh()
    EVERY_CASE[case](published, "s1", "s2")
    with caplog.at_level(logging.ERROR, "bangscore.snapshot"):
        with pytest.raises(SnapshotError):
            source.refresh()
        for _ in range(3):  # polls that follow neither log again nor switch
            try:
                assert not source.refresh()
            except SnapshotError:
                assert case.startswith("pointer-")  # the pointer is read again: cheap
    assert source.current is not None and source.current.id == "s1"
    assert source.refusals == 1
    (line,) = refusals(caplog)
    assert named_in_log(case, "s2") in line
    publish_copy(published, "s1", "s3")
    assert source.refresh()
    assert source.current.id == "s3"


def test_the_follower_outlives_every_malformed_snapshot(
    published: MemoryStorage, caplog: pytest.LogCaptureFixture
) -> None:
    source = SnapshotSource(published, cache_bytes=8 << 20, poll_seconds=0.01)
    assert source.refresh()

    async def main() -> list[str]:
        follower = asyncio.create_task(source.follow())
        served = []
        for n, case in enumerate(CASES):
            EVERY_CASE[case](published, "s1", f"bad{n}")
            await wait_until(lambda n=n: source.refusals == n + 1)
            publish_copy(published, "s1", f"good{n}")
            await wait_until(
                lambda n=n: source.current is not None and source.current.id == f"good{n}"
            )
            served.append(source.current.id if source.current else "")
        assert not follower.done()
        follower.cancel()
        return served

    with caplog.at_level(logging.ERROR, "bangscore.snapshot"):
        served = asyncio.run(main())
    assert served == [f"good{n}" for n in range(len(CASES))]
    assert len(refusals(caplog)) == len(CASES)


async def wait_until(condition: object, seconds: float = 10.0) -> None:
    """Await until ``condition()`` holds (polled every 10 ms); fail after ``seconds``."""
    assert callable(condition)
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


@pytest.mark.parametrize("case", CASES, ids=CASES)
def test_an_app_started_on_a_malformed_snapshot_answers_503_until_a_good_one(
    published: MemoryStorage, case: str, tmp_path: Path
) -> None:
    EVERY_CASE[case](published, "s1", "s2")
    app, store, _ = make_app(published, tmp_path)
    auth = {"Authorization": f"Bearer {add_key(store, limit=10_000)}"}
    source: SnapshotSource = app.state.source
    with TestClient(app) as client:
        # As served before its indexes are built (a lazy start), then once warmed.
        before = {p: client.get(p, headers=auth).status_code for p in PATHS}
        asyncio.run(app.state.serving.warm())
        after = {p: client.get(p, headers=auth).status_code for p in PATHS}
        assert source.current is None and source.refusals == 1
        publish_copy(published, "s1", "s3")
        assert source.refresh()
        good = {p: client.get(p, headers=auth).status_code for p in PATHS}
    assert 500 not in before.values()
    assert set(after.values()) == {503}
    assert set(good.values()) == {200}


def test_a_snapshot_whose_pages_come_later_answers_503_for_them_then_serves_them(
    tmp_path: Path,
) -> None:
    # Issue 56: `make run` serves the API before the games' pages are written; a page or
    # badge to come says so (503, Retry-After), and the source reloads the snapshot, under
    # the same id, once its manifest holds them.
    catalog = factories.make_catalog(factories.small_catalog())
    result = run_build(
        BuildOptions(
            load_catalog=lambda: catalog,
            out=str(tmp_path / "snapshots"),
            site_url=factories.SITE,
            base_url=factories.SITE,
            pages_later=True,
        )
    )
    app, store, _ = make_app(LocalStorage(tmp_path / "snapshots"), tmp_path)
    auth = {"Authorization": f"Bearer {add_key(store, limit=10_000)}"}
    source: SnapshotSource = app.state.source
    appid = catalog.games[0].appid
    paths = (f"/game/{appid}", f"/badge/{appid}.svg")
    with TestClient(app) as client:
        pending = [client.get(p) for p in paths]
        unknown = client.get("/badge/999999999.svg")
        api = client.get(f"/api/v1/games/{appid}", headers=auth)
        assert source.current is not None and source.current.pages_pending
        assert not source.refresh()  # the manifest has not changed: nothing to load
        assert result.pending_pages is not None and result.pending_pages() > 0
        assert source.refresh()
        assert source.current.id == result.snapshot_id and not source.current.pages_pending
        done = [client.get(p) for p in paths]
    assert [(r.status_code, r.headers["retry-after"]) for r in pending] == [(503, "10")] * 2
    assert "This page is still being written" in pending[0].text
    assert unknown.status_code == 404 and api.status_code == 200
    assert [r.status_code for r in done] == [200, 200]
    assert done[0].headers["content-type"].startswith("text/html")
    assert f"/game/{appid}/" in str(done[0].url)
