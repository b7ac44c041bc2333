"""What a request costs, against a real server: a 304 is free only for a client that names the
body it holds, a refused client is refused before any work, and a 503 is not charged."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from bangscore.manifest import object_key, read_manifest
from bangscore.storage import LocalStorage, StoredObject
from tests.hardening.conftest import ServerFactory, add_key, publish_into
from tests.support import factories
from tests.support.live import wait_for


def used(response: httpx.Response) -> int:
    return int(response.headers["x-ratelimit-used"])


def metric(client: httpx.Client, name: str) -> int:
    """Given a client of the server and a metric's name, return its value on /metrics."""
    for line in client.get("/metrics").text.splitlines():
        if line.startswith(f"{name} "):
            return int(float(line.split()[1]))
    raise AssertionError(f"no {name} on /metrics")


def body_cache_bytes(client: httpx.Client) -> int:
    """Given a client of the server, return how many snapshot body bytes it holds in memory."""
    return metric(client, "bangscore_body_cache_bytes")


@pytest.mark.parametrize(
    "path", ["/api/v1/games?genre=rpg", "/api/v1/games/10001", "/api/v1/search?q=quest"]
)
def test_star_is_counted_and_a_spent_key_gets_429_not_304(
    tmp_path: Path, server_factory: ServerFactory, path: str
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path, limit=2)
    server = server_factory(tmp_path)
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}) as client:
        first = client.get(path)
        assert (first.status_code, used(first)) == (200, 1)
        etag = first.headers["etag"]
        star = client.get(path, headers={"If-None-Match": "*"})
        assert (star.status_code, star.content, used(star)) == (304, b"", 2)
        for condition in ("*", etag):  # spent: neither a wildcard nor the real ETag gets in
            refused = client.get(path, headers={"If-None-Match": condition})
            assert refused.status_code == 429, condition
            assert refused.json()["code"] == "quota_exceeded"
            assert int(refused.headers["retry-after"]) > 0


def test_page_allowance_counts_a_star_and_refuses_it_past_the_limit(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    server = server_factory(tmp_path, env={"BANGSCORE_PAGE_DAILY_LIMIT": "2"})
    with httpx.Client(base_url=server.url) as client:
        home = client.get("/")
        assert (home.status_code, used(home)) == (200, 1)
        assert used(client.get("/", headers={"If-None-Match": home.headers["etag"]})) == 1
        star = client.get("/", headers={"If-None-Match": "*"})
        assert (star.status_code, used(star)) == (304, 2)
        refused = client.get("/", headers={"If-None-Match": "*"})
        assert refused.status_code == 429
        assert refused.headers["content-type"].startswith("text/html")


def test_a_refused_key_reads_nothing(tmp_path: Path, server_factory: ServerFactory) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path, limit=1)
    server = server_factory(tmp_path)
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}) as client:
        assert client.get("/api/v1/games/10001").status_code == 200
        assert client.get("/api/v1/games/10001").status_code == 429
        before = body_cache_bytes(client)
        for appid in (10002, 10003, 10004):
            refused = client.get(f"/api/v1/games/{appid}", headers={"If-None-Match": "*"})
            assert refused.status_code == 429
        # The refused requests' detail records were never read from the snapshot.
        assert body_cache_bytes(client) == before


def test_a_503_is_not_charged_to_the_key(tmp_path: Path, server_factory: ServerFactory) -> None:
    publish_into(tmp_path, factories.small_catalog(), "s1")
    key = add_key(tmp_path, limit=10)
    manifest = read_manifest(LocalStorage(tmp_path / "snapshots"), "s1")
    sha = manifest.entries["games/10101.json"].stored[0]
    LocalStorage(tmp_path / "snapshots").put_many(
        [StoredObject(object_key(sha), b'{"appid": 10101, "tampered": 1}')]
    )
    server = server_factory(tmp_path)
    with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {key}"}) as client:
        for _ in range(3):
            broken = client.get("/api/v1/games/10101")
            assert broken.status_code == 503
            assert used(broken) == 0
        served = client.get("/api/v1/games/10100")
        assert (served.status_code, used(served)) == (200, 1)


def compressions(client: httpx.Client) -> int:
    """Given a client of the server, return how many answers it compressed on the fly."""
    return metric(client, "bangscore_compressions_total")


REVALIDATIONS = 1500


def test_1500_lookup_304s_of_100_appids_compress_no_answer(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    """A lookup is composed per request; its 304 used to compress the whole answer to learn
    the gzip ETag (issue 45: 1.2-1.3 ms of CPU, 4-6.6 times a list page's 304 on the real
    catalogue). Its CPU is a benchmark row (bench/flood.py); here, the compressions counted."""
    fillers = [factories.make_record(appid=70_000 + i, name=f"Filler {i}") for i in range(60)]
    games = publish_into(tmp_path, [*factories.small_catalog(), *fillers], "s1")[:100]
    server = server_factory(tmp_path)
    headers = {"Authorization": f"Bearer {add_key(tmp_path)}", "Accept-Encoding": "gzip"}
    ids = [str(g.record.appid) for g in games]
    lookup = "/api/v1/lookup?appids=" + ",".join(ids)
    with httpx.Client(base_url=server.url, headers=headers) as client:
        first = client.get(lookup)
        assert first.headers["content-encoding"] == "gzip"
        wait_for(lambda: compressions(client) >= 1, 10, "the first answer counted")
        before = compressions(client)
        for _ in range(REVALIDATIONS):
            again = client.get(lookup, headers={"If-None-Match": first.headers["etag"]})
            assert again.status_code == 304
        # One new lookup compresses exactly one answer: once it is counted, the count is
        # current, and every revalidation before it added nothing.
        assert client.get("/api/v1/lookup?appids=" + ",".join(ids[1:])).status_code == 200
        try:
            wait_for(lambda: compressions(client) == before + 1, 10, "one more compression")
        except AssertionError:
            spent = compressions(client) - before - 1
            raise AssertionError(
                f"{REVALIDATIONS} lookup 304s compressed {spent} answers"
            ) from None
