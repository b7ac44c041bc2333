"""A record of the server's answers over a published snapshot: every route, each list filter,
the website's pages and their errors, each asked twice (a miss, then the remembered answer),
as (status, the headers that do not vary per request, the body's SHA-256).

Made to check a refactoring of the answer path (issue 59: one read per request) answers byte
for byte as before: record with the old code, then compare with the new::

    python -m tests.support.answer_record record var/snapshots /tmp/before.json
    python -m tests.support.answer_record compare var/snapshots /tmp/before.json

(``PYTHONPATH`` naming an older checkout's root records that code's answers.) The requests
are read from the snapshot (:func:`requests_of`); :func:`record` is what the test of the
answer policy runs on the real catalogue too.
"""

from __future__ import annotations

import hashlib
import re
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import orjson
from starlette.testclient import TestClient

from bangscore.contract.objects import INDEX_KEY
from bangscore.manifest import read_body, read_manifest_view
from bangscore.shim.compose import CompactIndex
from bangscore.storage import LocalStorage, ObjectStorage
from tests.support import factories

# Headers that differ between two asks of one answer (the request's id, the counts).
VARYING = re.compile(r"^(x-request-id|x-ratelimit-.*|ratelimit.*|retry-after|date)$")
REQUEST_ID = re.compile(rb"\b[0-9a-f]{16}\b")
GENRES = ("rpg", "shooter", "strategy", "narrative", "roguelike", "action", "other")


