"""The website as the shim serves it: browse and search from the same code as the API, HTML
for refused and missing pages, and the pages' own per-IP allowance."""

from __future__ import annotations

import asyncio
import datetime as dt
import html
import re
import threading
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import pytest
from starlette.testclient import TestClient

from bangscore.build.wire import slugify
from bangscore.contract.objects import NOT_RATED_SEARCH_KEY
from bangscore.contract.search import SearchIndex
from bangscore.manifest import etag_for
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import NotRated
from bangscore.shim.pages import MAX_UNRATED_SHOWN, Pages, UnratedNames
from bangscore.shim.rate import appids_in
from bangscore.site.render import SiteRenderer, style_version
from bangscore.storage import ObjectStorage
from bangscore.stores import Stores
from tests.support import factories
from tests.support.factories import SITE, add_key
from tests.support.malformed import publish_copy, publish_without

ClientFactory = Callable[..., tuple[TestClient, Stores]]
HTML = "text/html; charset=utf-8"
NOT_RATED = (
    NotRated(appid=999001, name="Rpg Quest Remastered", reason="too_few_reviews"),
    NotRated(appid=1145361, name="Hades Demo", reason="not_a_game"),
    NotRated(appid=999002, name="Old Listing", reason="superseded", superseded_by=10_000),
)


