"""Faults against a real server: a snapshot switch under load, a corrupt stored object, and the
process killed (SIGKILL) and restarted mid-day. Loops are bounded in count and time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx
import pytest

from bangscore.manifest import etag_for, gzip_body, object_key, read_manifest
from bangscore.scoring.records import GameRecord
from bangscore.shim.answer import gzip_etag_of
from bangscore.storage import LocalStorage, StoredObject
from bangscore.stores.sqlite_counter import MAX_BLOCK
from tests.hardening.conftest import ServerFactory, add_key, publish_into
from tests.support import factories, malformed
from tests.support.live import LOOPBACK, ShimServer, wait_for

pytestmark = pytest.mark.slow  # real servers

DEADLINE_SECONDS = 20.0
PATHS = (
    "/api/v1/games",
    "/api/v1/games?genre=rpg",
    "/api/v1/games?genre=rpg,shooter&tag=co-op&year_from=2010&year_to=2030",
    "/api/v1/games/10000",
    "/api/v1/search?q=quest",
)


@dataclass(frozen=True)
class Seen:
    """One response as a client saw it."""

    path: str
    status: int
    snapshot: str | None
    etag: str | None
    body: bytes


@dataclass
class Hammer:
    """Client threads sending requests in a loop until told to stop or out of budget/time."""

    url: str
    key: str
    paths: tuple[str, ...]
    threads: int = 6
    per_thread: int = 1500
    seen: list[Seen] = field(default_factory=list)
    attempts: int = 0
    errors: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _workers: list[threading.Thread] = field(default_factory=list)

    def _run(self, offset: int) -> None:
        deadline = time.monotonic() + DEADLINE_SECONDS
        headers = {"Authorization": f"Bearer {self.key}"}
        with httpx.Client(base_url=self.url, headers=headers, timeout=5.0) as client:
            for n in range(self.per_thread):
                if self.stop.is_set() or time.monotonic() > deadline:
                    return
                path = self.paths[(n + offset) % len(self.paths)]
                with self._lock:
                    self.attempts += 1
                try:
                    r = client.get(path)
                except httpx.HTTPError:
                    with self._lock:
                        self.errors += 1
                    return  # the server is gone: this client stops
                seen = Seen(
                    path,
                    r.status_code,
                    r.headers.get("x-snapshot"),
                    r.headers.get("etag"),
                    r.content,
                )
                with self._lock:
                    self.seen.append(seen)

    def start(self) -> Hammer:
        """Start the client threads; return self."""
        for i in range(self.threads):
            worker = threading.Thread(target=self._run, args=(i,), daemon=True)
            worker.start()
            self._workers.append(worker)
        return self

    def wait_for(self, condition: Callable[[], bool], seconds: float = DEADLINE_SECONDS) -> bool:
        """Wait until ``condition`` holds (or time runs out); return whether it held."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.02)
        return False

    def join(self) -> None:
        """Stop the clients and wait for them."""
        self.stop.set()
        for worker in self._workers:
            worker.join(timeout=DEADLINE_SECONDS)

    def count(self, status: int) -> int:
        """Return how many responses had this status so far."""
        with self._lock:
            return sum(1 for s in self.seen if s.status == status)


def renamed(records: list[GameRecord], suffix: str) -> list[GameRecord]:
    """Given records, return copies whose names end in ``suffix`` (so every body changes)."""
    return [r.model_copy(update={"name": f"{r.name} {suffix}"}) for r in records]


def quiet_answers(url: str, key: str, snapshot: str) -> dict[str, tuple[str, bytes]]:
    """Given a server that serves ``snapshot`` on every worker, return path -> (ETag, body)."""
    out: dict[str, tuple[str, bytes]] = {}
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}) as client:
        for path in PATHS:
            # Several tries, so that each of the workers has answered at least once.
            answers = {
                (r.headers["x-snapshot"], r.headers["etag"], r.content)
                for r in (client.get(path) for _ in range(6))
            }
            assert {a[0] for a in answers} == {snapshot}, path
            assert len(answers) == 1, path
            ((_, etag, body),) = answers
            out[path] = (etag, body)
    return out


