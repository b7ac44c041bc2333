"""Shared fixtures: factories for records, published snapshots and app clients."""

from __future__ import annotations

import atexit
import gc
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings
from starlette.testclient import TestClient

from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import Catalog
from bangscore.storage import LocalStorage, ObjectStorage
from bangscore.stores import Stores
from tests.support import factories
from tests.support.thorough import is_thorough
from tests.support.untraced import outside_coverage, untraced_parts

# The real servers' fixtures (Redis, SeaweedFS, SMTP) live with their helpers in tests/support.
pytest_plugins = [
    "tests.support.real_site",
    "tests.support.redis_server",
    "tests.support.servers",
    "tests.support.smtp_server",
]

if TYPE_CHECKING:
    from bangscore.contract.export import ExportManifest
    from bangscore.ingest.catalog import IngestReport

# Property tests check values, not speed (speed lives in `make bench`): no per-example deadline,
# whose default 200 ms a loaded machine under coverage can pass (a composed-list property failed
# once at a load of 13 and passed alone, its saved example replayed).
settings.register_profile("bangscore", deadline=None)
settings.load_profile("bangscore")
# `make check` (the fast loop) runs them at a tenth of the examples (`--hypothesis-profile
# check`): their 43 tests took 1.7 s of its 30 s of CPU at 25 (2 Dec 2026, load 10); `make test`
# runs them at 100.
settings.register_profile("check", deadline=None, max_examples=10)

# The cyclic collector runs every 10,000 net allocations, not CPython's 700: a test session
# allocates far more than it keeps, and each collection it triggered, the full ones walking the
# whole session's heap, cost 3.5 s of the fast loop's 31 s in one process (1.7 s at 10,000;
# 3,460 collections to 184). A full collection runs after 100 of the middle generation's, not
# 10: the real catalogue's workers made 15-30 of them, up to 2 s each, and tests/build with
# tests/contract in one process spent 17.5-18.0 s of 76-79 s in collections, 6.1-6.4 s of 61-63 s
# at 100 (its peak RSS 3.53 -> 3.61 GB; 3 Dec 2026 08:10-08:20 UTC, load 0.9-1.3). Tests that
# need garbage gone call gc.collect().
gc.set_threshold(10_000, 10, 100)

# At exit (after pytest's last collections, which look for unraisable exceptions) every object
# alive is frozen out of the collector, so the interpreter's shutdown collections skip the
# session's heap: they took each pytest-xdist worker about a second, which `make check` waited
# for (the controller ends after its workers exit).
atexit.register(gc.freeze)

# Markers implied by a fixture, so that `make check` can leave these tests out by marker and a
# new test that uses one of these fixtures is marked without having to remember it. Tests that
# start a replay server themselves (``start_replay``) carry ``@pytest.mark.server`` in place.
MARKS_BY_FIXTURE = {
    # the real catalog: its dumps joined, scored and published (seconds each)
    "real_snapshot": "slow",
    "bundled": "slow",
    "real_cache": "slow",
    "real_site": "slow",
    "real_eve": "slow",
    "real_export": "slow",
    "as_of_pair": "slow",
    # real servers: shim processes, redis-server, SeaweedFS, replay HTTP servers
    "shared_server": "server",
    "server_factory": "server",
    "shim_factory": "server",
    "redis_server": "server",
    "redis_url": "server",
    "redis_factory": "server",
    "seaweed": "server",
    "seaweed_factory": "server",
    "bucket": "server",
    "aws_env": "server",
    "replay": "server",
    "smtp_server": "server",
    "smtputf8_server": "server",
    "silent_smtp": "server",
    "trickling_smtp": "server",
}


# The step of `make test`'s warm-up (tests/support/real_catalogue.py, WARM_STEPS) that fills
# what each fixture reads; the modules are ordered by the last step they need.
WARM_STEP_BY_FIXTURE = {
    "real_cache": "catalogue",
    "bundled": "catalogue",
    "real_snapshot": "snapshot",
    "real_site": "snapshot",
    "real_eve": "eve",
    "real_export": "export",
    "as_of_pair": "pair",
    "pair_details": "pair",
}


# The test modules of the other shards (``--shard``), found once per session at configure.
_OTHER_SHARDS: set[Path] | None = None