@pytest.fixture
def site(
    client_factory: ClientFactory, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> tuple[TestClient, dict[str, str]]:
    """A client over the small catalog and the auth headers of a free key."""
    client, store = client_factory(small_snapshot[0])
    return client, {"Authorization": f"Bearer {add_key(store)}"}


@pytest.fixture(scope="module")
def with_not_rated() -> ObjectStorage:
    """The small catalog published with its not-rated apps, as the builder writes them."""
    storage, _ = factories.publish_catalog(factories.small_catalog(), not_rated=NOT_RATED)
    return storage


def appids(html: str) -> list[int]:
    """Given a browse or search page, return the appids of its results table in order."""
    table = re.search(r'<table class="games" id="results">(.*?)</table>', html, re.S)
    return [int(a) for a in re.findall(r'data-appid="(\d+)"', table[1])] if table else []


def rel_links(html: str) -> dict[str, str]:
    """Given a page, return its paging links by relation (first, prev, next, last)."""
    return {rel: href for href, rel in re.findall(r'<a href="([^"]+)"[^>]*data-rel="(\w+)"', html)}


@pytest.mark.parametrize(
    "query",
    [
        "",
        "page=2",
        "genre=rpg",
        "genre=rpg,action&on_sale=true",
        "genre=rpg&genre=strategy",
        "tag=co-op&year_from=2012&year_to=2016",
        "on_sale=true&page=2",
        "year_from=2030",
        "page=99",
        "steam_deck=verified,playable&controller=full",
        "language=de&audio=de&page=2",
        "min_reviews=1000&language=ja",
    ],
    ids=[
        "all",
        "page-2",
        "genre",
        "genres-on-sale",
        "repeated-genre",
        "tag-years",
        "sale-p2",
        "none-match",
        "past-the-end",
        "deck-controller",
        "german-audio-p2",
        "reviews-subtitles",
    ],
)
def test_browse_shows_exactly_what_the_api_lists(site: Any, query: str) -> None:
    client, auth = site
    page = client.get(f"/games?{query}")
    api = client.get(f"/api/v1/games?{query}", headers=auth).json()
    assert page.status_code == 200 and page.headers["content-type"] == HTML
    assert appids(page.text) == [g["appid"] for g in api["games"]]
    if api["total"]:
        assert f"{api['total']:,} game" in page.text
    else:
        assert "No game matches these filters." in page.text


def test_every_row_says_when_its_price_was_seen(client_factory: ClientFactory) -> None:
    seen = dt.datetime(2026, 7, 3, 22, 15, 8, tzinfo=dt.UTC)
    records = [
        factories.make_record(appid=501, name="Seen Game", price_observed_at=seen),
        factories.make_record(appid=502, name="Undated Game", review_score=0.8),
    ]
    storage, _ = factories.publish_catalog(records)
    client, _ = client_factory(storage)
    page = client.get("/games").text
    assert appids(page) == [501, 502]
    assert re.findall(r'<small class="price-seen">([^<]*)</small>', page) == ["3 Jul 2026", "—"]


def test_a_row_says_last_seen_for_a_stale_paid_price_never_for_a_free_game(
    client_factory: ClientFactory,
) -> None:
    old = dt.datetime(2024, 10, 31, tzinfo=dt.UTC)  # 631 days before the prices' 24 Jul 2026
    records = [
        factories.make_record(appid=601, name="Free Game", price_usd=0.0, price_observed_at=old),
        factories.make_record(
            appid=602, name="Paid Game", price_usd=9.99, price_observed_at=old, review_score=0.8
        ),
    ]
    storage, _ = factories.publish_catalog(records)
    client, _ = client_factory(storage)
    page = client.get("/games").text
    seen = dict(
        zip(
            appids(page),
            re.findall(r'<small class="price-seen">([^<]*)</small>', page),
            strict=True,
        )
    )
    assert seen == {601: "31 Oct 2024", 602: "last seen 31 Oct 2024"}


def test_browse_form_keeps_the_filters_and_links_pages_and_the_api(site: Any) -> None:
    client, _ = site
    html = client.get("/games?on_sale=true&year_from=2010&page=2").text
    assert 'name="on_sale" value="true" id="f-on-sale" checked' in html
    assert 'name="year_from" min="1970" max="2100" value="2010"' in html
    links = rel_links(html)
    assert links == {
        "first": "/games?year_from=2010&amp;on_sale=true&amp;page=1",
        "prev": "/games?year_from=2010&amp;on_sale=true&amp;page=1",
        "last": "/games?year_from=2010&amp;on_sale=true&amp;page=2",
    }
    assert "Page 2 of 2" in html
    api = re.search(r'<a href="([^"]+)" id="api-link">', html)
    assert api is not None
    assert api[1] == f"{SITE}/api/v1/games?year_from=2010&amp;on_sale=true&amp;page=2"
    checked = client.get("/games?genre=rpg,action").text
    assert 'value="rpg" checked' in checked and 'value="action" checked' in checked
    assert 'value="shooter" checked' not in checked


def test_browse_form_keeps_the_facets_and_badges_rows(site: Any) -> None:
    client, _ = site
    html = client.get("/games?steam_deck=verified,playable&language=DE&min_reviews=10").text
    assert 'name="steam_deck" value="verified" checked' in html
    assert 'name="steam_deck" value="unsupported" checked' not in html
    assert '<option value="de" selected>German (de)</option>' in html
    assert 'name="min_reviews" min="0" max="10000000" value="10"' in html
    assert rel_links(html)["next"] == (
        "/games?steam_deck=playable,verified&amp;language=de&amp;min_reviews=10&amp;page=2"
    )
    # Every row is Deck verified or playable; those with German voices say so, the others not.
    rows = re.findall(r'<tr data-appid="(\d+)">(.*?)</tr>', html, re.S)
    assert rows and all(re.search("Deck (verified|playable)<", row) for _, row in rows)
    voiced = {r.appid for r in factories.small_catalog() if any(
        lang.code == "de" and lang.audio for lang in r.languages
    )}  # fmt: skip
    badged = {int(a) for a, row in rows if "Audio in German" in row}
    assert badged == {int(a) for a, _ in rows} & voiced and badged


def test_a_game_page_shows_its_facets(site: Any) -> None:
    client, _ = site
    html = client.get("/game/10000").text
    badges = re.findall(r'<li class="facet facet-([\w-]+)">([^<]*)</li>', html)
    assert badges == [
        ("deck-verified", "Deck verified, tested 10 Jan 2024"),
        ("controller-full", "Full controller support"),
    ]
    languages = re.search(r'<td id="languages">(.*?)</td>', html)
    assert languages is not None
    assert re.sub(r"<[^>]+>", "", languages[1]) == (
        "English (interface, audio, subtitles); German (interface, audio)"
    )
    assert '<td id="ai-content">Pre-generated: the developer discloses' in html


def test_empty_form_fields_redirect_to_the_clean_url(site: Any) -> None:
    client, _ = site
    answer = client.get(
        "/games?genre=rpg&tag=&year_from=&year_to=2020&on_sale=true", follow_redirects=False
    )
    assert answer.status_code == 302
    assert answer.headers["location"] == "/games?genre=rpg&year_to=2020&on_sale=true"
    bare = client.get("/games?tag=&year_from=", follow_redirects=False)
    assert bare.headers["location"] == "/games"


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("year_from=15", "year_from"),
        ("genre=racing", "genre"),
        ("year_from=0999&year_to=2015", "year_from"),
        ("on_sale=yes", "on_sale"),
        ("page=0", "page"),
        ("colour=red", "colour"),
        ("steam_deck=great", "steam_deck"),
        ("language=german", "language"),
    ],
    ids=[
        *("short-year", "unknown-genre", "year-too-low", "on-sale-value", "page-0", "unknown"),
        *("unknown-deck", "unknown-language"),
    ],
)
def test_bad_filters_answer_an_html_400_with_the_form(
    site: Any, query: str, parameter: str
) -> None:
    client, _ = site
    page = client.get(f"/games?{query}")
    assert page.status_code == 400 and page.headers["content-type"] == HTML
    assert f"<strong>{parameter}</strong>" in page.text
    assert 'id="filters"' in page.text and page.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    "query",
    ["quest", "rpg quest", "RPG  QUEST 3", "qeust", "10203", "nothing like it"],
    ids=["word", "two-words", "case-space", "typo", "appid", "no-match"],
)
def test_search_shows_exactly_what_the_api_finds(site: Any, query: str) -> None:
    client, auth = site
    page = client.get("/search", params={"q": query})
    api = client.get("/api/v1/search", params={"q": query}, headers=auth).json()
    assert page.status_code == 200
    assert appids(page.text) == [g["appid"] for g in api["games"]]
    assert f'name="q" value="{html.escape(query.strip())}"' in page.text


