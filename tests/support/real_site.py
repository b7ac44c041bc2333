"""Fixtures of the browser tests (loaded by ``pytest_plugins``): one headless chromium per
module (:func:`browser`) and ``bangscore serve`` over the session's published real catalogue
(:func:`real_site`, a :class:`RealSite`: one per test process), which the modules reading the
real pages share instead of each keeping a copy."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson
import pytest

from bangscore.contract.objects import INDEX_KEY, detail_key
from bangscore.manifest import read_body, read_manifest_view
from bangscore.shim.compose import CompactIndex
from bangscore.storage import LocalStorage
from tests.support.browser import chromium
from tests.support.live import ShimServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from bangscore.scoring.pipeline import ScoredGame

SNAPSHOT_ID = "s1"  # tests.support.real_catalogue publishes the real catalogue under this id


class RealSite:
    """A server over the real catalogue and the snapshot store it serves (read only)."""

    def __init__(self, server: ShimServer, storage: LocalStorage) -> None:
        self.server = server
        self.storage = storage
        self.url = server.url
        # Read lazily, as a replica does: decoding the 134,000 entries whole took each call
        # about 9 s of CPU under coverage, most of what a browser test cost.
        self.manifest = read_manifest_view(storage, SNAPSHOT_ID)

    def body(self, key: str) -> bytes:
        """Given an object key, return its stored body (identity)."""
        return read_body(self.storage, self.manifest.entries[key])

    def detail(self, appid: int) -> dict[str, Any]:
        """Given an appid, return its detail record as the snapshot stores it."""
        return dict(orjson.loads(self.body(detail_key(appid))))

    def items(self) -> list[dict[str, Any]]:
        """Return every list item in list order (the compact index's items)."""
        index = CompactIndex(self.body(INDEX_KEY))
        return [orjson.loads(index.item(n)) for n in range(len(index.appids))]

    def game_url(self, appid: int) -> str:
        """Given an appid, return its game page's URL on the server under test (the path of
        the URL its detail record gives, on this server)."""
        return self.url + urlsplit(str(self.detail(appid)["url"])).path


@pytest.fixture(scope="session")
def real_site(
    tmp_path_factory: pytest.TempPathFactory,
    real_snapshot: tuple[LocalStorage, list[ScoredGame]],
) -> Iterator[RealSite]:
    """``bangscore serve`` over the session's published real catalogue (read only), one per
    test process, with a state folder (keys, accounts) of its own. Shared by the modules, not
    one each: a start over the real catalogue, until warm, costs about 3.1 s of CPU (its manifest
    checked, the stored index of the 145,000 unrated names read; 4.6 s when each server
    indexed them itself; 3 Dec 2026), and the modules only read its pages or
    sign up addresses of their own. Every browser context starts signed out."""
    storage = real_snapshot[0]
    state = tmp_path_factory.mktemp("real-site-state")
    # Untraced: see ShimServer.traced.
    server = ShimServer(state, state / "shim.log", snapshot=storage.root, traced=False).start()
    yield RealSite(server, storage)
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless chromium for the module: each start (chromium and Playwright's driver)
    costs about 1 s of CPU. Not one for the session: Playwright's synchronous API holds its
    event loop as the running one while it lives, and a later module's ``asyncio.run`` in the
    same process then fails (tried, 3 Dec 2026). Each context a test opens is a fresh, empty
    profile (Playwright), so no test sees another's cookies or pages."""
    with chromium() as started:
        yield started
