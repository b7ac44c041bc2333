"""Security checks against a real server: keys stay out of logs, secrets are looked up by
digest and never compared with ``==``, no path traversal, and safe response headers."""

from __future__ import annotations

import ast
import hashlib
import http.client
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.shim.quota import Quota
from bangscore.storage import LocalStorage
from bangscore.stores.keys import generate_key, key_id
from bangscore.stores.keystore import KeyRecord
from tests.hardening.conftest import SharedServer
from tests.support import factories
from tests.support.factories import sqlite_stores
from tests.support.live import LOOPBACK, REPO, wait_for

# -- keys never appear in logs ----------------------------------------------------------------


def logged(shared_server: SharedServer, request_ids: list[str]) -> list[dict[str, Any]]:
    """Given the request ids of answered requests, return their access-log lines (JSON), once
    the log holds them all (it is flushed at least every second: wait 5 s at most)."""

    def lines() -> list[dict[str, Any]]:
        found = [
            orjson.loads(line)
            for line in shared_server.server.log().splitlines()
            if line.startswith("{") and '"request_id"' in line
        ]
        return [e for e in found if e["request_id"] in request_ids]

    wait_for(lambda: len(lines()) == len(request_ids), 5, f"logging {request_ids}")
    return sorted(lines(), key=lambda e: request_ids.index(e["request_id"]))


def test_keys_never_appear_in_the_access_log(shared_server: SharedServer) -> None:
    key, stranger = shared_server.key(), generate_key()
    url = shared_server.server.url
    sent = [
        LOOPBACK.get(f"{url}/api/v1/games?api_key={key}"),
        LOOPBACK.get(f"{url}/api/v1/games/10000?api_key={key}&page=2"),  # a 400, logged too
        LOOPBACK.get(f"{url}/api/v1/search?q=quest&api_key={stranger}"),  # unknown key: 401
        LOOPBACK.get(f"{url}/api/v1/games", headers={"Authorization": f"Bearer {key}"}),
    ]
    assert [r.status_code for r in sent] == [200, 400, 401, 200]
    lines = logged(shared_server, [r.headers["x-request-id"] for r in sent])
    assert key not in str(lines) and stranger not in str(lines)
    assert key[4:] not in shared_server.server.log()
    # Each request is logged once, the api_key parameter removed, with the key's public id.
    assert [(e["path"], e["status"], e["key_id"]) for e in lines] == [
        ("/api/v1/games", 200, key_id(key)),
        ("/api/v1/games/10000?page=2", 400, key_id(key)),
        ("/api/v1/search?q=quest", 401, None),
        ("/api/v1/games", 200, key_id(key)),
    ]
    assert all(e["method"] == "GET" and e["client"] == "127.0.0.1" for e in lines)
    assert [e["bytes"] for e in lines] == [int(r.headers["content-length"]) for r in sent]


ENCODINGS = {
    "underscore-escaped": lambda k: k.replace("_", "%5F"),
    "lowercase-escape": lambda k: k.replace("_", "%5f"),
    "fully-escaped": lambda k: "".join(f"%{b:02X}" for b in k.encode()),
    "one-char-escaped": lambda k: k[:10] + f"%{ord(k[10]):02X}" + k[11:],
    "double-escaped": lambda k: k.replace("_", "%255F"),
}


@pytest.mark.parametrize("encode", list(ENCODINGS.values()), ids=list(ENCODINGS))
def test_percent_encoded_keys_never_appear_in_the_access_log(
    shared_server: SharedServer, encode: Callable[[str], str]
) -> None:
    key = shared_server.key()
    sent = encode(key)
    url = shared_server.server.url
    marker = f"marker{time.monotonic_ns()}"
    answers = [
        LOOPBACK.get(f"{url}/api/v1/games?api_key={sent}&{marker}=1"),
        LOOPBACK.get(f"{url}/api/v1/games/{sent}?{marker}=2"),  # a key in the path, too
    ]
    lines = logged(shared_server, [r.headers["x-request-id"] for r in answers])
    for line in map(str, lines):
        assert sent not in line and key not in line and key[4:] not in line
    assert lines[0]["path"] == f"/api/v1/games?{marker}=1"
    assert f"bsk_{key_id(key)}…" in lines[1]["path"]


# -- secrets: digests in the store, no == on them ---------------------------------------------


def test_store_holds_only_the_digest_and_lookups_use_it(tmp_path: Path) -> None:
    store = sqlite_stores(tmp_path / "keys.sqlite3")
    key = factories.add_key(store)
    seen: list[str] = []
    find_key = store.keys.find_key

    def spy(digest: str) -> KeyRecord | None:
        seen.append(digest)
        return find_key(digest)

    store.keys.find_key = spy  # type: ignore[method-assign]
    record = Quota(
        store.counter, store.keys, anonymous_limit=10, page_limit=10, key_cache_seconds=0
    ).keys.authenticate(key)
    store.close()
    assert seen == [hashlib.sha256(key.encode()).hexdigest()]
    assert record.digest == seen[0]
    on_disk = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert key.encode() not in on_disk and key[4:].encode() not in on_disk


