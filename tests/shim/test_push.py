"""Push's routes (shim/push.py) in-process over two builds of the small catalogue: the Atom
feeds served like pages, and ``GET /api/v1/changes`` (paging, ETag and 304, counting, 400
and 410)."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from typing import Any

import feedparser
import pytest
from starlette.testclient import TestClient

from bangscore.contract.push import FEED_TYPE, ChangeFeed
from bangscore.stores import Stores
from tests.support.factories import add_key
from tests.support.push_builds import TwoBuilds, two_builds

ClientFactory = Callable[..., tuple[TestClient, Stores]]


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> TwoBuilds:
    """The small catalogue built twice into one store, the second with changes."""
    return two_builds(tmp_path_factory.mktemp("push"))


@pytest.fixture
def api(client_factory: ClientFactory, builds: TwoBuilds) -> tuple[TestClient, dict[str, str]]:
    """A client over the second build and the auth headers of a free key."""
    client, store = client_factory(builds.storage)
    return client, {"Authorization": f"Bearer {add_key(store)}"}


def _used(response: Any) -> int:
    return int(response.headers["x-ratelimit-used"])


@pytest.mark.parametrize(
    "path", ["/feeds/deals.atom", "/feeds/bangers.atom", "/feeds/genre/rpg.atom"]
)
def test_a_feed_is_served_as_atom_and_counted_as_a_page(api: Any, path: str) -> None:
    client, _ = api
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == FEED_TYPE
    assert response.content.startswith(b"<?xml")
    assert response.headers["etag"]
    assert _used(response) == 1
    again = client.get(path, headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304


@pytest.mark.parametrize(
    "path",
    ["/feeds/nothing.atom", "/feeds/nothing", "/feeds/deals.rss", "/feeds/genre/horror.atom"],
)
def test_a_feed_that_does_not_exist_is_the_html_404(api: Any, path: str) -> None:
    client, _ = api
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")


@pytest.mark.parametrize("name", ["deals", "bangers", "genre/rpg"])
def test_a_feeds_reading_view_is_a_page_of_the_same_entries(api: Any, name: str) -> None:
    client, _ = api
    atom = feedparser.parse(client.get(f"/feeds/{name}.atom").content)
    page = client.get(f"/feeds/{name}")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert f"<h1>{escape(atom.feed.title)}</h1>" in html
    assert f"<code>http://testserver/feeds/{name}.atom</code>" in html
    shown = re.findall(r'<li><a href="([^"]+)">([^<]+)</a>', html)
    assert shown == [(e.link, escape(e.title)) for e in atom.entries]
    assert _used(page) == _used(client.get(f"/feeds/{name}.atom")) - 1  # counted as a page
    assert (
        client.get(f"/feeds/{name}", headers={"If-None-Match": page.headers["etag"]}).status_code
        == 304
    )


def test_every_page_links_the_feeds_from_its_head(api: Any) -> None:
    client, _ = api
    head = client.get("/").text.split("</head>")[0]
    assert '<link rel="alternate" type="application/atom+xml"' in head
    assert 'href="/feeds/deals.atom"' in head or "/feeds/deals.atom" in head


def test_changes_since_the_first_build_list_its_changes(api: Any, builds: TwoBuilds) -> None:
    client, auth = api
    response = client.get("/api/v1/changes", params={"since": builds.first}, headers=auth)
    assert response.status_code == 200
    body = response.json()
    ChangeFeed.model_validate(body)
    assert (body["since"], body["snapshot"]) == (builds.first, builds.second)
    assert response.headers["x-snapshot"] == builds.second
    assert [s["id"] for s in body["snapshots"]] == [builds.second]
    assert body["total"] == len(body["changes"]) > 0
    dropped = builds.before[-1].appid
    assert {c["appid"] for c in body["changes"]} >= {dropped}
    assert _used(response) == 1
    again = client.get(
        "/api/v1/changes",
        params={"since": builds.first},
        headers={**auth, "If-None-Match": response.headers["etag"]},
    )
    assert again.status_code == 304
    assert _used(client.get("/api/v1/usage", headers=auth)) == 1


def test_a_page_past_the_last_is_empty_with_the_real_counts(api: Any, builds: TwoBuilds) -> None:
    client, auth = api
    first = client.get("/api/v1/changes", params={"since": builds.first}, headers=auth).json()
    past = client.get(
        "/api/v1/changes", params={"since": builds.first, "page": "9"}, headers=auth
    ).json()
    assert past == {**first, "page": 9, "changes": []}


def test_since_the_current_snapshot_has_nothing(api: Any, builds: TwoBuilds) -> None:
    client, auth = api
    body = client.get("/api/v1/changes", params={"since": builds.second}, headers=auth).json()
    assert (body["total"], body["changes"], body["snapshots"]) == (0, [], [])


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        pytest.param({}, "since", id="missing"),
        pytest.param({"since": "zzzz-unknown"}, "since", id="unknown-id"),
        pytest.param({"since": "a/b"}, "since", id="malformed"),
        pytest.param({"since": "é"}, "since", id="non-ascii"),
        pytest.param({"since": "x" * 65}, "since", id="too-long"),
        pytest.param({"since": "s1", "page": "0"}, "page", id="page-0"),
        pytest.param({"since": "s1", "genre": "rpg"}, "genre", id="unknown-parameter"),
    ],
)
def test_a_bad_query_is_a_400_naming_the_parameter(
    api: Any, query: dict[str, str], parameter: str
) -> None:
    client, auth = api
    response = client.get("/api/v1/changes", params=query, headers=auth)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_parameter"
    assert parameter in [e["parameter"] for e in response.json()["errors"]]


def test_since_older_than_the_history_is_410_with_the_oldest(api: Any, builds: TwoBuilds) -> None:
    client, auth = api
    response = client.get(
        "/api/v1/changes", params={"since": "20200101T000000Z-0000"}, headers=auth
    )
    assert response.status_code == 410
    body = response.json()
    assert (body["code"], body["oldest"], body["snapshot"]) == (
        "history_expired",
        builds.first,
        builds.second,
    )
    assert response.headers["cache-control"] == "no-store"


def test_changes_need_a_key(api: Any, builds: TwoBuilds) -> None:
    client, _ = api
    response = client.get("/api/v1/changes", params={"since": builds.first})
    assert response.status_code == 401