def test_search_pages_forward_and_without_a_query_shows_the_box(site: Any) -> None:
    client, auth = site
    second = client.get("/search?q=quest&page=2")
    api = client.get("/api/v1/search?q=quest&page=2", headers=auth).json()
    assert appids(second.text) == [g["appid"] for g in api["games"]]
    assert rel_links(second.text)["prev"] == "/search?q=quest&amp;page=1"
    for path in ("/search", "/search?q=", "/search?q=%20%20"):
        empty = client.get(path)
        assert empty.status_code == 200 and "<h1>Search games</h1>" in empty.text
    long = client.get("/search", params={"q": "x" * 101})
    assert long.status_code == 400 and long.headers["content-type"] == HTML


def test_search_names_known_games_that_are_not_rated(
    client_factory: ClientFactory, with_not_rated: ObjectStorage, site: Any
) -> None:
    client, _ = client_factory(with_not_rated)
    html = client.get("/search?q=hades").text
    assert appids(html) == []
    demo = re.search(
        r'<li data-appid="(\d+)"><a href="/game/\1">Hades Demo</a> — not rated: not a game', html
    )
    assert demo is not None
    page = client.get(f"/game/{demo[1]}")  # its own page, with the reason: not a bare 404
    assert page.status_code == 200 and page.headers["content-type"] == HTML
    assert 'data-reason="not_a_game"' in page.text and "not a game" in page.text
    both = client.get("/search?q=rpg quest").text
    assert len(appids(both)) == 5 and "Rpg Quest Remastered" in both
    assert "too few reviews" in both
    without, _ = site  # a snapshot without the object: no not-rated section, no error
    assert 'id="not-rated"' not in without.get("/search?q=rpg quest").text


@pytest.mark.parametrize(
    ("change", "logged"),
    [
        (lambda s: publish_copy(s, "s1", "s2", **{NOT_RATED_SEARCH_KEY: b"[]"}), True),
        (lambda s: publish_without(s, "s1", "s2", NOT_RATED_SEARCH_KEY), False),
        (lambda s: None, False),
    ],
    ids=["stored-index-malformed", "built-before-the-stored-index", "stored-index"],
)
def test_unrated_names_are_found_whatever_name_index_the_snapshot_stores(
    client_factory: ClientFactory,
    caplog: pytest.LogCaptureFixture,
    change: Callable[[ObjectStorage], None],
    logged: bool,
) -> None:
    storage, _ = factories.publish_catalog(factories.small_catalog(), not_rated=NOT_RATED)
    change(storage)
    client, _ = client_factory(storage)
    html = client.get("/search?q=hades").text
    assert re.search(r'<a href="/game/\d+">Hades Demo</a> — not rated: not a game', html)
    warned = [r.getMessage() for r in caplog.records if r.name == "bangscore.pages"]
    assert [
        w.startswith("snapshot s2: malformed not-rated search index: TypeError(") for w in warned
    ] == ([True] if logged else [])
    assert all(w.endswith("; indexing the names instead") for w in warned)