def test_snapshot_switch_under_load_never_mixes(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    records = factories.small_catalog()
    publish_into(tmp_path, records, "s1")
    key = add_key(tmp_path)
    server = server_factory(tmp_path, workers=2)
    before = quiet_answers(server.url, key, "s1")

    hammer = Hammer(server.url, key, PATHS).start()
    assert hammer.wait_for(lambda: len(hammer.seen) >= 200)
    publish_into(tmp_path, renamed(records, "Remastered"), "s2")
    switched = hammer.wait_for(lambda: hammer.seen[-1].snapshot == "s2")
    # Each worker polls the pointer on its own (every 0.2 s): wait until every one serves s2,
    # asking each through a connection of its own, while the hammer goes on.
    pinned = server.worker_clients({"Authorization": f"Bearer {key}"})
    try:
        wait_for(
            lambda: all(c.get(PATHS[0]).headers["x-snapshot"] == "s2" for c in pinned),
            DEADLINE_SECONDS,
            "every worker serving s2",
        )
    finally:
        for client in pinned:
            client.close()
    hammer.join()
    assert switched
    after = quiet_answers(server.url, key, "s2")

    expected = {"s1": before, "s2": after}
    assert hammer.errors == 0
    assert {s.status for s in hammer.seen} == {200}
    assert {s.snapshot for s in hammer.seen} == {"s1", "s2"}
    for seen in hammer.seen:
        assert seen.snapshot is not None
        assert (seen.etag, seen.body) == expected[seen.snapshot][seen.path], seen.path
        # httpx takes gzip: the ETag is the gzip representation's when the body has one: a
        # stored body's digest, or a composed answer's tag derived from its identity tag.
        identity = etag_for(seen.body)
        assert seen.etag in (identity, etag_for(gzip_body(seen.body)), gzip_etag_of(identity))
    # The two snapshots really differ on every path, so a mixed answer could not pass.
    assert all(before[p] != after[p] for p in PATHS)


def test_corrupt_object_is_a_clear_503_and_the_rest_keeps_serving(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path)
    manifest = read_manifest(LocalStorage(tmp_path / "snapshots"), "s1")
    sha = manifest.entries["games/10101.json"].stored[0]
    LocalStorage(tmp_path / "snapshots").put_many(
        [StoredObject(object_key(sha), b'{"appid": 10101, "tampered": 1}')]
    )
    server = server_factory(tmp_path)
    auth = {"Authorization": f"Bearer {key}"}

    with httpx.Client(base_url=server.url, headers=auth) as client:
        for _ in range(2):  # a corrupt body is never cached: the second read fails the same way
            broken = client.get("/api/v1/games/10101")
            assert broken.status_code == 503
            assert broken.headers["content-type"] == "application/problem+json"
            assert broken.headers["retry-after"] == "5"
            assert broken.headers["cache-control"] == "no-store"
            problem = broken.json()
            assert problem["code"] == "unavailable"
            assert "integrity" in problem["detail"]
            assert b"tampered" not in broken.content
        for path in (*PATHS, "/api/v1/games/10100", "/game/10101/shooter-quest-1"):
            assert client.get(path).status_code == 200, path
    assert f"object {sha} does not match its digest" in server.log()


def test_killed_and_restarted_server_keeps_every_count(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path)
    server = server_factory(tmp_path)
    hammer = Hammer(server.url, key, ("/api/v1/games/10000", "/api/v1/games?genre=rpg")).start()
    assert hammer.wait_for(lambda: hammer.count(200) >= 300)
    server.kill()  # SIGKILL mid-stream: in-flight requests die with it
    hammer.join()
    answered, attempted = hammer.count(200), hammer.attempts
    assert {s.status for s in hammer.seen} == {200}

    server.start()
    auth = {"Authorization": f"Bearer {key}"}
    usage = LOOPBACK.get(f"{server.url}/api/v1/usage", headers=auth).json()
    # Every answered request was counted before its answer left (the store counts a leased
    # block before any of it is spent); at most the in-flight ones and the block the killed
    # process had leased and not spent may have been counted as well.
    assert answered <= usage["used"] <= attempted + MAX_BLOCK
    following = LOOPBACK.get(f"{server.url}/api/v1/games/10000", headers=auth)
    assert following.status_code == 200
    assert int(following.headers["x-ratelimit-used"]) == usage["used"] + 1
    assert following.headers["x-snapshot"] == "s1"


def serving(client: httpx.Client) -> tuple[int, str | None]:
    """Given a keyed client, return (status, X-Snapshot) of a list page."""
    response = client.get("/api/v1/games?genre=rpg")
    return response.status_code, response.headers.get("x-snapshot")


def serves(client: httpx.Client, snapshot: str) -> bool:
    """Given a keyed client and a snapshot id, return True if a list page is served from it."""
    return serving(client) == (200, snapshot)


def logged(server: ShimServer, line: str) -> bool:
    """Given a server and a line's start, return True if the server logged it."""
    return line in server.log()


def test_a_replica_refuses_every_malformed_snapshot_and_follows_the_next(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    storage = LocalStorage(tmp_path / "snapshots")
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path)
    # Started on a malformed snapshot (the not-rated index that made a replica exit): 503.
    malformed.EVERY_CASE["not-rated-list"](storage, "s1", "bad")
    server = server_factory(tmp_path)
    auth = {"Authorization": f"Bearer {key}"}
    poll = 0.2  # the factory's BANGSCORE_POINTER_POLL_SECONDS
    with httpx.Client(base_url=server.url, headers=auth) as client:
        for path in ("/api/v1/games", "/api/v1/search?q=quest", "/api/v1/lookup?appids=1"):
            assert client.get(path).status_code == 503, path
        malformed.publish_copy(storage, "s1", "good")
        wait_for(partial(serves, client, "good"), 2 * poll + 2, "the good snapshot")
        for n, case in enumerate(sorted(malformed.EVERY_CASE)):
            malformed.EVERY_CASE[case](storage, "s1", f"bad{n}")
            named = malformed.named_in_log(case, f"bad{n}")
            wait_for(partial(logged, server, f"refused {named}"), 5, f"{case} refused")
            assert serving(client) == (200, "good" if n == 0 else f"good{n - 1}"), case
            malformed.publish_copy(storage, "s1", f"good{n}")
            # Switched within two polls (and the load of a small snapshot).
            wait_for(partial(serves, client, f"good{n}"), 2 * poll + 2, case)
            assert server.log().count(f"refused {named}:") == 1, case
    assert "Traceback" not in server.log()