@pytest.hookimpl(tryfirst=True)
def pytest_addoption(parser: pytest.Parser) -> None:
    """``--clock=2026-11-30T00:30:00Z``: run the session from that instant (issue 60)."""
    parser.addoption(
        "--clock",
        default=None,
        help="start this process's wall clock at an RFC 3339 instant and let it tick "
        "(time-machine); `make test-clock` runs the suite at three instants",
    )
    parser.addoption(
        "--shard",
        default=None,
        help="i/n: collect only the i-th of n parts of the test modules, balanced by their "
        "recorded CPU time (tests/support/shards.py); `make check` runs its parts side by side",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Given ``--clock``, move this process's wall clock there for the session: time.time,
    datetime.now and date.today read from that instant on, ticking; monotonic clocks and
    other processes (servers the tests start, Redis) keep the real time. Given ``--shard``,
    find the other shards' modules. Raises pytest.UsageError for an instant or a shard that
    does not parse."""
    global _OTHER_SHARDS
    if (spelling := config.getoption("--shard")) is not None:
        from tests.support import shards

        try:
            _OTHER_SHARDS = shards.others(spelling)
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from exc
    instant = config.getoption("--clock")
    if instant is None:
        return
    import datetime as dt

    import time_machine

    try:
        start = dt.datetime.fromisoformat(instant)
    except ValueError as exc:
        raise pytest.UsageError(f"--clock={instant!r} is not an RFC 3339 instant") from exc
    if start.tzinfo is None:
        raise pytest.UsageError(f"--clock={instant!r} needs a UTC offset, e.g. Z")
    traveller = time_machine.travel(start, tick=True)
    traveller.start()
    config.add_cleanup(traveller.stop)


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """With ``--shard=i/n``, leave uncollected (never imported) the test modules of the other
    shards (tests/support/shards.py); otherwise leave the choice to pytest."""
    return True if _OTHER_SHARDS and collection_path in _OTHER_SHARDS else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Add the markers that :data:`MARKS_BY_FIXTURE` implies to each collected test, and
    ``thorough`` to those tests/support/thorough.py lists; put the modules reading the real
    catalogue last, in the order of the warm-up's steps they need (:data:`WARM_STEP_BY_FIXTURE`)."""
    # The modules that read the real catalogue run last, each after the modules whose cache
    # entries `make test`'s warm-up (`python -m tests.support.real_catalogue`, beside pytest)
    # fills before its own: by the time a worker reaches one, the warm-up has filled what it
    # reads, so no worker waits on a lock while other tests could run. pytest-xdist hands
    # the modules out in this order (`--dist loadscope --no-loadscope-reorder` in `make test`:
    # a module runs whole on one worker, so its module-scoped fixtures are built once).
    from tests.support.real_catalogue import WARM_STEPS

    needs: dict[Path, int] = {}
    for item in items:
        if is_thorough(item.nodeid):
            item.add_marker(pytest.mark.thorough)
        used = set(getattr(item, "fixturenames", ()))
        for fixture, marker in MARKS_BY_FIXTURE.items():
            if fixture in used:
                item.add_marker(marker)
        steps = [WARM_STEPS.index(s) + 1 for f, s in WARM_STEP_BY_FIXTURE.items() if f in used]
        needs[item.path] = max(needs.get(item.path, 0), *steps, 0)
    items.sort(key=lambda item: needs[item.path])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Run the tests tests/support/untraced.py lists outside coverage's tracer (the parts it
    names: the test's process, the processes it starts), setup and teardown included; with
    ``--cov-context`` (measuring what each test runs, as that list was chosen) every test is
    traced."""
    parts = untraced_parts(item.nodeid)
    if not parts or item.config.getoption("cov_context", None):
        return (yield)
    with outside_coverage(parts):
        return (yield)


@pytest.fixture
def thawed() -> Iterator[None]:
    """The collector's permanent generation emptied for a test of freezing, which counts it
    (a process that read the real catalogue froze it: tests/support/real_catalogue.py), and
    filled again after."""
    gc.unfreeze()
    yield
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="module", autouse=True)
def _browser_tools(request: pytest.FixtureRequest) -> None:
    """Fail (never skip) a ``browser`` module at once when chromium or axe-core is missing
    (`make deps` installs them): module-scoped and autouse, it runs before the module's own
    fixtures start a server. (`make test` checks every tool before pytest starts.)"""
    from tests.support.browser import missing_tools

    if request.node.get_closest_marker("browser") and (why := missing_tools()) is not None:
        pytest.fail(why)


@pytest.fixture(scope="session")
def small_snapshot() -> tuple[ObjectStorage, list[ScoredGame]]:
    """The small 45-game catalog, published once per session into memory."""
    return factories.publish_catalog(factories.small_catalog())


@pytest.fixture
def client_factory(
    tmp_path: Path,
) -> Iterator[Callable[..., tuple[TestClient, Stores]]]:
    """Return a factory: given a store (and options), a started TestClient and its key store."""
    clients: list[TestClient] = []

    def make(storage: ObjectStorage, **options: object) -> tuple[TestClient, Stores]:
        app, store, _ = factories.make_app(storage, tmp_path, **options)  # type: ignore[arg-type]
        client = TestClient(app, base_url=factories.SITE)
        client.__enter__()
        clients.append(client)
        return client, store

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture(scope="session")
def real_cache(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder keeping the real catalogue and its published snapshot between runs
    (pytest's cache; a temporary folder when the cache plugin is off)."""
    # What the cache waits on and builds is told past pytest's capture (issue 56: a cold run
    # sat silent for minutes while it built).
    import sys

    from tests.support import real_catalogue

    capture = pytestconfig.pluginmanager.getplugin("capturemanager")
    if capture is not None:

        def say(message: str) -> None:
            with capture.global_and_fixture_disabled():
                print(f"\nreal catalogue: {message}", file=sys.stderr, flush=True)

        real_catalogue.VOICE = say
    # No attribute at all with -p no:cacheprovider.
    cache: pytest.Cache | None = getattr(pytestconfig, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("real-catalogue")
    return cache.mkdir("real-catalogue")


@pytest.fixture(scope="session")
def bundled(real_cache: Path) -> tuple[Catalog, IngestReport]:
    """The catalog of the real bundled dumps and its report: built once per set of inputs and
    kept on disk (tests/support/real_catalogue.py), read once per test session."""
    from tests.support.real_catalogue import cached_catalogue

    return cached_catalogue(real_cache)


@pytest.fixture(scope="session")
def real_snapshot(real_cache: Path) -> tuple[LocalStorage, list[ScoredGame]]:
    """The real catalog scored, and published once per set of inputs as snapshot ``s1`` into a
    folder that every module needing it shares (read only): (its store, the scored games)."""
    from tests.support.real_catalogue import cached_games, cached_snapshot

    return cached_snapshot(real_cache), cached_games(real_cache)


@pytest.fixture(scope="session")
def real_eve(real_cache: Path) -> tuple[Catalog, list[ScoredGame]]:
    """The real catalogue as the eve of the Summer Sale 2026 knew it (24 Jun 2026,
    ``bangscore build --as-of``'s catalogue) and its games scored, built once per set of
    inputs (tests/support/real_catalogue.py)."""
    from tests.support.real_catalogue import EVE, cached_catalogue_as_of, cached_games_as_of

    return cached_catalogue_as_of(real_cache, EVE), cached_games_as_of(real_cache, EVE)


@pytest.fixture(scope="session")
def as_of_pair(real_cache: Path) -> tuple[LocalStorage, str, str]:
    """The store of two real builds, the catalogue as of the eve of the Summer Sale 2026 and
    then as of today, and their snapshot ids (eve, today): built once per set of inputs
    (tests/support/real_builds.py), read only."""
    from bangscore.manifest import list_snapshots
    from tests.support.real_builds import cached_pair

    storage = LocalStorage(cached_pair(real_cache))
    eve, today = list_snapshots(storage)
    return storage, eve, today


@pytest.fixture(scope="session")
def pair_details(real_cache: Path) -> tuple[dict[int, Any], dict[int, Any]]:
    """Every detail record of the as-of pair's two builds by appid, (the eve's, today's):
    decoded once per set of inputs (tests/support/real_builds.py), read only."""
    import gc

    from tests.support.real_builds import cached_pair_details

    pair = cached_pair_details(real_cache)
    # Kept for the session: out of the cyclic collector, as the scored catalogue is
    # (tests/support/real_catalogue.py), or each full collection walks them again.
    gc.freeze()
    return pair


@pytest.fixture(scope="session")
def real_export(real_cache: Path) -> tuple[Path, ExportManifest, list[dict[str, Any]]]:
    """The real catalogue's Bulk export: (the folder of its files, its manifest, its detail
    records), written once per set of inputs (tests/support/real_builds.py), read only."""
    from tests.support.real_builds import cached_export

    return cached_export(real_cache)