def test_searches_waiting_on_the_unrated_names_share_their_one_build(
    client_factory: ClientFactory, with_not_rated: ObjectStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search that arrives while a snapshot's unrated names are being indexed waits for
    that build and takes its index: one build per snapshot, however many searches wait."""
    client, _ = client_factory(with_not_rated)
    assert client.get("/").status_code == 200  # the snapshot is loaded
    pages: Pages = client.app.state.pages  # type: ignore[attr-defined]
    snap = pages.source.current
    assert snap is not None
    builds: list[str] = []
    building, release = threading.Event(), threading.Event()
    build = snap.not_rated.name_index

    def held_build() -> SearchIndex | None:
        builds.append(snap.id)
        building.set()
        assert release.wait(10)
        return build()

    monkeypatch.setattr(snap.not_rated, "name_index", held_build)

    async def two_searches() -> tuple[UnratedNames, UnratedNames]:
        first = asyncio.ensure_future(pages.not_rated(snap))
        assert await anyio.to_thread.run_sync(building.wait, 10)  # it holds the lock
        second = asyncio.ensure_future(pages.not_rated(snap))
        await asyncio.sleep(0)  # its first step: the names not built, it waits on the lock
        assert not second.done()
        release.set()
        return await first, await second

    first, second = asyncio.run(two_searches())
    assert builds == [snap.id]
    assert second is first and first.index is not None


@pytest.mark.parametrize(
    "path",
    ["/nowhere", "/game/99999", "/game/abc", "/games/extra", "/docs/nope"],
    ids=["unknown-path", "unknown-game", "bad-appid", "under-games", "under-docs"],
)
def test_missing_pages_answer_html_and_the_api_json(site: Any, path: str) -> None:
    client, _ = site
    page = client.get(path)
    assert page.status_code == 404 and page.headers["content-type"] == HTML
    assert "<h1>Page not found</h1>" in page.text and 'action="/search"' in page.text
    api = client.get("/api/v1" + path)
    assert api.status_code in (401, 404)
    assert api.headers["content-type"] == "application/problem+json"


def test_post_to_a_page_answers_an_html_405(site: Any) -> None:
    client, _ = site
    answer = client.post("/games")
    assert answer.status_code == 405 and answer.headers["content-type"] == HTML
    assert answer.headers["allow"] == "GET, HEAD"


def test_favicon_is_served_and_not_counted(site: Any) -> None:
    client, _ = site
    before = client.get("/").headers["x-ratelimit-used"]
    for path in ("/favicon.svg", "/favicon.ico"):
        icon = client.get(path)
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
        assert icon.content.startswith(b"<svg")
    assert client.get("/docs").headers["x-ratelimit-used"] == str(int(before) + 1)


def test_the_stylesheet_is_linked_once_per_page_and_served_not_counted(site: Any) -> None:
    client, _ = site
    own = SiteRenderer(site_url=SITE, base_url=SITE).stylesheet
    link = f'<link rel="stylesheet" href="/style.css?v={style_version(own)}">'
    for path in ("/", "/games", "/search?q=quest", "/docs", "/game/10000/rpg-quest-0", "/x"):
        page = client.get(path).text
        assert page.count(link) == 1, path
        assert own.decode()[:200] not in page, path  # linked, not inlined
    used = client.get("/").headers["x-ratelimit-used"]
    sheet = client.get(f"/style.css?v={style_version(own)}")
    assert sheet.status_code == 200 and sheet.headers["content-type"] == "text/css; charset=utf-8"
    assert sheet.content == own
    assert sheet.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert sheet.headers["etag"] == etag_for(own)
    again = client.get("/style.css", headers={"If-None-Match": sheet.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == "no-cache"
    stale = client.get("/style.css?v=0123456789abcdef")
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert client.get("/docs").headers["x-ratelimit-used"] == str(int(used) + 1)


def test_pages_have_their_own_allowance_apart_from_the_api_and_keys(
    client_factory: ClientFactory, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> None:
    client, store = client_factory(small_snapshot[0], page_limit=4, anonymous_limit=3)
    key = add_key(store)
    auth = {"Authorization": f"Bearer {key}"}
    paths = ["/", "/games?genre=rpg", "/search?q=quest", "/game/10000"]
    for n, path in enumerate(paths, start=1):
        page = client.get(path, headers=auth, follow_redirects=False)  # a key is ignored
        assert page.status_code in (200, 301), path
        assert page.headers["x-ratelimit-limit"] == "4"
        assert page.headers["x-ratelimit-remaining"] == str(4 - n)
    refused = client.get("/games?page=2")
    assert refused.status_code == 429 and refused.headers["content-type"] == HTML
    assert "<h1>Too many page views today</h1>" in refused.text
    assert 0 < int(refused.headers["retry-after"]) <= 86_400
    assert refused.headers["cache-control"] == "no-store"
    assert client.get("/nowhere").status_code == 429  # a missing page counts too
    # The API's anonymous allowance and the key's count are untouched by page views.
    root = client.get("/api/v1")
    assert root.status_code == 200 and root.headers["x-ratelimit-remaining"] == "2"
    usage = client.get("/api/v1/usage", headers=auth).json()
    assert usage["used"] == 0


def test_a_revalidated_page_is_free(site: Any) -> None:
    client, _ = site
    first = client.get("/games?genre=rpg")
    again = client.get("/games?genre=rpg", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.headers["x-ratelimit-used"] == first.headers["x-ratelimit-used"]


def test_every_page_has_the_search_box_and_a_favicon(site: Any) -> None:
    client, _ = site
    for path in ("/", "/games", "/search?q=quest", "/docs", "/game/10000/rpg-quest-0", "/x"):
        html = client.get(path).text
        assert '<form class="site-search" role="search" method="get" action="/search">' in html
        assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in html


def test_search_lists_at_most_ten_unrated_apps(client_factory: ClientFactory) -> None:
    many = [
        NotRated(appid=500 + n, name=f"Zork Clone {n}", reason="too_few_reviews") for n in range(30)
    ]
    storage, _ = factories.publish_catalog(factories.small_catalog(), not_rated=many)
    client, _ = client_factory(storage)
    html = client.get("/search?q=zork").text
    assert len(re.findall(r'<li data-appid="\d+"><a href="/game/', html)) == MAX_UNRATED_SHOWN


def test_badge_and_about_pages(
    client_factory: ClientFactory, with_not_rated: ObjectStorage
) -> None:
    client, _ = client_factory(with_not_rated)
    game = client.get("/games").text
    appid = appids(game)[0]
    badge = client.get(f"/badge/{appid}.svg")
    assert badge.status_code == 200
    assert badge.headers["content-type"].startswith("image/svg+xml")
    assert badge.headers["cache-control"] == "public, max-age=86400"
    assert badge.text.startswith("<svg") and "BangScore" in badge.text
    again = client.get(f"/badge/{appid}.svg", headers={"If-None-Match": badge.headers["etag"]})
    assert again.status_code == 304
    assert client.get("/badge/1.svg").status_code == 404
    assert client.get("/badge/abc.svg").status_code == 404
    about = client.get("/about/score")
    assert about.status_code == 200 and "What is never published" in about.text
    assert 'id="dates"' in client.get("/games").text


def test_a_superseded_listing_s_page_links_its_edition(
    client_factory: ClientFactory, with_not_rated: ObjectStorage
) -> None:
    client, _ = client_factory(with_not_rated)
    page = client.get("/game/999002")
    assert page.status_code == client.get("/game/1145361").status_code
    assert page.headers["content-type"] == HTML
    assert 'data-reason="superseded"' in page.text and "replaced by a newer edition" in page.text
    edition = re.search(r'<p id="superseded-by">.*?<a href="([^"]+)">([^<]+)</a>', page.text)
    assert edition is not None
    assert edition[1] == "/game/10000/rpg-quest-0" and edition[2] == "Rpg Quest 0"
    # Any other reason names no edition.
    assert 'id="superseded-by"' not in client.get("/game/1145361").text


NOW_WORDS = re.compile(r"\b(now|today)\b", re.I)


def visible_text(page: str) -> str:
    """Given a page, return its text without markup, scripts or styles, spaces folded."""
    page = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_no_page_says_now_or_today_about_an_old_price(client_factory: ClientFactory) -> None:
    seen = dt.datetime(2026, 7, 24, 9, 0, tzinfo=dt.UTC)
    records = [
        factories.make_record(
            appid=601,
            name="Old Sale",
            price_observed_at=seen,
            price_usd=9.99,
            list_price_usd=19.99,
            discount_percent=50,
        ),
        factories.make_record(appid=602, name="Old Price", price_observed_at=seen),
    ]
    storage, _ = factories.publish_catalog(records)
    client, _ = client_factory(storage)
    home = client.get("/").text
    assert "Best value, prices as of 24 Jul 2026" in visible_text(home)
    assert re.search(r'id="on-sale-chip">On sale \(seen 24 Jul\)</a>', home)
    for path in ("/", "/games", "/games?on_sale=true", "/search?q=old"):
        text = visible_text(client.get(path).text)
        assert NOW_WORDS.findall(text) == [], path
    browse = client.get("/games").text
    assert re.findall(r'<small class="price-seen">([^<]*)</small>', browse) == ["24 Jul 2026"] * 2


@pytest.mark.parametrize(
    "path",
    ["/?adult=true", "/games?genre=rpg&adult=true", "/search?q=a&adult=true", "/docs?adult=true"],
)
def test_adult_true_is_kept_in_every_link_to_games(site: Any, path: str) -> None:
    client, _ = site
    page = client.get(path)
    assert page.status_code == 200
    links = re.findall(r'<a (?:[^>]*\s)?href="(/(?:games|search|game/)[^"]*)"', page.text)
    toggle = re.findall(r'id="adult-toggle" href="([^"]*)">([^<]*)<', page.text)
    kept = [h for h in links if h not in {t for t, _ in toggle}]
    assert kept and all("adult=true" in html.unescape(h) for h in kept), kept
    if path != "/docs?adult=true":  # the docs list no game: no toggle
        assert [text for _, text in toggle] == ["Hide adult games"]
        assert "adult=true" not in toggle[0][0]


def test_the_toggle_shows_adult_games_from_the_same_page(site: Any) -> None:
    client, _ = site
    page = client.get("/games?genre=rpg&page=1").text
    toggle = re.findall(r'id="adult-toggle" href="([^"]*)">([^<]*)<', page)
    assert toggle == [("/games?genre=rpg&amp;adult=true", "Show adult games")]
    shown = client.get(html.unescape(toggle[0][0]))
    assert shown.status_code == 200 and "Hide adult games" in shown.text


def test_a_game_page_with_adult_true_keeps_it_and_recomposes_its_box(
    site: Any, small_snapshot: tuple[ObjectStorage, list[ScoredGame]]
) -> None:
    client, _ = site
    games = small_snapshot[1]
    game = [g for g in games if g.genre == "rpg"][-1]
    url = f"/game/{game.record.appid}/{slugify(game.record.name)}"
    plain, adult = client.get(url).text, client.get(url + "?adult=true").text
    box = re.compile(r'<section id="better-box".*?</section><!--/better-box-->', re.S)
    # No adult game in this catalogue: the same box, its links keeping the toggle.
    assert box.search(plain) and box.search(adult)
    assert box.search(adult)[0].replace("?adult=true", "") == box.search(plain)[0]  # type: ignore[index]
    assert "Hide adult games" in adult and "Show adult games" in plain
    assert client.get(url + "?adult=maybe").status_code == 400


@pytest.mark.parametrize("path", ["/games?adult=yes", "/search?q=a&adult=1", "/?adult=false"])
def test_a_bad_adult_value_is_a_400_page(site: Any, path: str) -> None:
    client, _ = site
    page = client.get(path)
    assert page.status_code == 400 and page.headers["content-type"] == HTML
    assert "adult" in page.text


@pytest.fixture(scope="module")
def with_adult() -> tuple[ObjectStorage, dict[str, int]]:
    """Three RPGs at $10: an adult one and a plain one that score high, and a plain one that
    scores lower (its better-value box is where the toggle shows)."""
    rpg = {"tags": ("RPG",), "price_usd": 10.0, "list_price_usd": 10.0}
    records = [
        # 50,000 reviews: an adult game's opt-in sample weighs a stronger prior (score 6.0).
        factories.make_record(
            appid=701,
            name="Velvet Quest",
            review_score=0.97,
            review_count=50_000,
            content_descriptors=(3,),
            **rpg,
        ),
        factories.make_record(appid=702, name="Plain Quest", review_score=0.95, **rpg),
        factories.make_record(appid=703, name="Lesser Quest", review_score=0.6, **rpg),
    ]
    storage, games = factories.publish_catalog(records)
    return storage, {g.record.name: g.record.appid for g in games}


def box_appids(page: str) -> list[int]:
    box = re.search(r'<section id="better-box".*?</section><!--/better-box-->', page, re.S)
    assert box is not None
    return [int(a) for a in re.findall(r'href="/game/(\d+)/', box[0])]


def test_adult_games_are_hidden_until_turned_on_and_the_api_lists_them(
    client_factory: ClientFactory, with_adult: tuple[ObjectStorage, dict[str, int]]
) -> None:
    client, store = client_factory(with_adult[0])
    auth = {"Authorization": f"Bearer {add_key(store)}"}
    assert appids(client.get("/games").text) == [702, 703]
    assert appids(client.get("/games?adult=true").text) == [701, 702, 703]
    assert appids(client.get("/search?q=quest").text) == [702, 703]
    assert appids(client.get("/search?q=quest&adult=true").text) == [701, 702, 703]
    assert "Velvet Quest" not in client.get("/").text
    assert "Velvet Quest" in client.get("/?adult=true").text
    api = client.get("/api/v1/games", headers=auth).json()["games"]
    assert [(g["appid"], g["adult"]) for g in api] == [(701, True), (702, False), (703, False)]
    assert client.get("/api/v1/games?adult=true", headers=auth).status_code == 400
    lesser = "/game/703/lesser-quest"
    assert box_appids(client.get(lesser).text) == [702]
    assert box_appids(client.get(lesser + "?adult=true").text) == [701, 702]


# -- /rate: rate a list of games ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "appids", "ignored"),
    [
        pytest.param("620\n10, 570", [620, 10, 570], [], id="appids"),
        pytest.param(
            "https://store.steampowered.com/app/1145360/Hades/\nstore.steampowered.com/app/620",
            [1145360, 620],
            [],
            id="store links",
        ),
        pytest.param(
            "https://store.steampowered.com/app/620/?snr=1_7_7_230_150 620; 10",
            [620, 10],
            [],
            id="repeats once, query ignored",
        ),
        pytest.param("portal 2 -5 1234567890123", [2], ["portal", "-5", "1234567890123"], id="bad"),
        pytest.param("", [], [], id="empty"),
    ],
)
def test_appids_in_reads_appids_and_store_links(
    text: str, appids: list[int], ignored: list[str]
) -> None:
    assert appids_in(text) == (appids, ignored)


def test_rate_lists_every_game_pasted_in_that_order(site: Any) -> None:
    client, _ = site
    response = client.get(
        "/rate",
        params={"ids": "10702\nhttps://store.steampowered.com/app/10302/x/\n77, 999999999, wat"},
    )
    assert response.status_code == 200
    page = response.text
    assert appids(page) == [10702, 10302]
    assert "4 games asked: 2 rated, 1 not rated, 1 unknown." in visible_text(page)
    assert re.search(r'data-appid="77">.*not rated: ', page)
    assert "<code>999999999</code>" in page and "<code>wat</code>" in page
    assert 'class="row-verdict row-verdict-' in page
    assert "Rate a list" in client.get("/").text  # in every page's navigation


def test_rate_refuses_more_than_100_games_with_the_text_kept(site: Any) -> None:
    client, _ = site
    text = ",".join(str(n) for n in range(1, 102))
    response = client.get("/rate", params={"ids": text})
    assert response.status_code == 400
    assert "at most 100 games a list" in response.text
    assert f">{text}</textarea>" in response.text
    assert client.get("/rate?x=1").status_code == 400


@pytest.mark.parametrize(
    "spellings",
    [
        ["/games?genre=rpg&year_from=2012", "/games?year_from=02012&genre=RPG"],
        ["/search?q=quest", "/search?q=%20quest%20&page=1"],
        ["/rate?ids=10001,10002&adult=true", "/rate?adult=TRUE&ids=10001,10002"],
    ],
    ids=["browse", "search", "rate"],
)
def test_spellings_of_one_page_query_are_rendered_once(site: Any, spellings: list[str]) -> None:
    client, _ = site
    memo = client.app.state.source.current.pages

    def rendered() -> int:
        return sum(kind == "read" for kind, _ in memo.entries._data)

    before = rendered()
    bodies = {client.get(path).content for path in spellings}
    assert len(bodies) == 1
    assert rendered() == before + 1
    assert 0 < memo.size <= memo.entries.maxsize