def requests_of(storage: ObjectStorage, snapshot_id: str) -> list[str]:
    """Given a published snapshot, return the paths (with query) to ask: the API's routes
    with every list filter alone and in pairs, spellings of one query, their 400s, the
    website's pages, redirects and 404s; games, tags and words taken from the snapshot."""
    index = CompactIndex(
        read_body(storage, read_manifest_view(storage, snapshot_id).entries[INDEX_KEY])
    )
    items = [
        orjson.loads(index.item(n))
        for n in range(0, len(index.appids), max(1, len(index.appids) // 12))
    ]
    appids = [int(i["appid"]) for i in items]
    words = [str(i["name"]).split()[0] for i in items if str(i["name"]).split()]
    tags = sorted({t for i in items for t in i.get("tags", [])[:2]})[:6] or ["Indie"]
    paths = [str(urlsplit(str(i["url"])).path) for i in items]
    api = "/api/v1/games"
    lists = [
        "",
        "page=2",
        "page=02",
        "on_sale=true",
        "on_sale=TRUE&page=1",
        "year_from=2015",
        "year_to=2010",
        "year_from=2010&year_to=2015",
        "max_price=9.99",
        "max_price=0",
        "steam_deck=verified",
        "controller=full",
        "language=ja",
        "audio=en",
        "min_reviews=500",
        "genre=rpg,shooter",
        "genre=rpg&genre=strategy",
        "genre=RPG&on_sale=true",
        "on_sale=true&genre=rpg",
        *(f"genre={g}" for g in GENRES),
        *(f"tag={quote(t)}" for t in tags),
        *(f"tag={quote(t.lower())}&on_sale=true" for t in tags[:3]),
        f"tag={quote(tags[0])}&genre=rpg&max_price=19.99&page=2",
        # 400s
        "genre=nope",
        "page=0",
        "page=x",
        "on_sale=yes",
        "year_from=2020&year_to=2010",
        "bogus=1",
        "max_price=10.001",
        "max_price=1&max_price=2",
        "steam_deck=sometimes",
    ]
    searches = [
        *(f"q={quote(w)}" for w in words[:8]),
        f"q={quote(words[0])}&page=2",
        f"q={quote(words[0])}&max_price=9.99",
        f"page=1&q={quote(words[1] if len(words) > 1 else 'a')}",
        "q=zzzzqqqq",
        "q=",
        "q=" + "a" * 101,
        "q=half&bogus=1",
        "q=half&page=0",
    ]
    out = ["/api/v1", "/api/v1/openapi.json", "/api/v1/openapi.json?x=1", "/api/v1/nowhere"]
    out += [api + ("?" + q if q else "") for q in lists]
    out += [f"{api}/{a}" for a in appids]
    out += [f"{api}/{appids[0]}?x=1", f"{api}/abc", f"{api}/999999999999", f"{api}/0"]
    out += [f"/api/v1/search?{q}" for q in searches]
    joined = ",".join(str(a) for a in appids[:5])
    out += [
        f"/api/v1/lookup?appids={joined},999999999",
        "/api/v1/lookup?appids=",
        "/api/v1/lookup?appids=1,x",
        f"/api/v1/changes?since={snapshot_id}",
        "/api/v1/changes?since=bad%20id",
        "/api/v1/changes",
    ]
    site = [
        "/",
        "/?adult=true",
        "/?adult=maybe",
        "/?x=1",
        "/docs",
        "/docs/errors",
        "/about/score",
        "/about/score?adult=true",
        "/about/score?adult=no",
        "/games",
        "/games?adult=true",
        "/games?year_from=&tag=",
        "/search",
        "/search?q=",
        "/favicon.svg",
        "/favicon.ico",
        "/style.css",
        "/nowhere",
        "/game/abc",
        "/game/999999999999/x",
        "/rate",
    ]
    site += ["/games?" + q for q in lists if q]
    site += ["/games?adult=true&" + q for q in lists[:8] if q]
    site += ["/search?" + q for q in searches]
    site += ["/search?adult=true&" + q for q in searches[:3]]
    site += [*paths, *(p + "?adult=true" for p in paths[:4]), *(p + "x" for p in paths[:2])]
    site += [f"/game/{a}" for a in appids[:3]]
    site += [f"/badge/{a}.svg" for a in appids[:3]]
    return out + site


def _entry(response: Any) -> dict[str, Any]:
    headers = sorted(
        (k.lower(), v) for k, v in response.headers.items() if not VARYING.match(k.lower())
    )
    body = REQUEST_ID.sub(b"<id>", response.content)
    return {
        "status": response.status_code,
        "headers": headers,
        "sha256": hashlib.sha256(body).hexdigest(),
        "bytes": len(body),
    }


def record(
    storage: ObjectStorage, snapshot_id: str, state_dir: Path, budgets: Any = None
) -> dict[str, list[Any]]:
    """Given a published snapshot, a folder for the app's state and the memos' budgets (None:
    the default), return each request's answers (a miss and the repeat, with a key, gzip
    taken; the identity once more) by path."""
    app, store, _ = factories.make_app(
        storage, state_dir, anonymous_limit=10**6, page_limit=10**6, budgets=budgets
    )
    key = factories.add_key(store, limit=10**6)
    out: dict[str, list[Any]] = {}
    with TestClient(app, base_url=factories.SITE, follow_redirects=False) as client:
        for path in requests_of(storage, snapshot_id):
            headers = {"authorization": f"Bearer {key}", "accept-encoding": "gzip"}
            answers = [_entry(client.get(path, headers=headers)) for _ in range(2)]
            answers.append(
                _entry(client.get(path, headers={**headers, "accept-encoding": "identity"}))
            )
            out[path] = answers
    return out


def main(argv: list[str]) -> int:
    """``record|compare <snapshot folder> <file.json>``: write the record, or compare with it
    (print each path whose answers differ; exit 1 if any)."""
    command, folder, file = argv
    storage = LocalStorage(Path(folder))
    snapshot_id = storage.read_pointer()
    assert snapshot_id is not None, "no published snapshot"
    with tempfile.TemporaryDirectory() as state:
        now = record(storage, snapshot_id, Path(state))
    if command == "record":
        Path(file).write_bytes(orjson.dumps(now, option=orjson.OPT_INDENT_2))
        print(f"{len(now)} paths, {sum(len(v) for v in now.values())} answers recorded")
        return 0
    before = orjson.loads(Path(file).read_bytes())
    now = orjson.loads(orjson.dumps(now))  # tuples as the file keeps them: lists
    differ = [p for p in before if before[p] != now.get(p)]
    for path in differ:
        print("differs:", path, *(a for a in before[path] if a not in now.get(path, [])))
    print(f"{len(before)} paths, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