SECRET_WORDS = ("digest", "secret", "password", "token", "api_key")
# Modules that hold or compare key material, accounts and sessions (paths from the repository).
SECRET_MODULES = (
    "bangscore/stores/keys.py",
    "bangscore/stores/sqlite_store.py",
    "bangscore/stores/sqlite_counter.py",
    "bangscore/stores/redis_keys.py",
    "bangscore/stores/redis_accounts.py",
    "bangscore/stores/redis_counter.py",
    "shim/quota.py",
    "shim/account/accounts.py",
    "shim/account/throttle.py",
)


def _secret_equalities(source: str) -> list[str]:
    """Given Python source, return ``==``/``!=`` comparisons with an operand named for a secret.

    Content digests of public snapshot bytes are not secrets; those modules are not scanned.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
            continue
        names = [
            n.id if isinstance(n, ast.Name) else n.attr
            for operand in (node.left, *node.comparators)
            for n in ast.walk(operand)
            if isinstance(n, ast.Name | ast.Attribute)
        ]
        if any(word in name.lower() for name in names for word in SECRET_WORDS):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize(
    ("source", "flagged"),
    [
        ("ok = record.digest == presented", True),
        ("ok = stored_password != given", True),
        ("ok = hmac.compare_digest(record.digest, presented)", False),
        ("ok = scheme.lower() == 'bearer'", False),
    ],
    ids=["digest-eq", "password-ne", "compare-digest", "public-eq"],
)
def test_secret_equality_scan_finds_what_it_should(source: str, flagged: bool) -> None:
    assert bool(_secret_equalities(source)) is flagged


@pytest.mark.parametrize("module", SECRET_MODULES)
def test_no_secret_is_compared_with_eq(module: str) -> None:
    assert _secret_equalities((REPO / module).read_text()) == []


# -- no path traversal ------------------------------------------------------------------------

TRAVERSALS = [
    "/api/v1/games/..%2F..%2Fcurrent",
    "/api/v1/games/%2e%2e%2f%2e%2e%2fcurrent",
    "/api/v1/games/..",
    "/api/v1/games/620.json",
    "/api/v1/games/..%5C..%5Ccurrent",
    "/api/v1/games/%00",
    "/game/..%2F..%2Fcurrent",
    "/game/10000/..%2F..%2F..%2Fcurrent",
    "/game/10000/../../current",
    "/game/%2e%2e/%2e%2e/snapshots",
    "/api/v1/../../current",
    "/api/v1/games/../../../snapshots/s1.json",
    "/..%2F..%2Fcurrent",
    "/docs/..%2F..%2Fcurrent",
]


@pytest.mark.parametrize("raw_path", TRAVERSALS)
def test_no_path_traversal_through_appid_or_slug(
    shared_server: SharedServer, raw_path: str
) -> None:
    key = shared_server.key()
    conn = http.client.HTTPConnection("127.0.0.1", shared_server.server.port, timeout=5)
    try:
        # http.client sends the path byte for byte: no client-side normalisation of dot segments.
        conn.request("GET", raw_path, headers={"Authorization": f"Bearer {key}"})
        response = conn.getresponse()
        body = response.read()
    finally:
        conn.close()
    assert response.status in (301, 400, 404), body[:200]
    if response.status == 301:  # a slug fix-up may only point at a game's canonical page
        assert response.getheader("location", "").startswith(f"{factories.SITE}/game/10000/")
    storage = LocalStorage(shared_server.server.state_dir / "snapshots")
    assert body != storage.get("current")
    assert b'"objects"' not in body  # no manifest
    if response.status != 301:  # the API answers problems, the website HTML pages
        api = raw_path.startswith("/api/")
        expected = "application/problem+json" if api else "text/html; charset=utf-8"
        assert response.getheader("content-type") == expected


# -- response headers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "method", "status"),
    [
        ("/api/v1", "GET", 200),
        ("/api/v1/games", "GET", 200),
        ("/api/v1/games", "GET-nokey", 401),
        ("/api/v1/games?page=0", "GET", 400),
        ("/api/v1/games/1", "GET", 404),
        ("/nowhere", "GET", 404),
        ("/api/v1/games", "POST", 405),
        ("/", "GET", 200),
        ("/metrics", "GET", 200),
    ],
    ids=["root", "list", "401", "400", "404", "unknown-path", "405", "home", "metrics"],
)
def test_headers_leak_no_server_version_and_forbid_sniffing(
    shared_server: SharedServer, path: str, method: str, status: int
) -> None:
    key = shared_server.key()
    headers = {} if method == "GET-nokey" else {"Authorization": f"Bearer {key}"}
    response = LOOPBACK.request(
        method.split("-")[0], shared_server.server.url + path, headers=headers
    )
    assert response.status_code == status
    assert "server" not in response.headers
    assert "x-powered-by" not in response.headers
    for value in response.headers.values():
        assert "uvicorn" not in value.lower() and "python" not in value.lower()
    assert response.headers["x-content-type-options"] == "nosniff"


def test_304_also_carries_nosniff_and_no_server(shared_server: SharedServer) -> None:
    key = shared_server.key()
    url = f"{shared_server.server.url}/api/v1/games/10000"
    first = LOOPBACK.get(url, headers={"Authorization": f"Bearer {key}"})
    again = LOOPBACK.get(
        url, headers={"Authorization": f"Bearer {key}", "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert again.headers["x-content-type-options"] == "nosniff"
    assert "server" not in again.headers
