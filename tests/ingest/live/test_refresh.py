"""The ingest pipeline end to end over a local replay server: live answers re-resolved with the
previous records (ingest.live.layers), provenance and dates, refusals, resume, no network."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bangscore.ingest.catalog import read_catalog, write_catalog
from bangscore.ingest.live.adapters import Endpoints
from bangscore.ingest.live.http import RateLimit
from bangscore.ingest.live.refresh import IngestConfig, run_ingest
from bangscore.scoring.records import Catalog, GameRecord, NotRated, Sources
from tests.ingest.replay import Handler, ReplayFactory, fixture_json, ok

TODAY = dt.date(2025, 3, 1)
OLD = dt.date(2025, 1, 1)
NOW = dt.datetime(2025, 3, 1, 4, 0, tzinfo=dt.UTC)
MakeConfig = Callable[..., IngestConfig]
PORTAL, ALYX = 620, 546560
# Not rated in the previous catalog: stays not rated.
TINY = NotRated(appid=77, name="Tiny Game", reason="too_few_reviews", review_count=12)


def old_record(appid: int, name: str, **fields: Any) -> GameRecord:
    base: dict[str, Any] = {
        "appid": appid,
        "name": name,
        "price_usd": 5.0,
        "list_price_usd": 10.0,
        "discount_percent": 50,
        "review_score": 0.8,
        "review_count": 12_000,
        "owners_range": "old range",
        "historical_low_usd": 3.0,
        "main_story_hours": 7.0,
        "sources": Sources(
            storefront=OLD, player_stats=OLD, play_length=OLD, price_history=OLD, wiki=OLD
        ),
    }
    return GameRecord.model_validate(base | fields)


@pytest.fixture
def previous_catalog(tmp_path: Path) -> Path:
    path = tmp_path / "catalog.json.gz"
    games = (old_record(PORTAL, "Portal 2"), old_record(ALYX, "Half-Life: Alyx"))
    catalog = Catalog(
        created_at=NOW - dt.timedelta(days=60),
        origin="bundled dumps",
        games=games,
        not_rated=(TINY,),
    )
    write_catalog(catalog, path)
    return path


def source_routes(
    overrides: dict[tuple[str, str], Handler] | None = None,
) -> dict[tuple[str, str], Handler]:
    """Every live source, replaying recorded (or labelled hand-built) responses by appid."""
    review_page = fixture_json("reviews/app_reviews_page.json")
    empty_page = {"success": 1, "reviews": [], "cursor": review_page["cursor"]}

    def appdetails(q: dict[str, str], _: bytes) -> Any:
        if q["appids"] == str(PORTAL):
            return ok(fixture_json("storefront/appdetails_620_usd.json"))
        return ok({q["appids"]: {"success": False}})

    def reviews(q: dict[str, str], _: bytes) -> Any:
        if q["purchase_type"] == "all":
            return ok(
                {"success": 1, "query_summary": {"total_positive": 435000, "total_negative": 5100}}
            )
        if q["review_type"] in ("all", "negative") and q["cursor"] == "*":
            return ok(review_page)  # totals 1/13; three negatives under two hours
        return ok(empty_page)

    def steamspy(q: dict[str, str], _: bytes) -> Any:
        name = "appdetails_620" if q["appid"] == str(PORTAL) else "appdetails_unknown"
        return ok(fixture_json(f"steamspy/handbuilt_{name}.json"))

    def achievements(q: dict[str, str], _: bytes) -> Any:
        name = (
            "handbuilt_get_game_achievements_story"
            if q["appid"] == str(PORTAL)
            else "get_game_achievements_tf2"
        )
        return ok(fixture_json(f"achievements/{name}.json"))

    def lookup(q: dict[str, str], _: bytes) -> Any:
        name = "lookup_620" if q["appid"] == str(PORTAL) else "lookup_not_found"
        return ok(fixture_json(f"itad/handbuilt_{name}.json"))

    def shop_lookup(q: dict[str, str], body: bytes) -> Any:
        found = fixture_json("itad/handbuilt_lookup_620.json")["game"]["id"]
        return ok({key: found if key == f"app/{PORTAL}" else None for key in json.loads(body)})

    def cargo(q: dict[str, str], _: bytes) -> Any:
        name = "cargoquery_620" if f'"{PORTAL}"' in q["where"] else "cargoquery_empty"
        return ok(fixture_json(f"pcgw/handbuilt_{name}.json"))

    routes: dict[tuple[str, str], Handler] = {
        ("GET", "/api/appdetails"): appdetails,
        ("GET", f"/appreviews/{PORTAL}"): reviews,
        ("GET", f"/appreviews/{ALYX}"): lambda q, b: ok(
            {
                "success": 1,
                "query_summary": {"total_positive": 0, "total_negative": 0},
                "reviews": [],
            }
        ),
        ("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(
            fixture_json("storefront/get_items_620.json")
        ),
        ("GET", "/IStoreService/GetTagList/v1/"): lambda q, b: ok(
            fixture_json("storefront/handbuilt_tag_list.json")
        ),
        ("GET", "/api.php"): steamspy,
        ("GET", "/IPlayerService/GetGameAchievements/v1/"): achievements,
        ("POST", "/api/search"): lambda q, b: ok(fixture_json("hltb/search_half_life_alyx.json")),
        ("GET", "/games/lookup/v1"): lookup,
        ("POST", "/lookup/id/shop/61/v1"): shop_lookup,
        ("POST", "/games/historylow/v1"): lambda q, b: ok(
            fixture_json("itad/handbuilt_historylow_620.json")
        ),
        ("GET", "/w/api.php"): cargo,
    }
    routes.update(overrides or {})
    return routes


@pytest.fixture
def make_config(previous_catalog: Path, tmp_path: Path) -> MakeConfig:
    def make(endpoints: Endpoints, **overrides: Any) -> IngestConfig:
        settings: dict[str, Any] = {
            "catalog_path": previous_catalog,
            "cache_dir": tmp_path / "cache",
            "itad_api_key": "test-key",
            "review_depth": 10,
            "endpoints": endpoints,
            "rate_limits": {},
            "default_rate_limit": RateLimit(1000, 1.0),
            "retry_attempts": 2,
            "progress": False,
        }
        return IngestConfig(**(settings | overrides))

    return make


def endpoints_at(base: str) -> Endpoints:
    """Given one base URL (a replay server's), return endpoints that all point at it."""
    return Endpoints(store=base, steam_api=base, steamspy=base, hltb=base, itad=base, pcgw=base)


ADAPTERS = (
    "store_items",
    "storefront",
    "reviews",
    "steamspy",
    "achievements",
    "hltb",
    "itad",
    "pcgw",
)


def ingest(config: IngestConfig, **kwargs: Any) -> Any:
    return run_ingest(config, today=TODAY, now=NOW, sleep=lambda seconds: None, **kwargs)


def test_full_ingest_resolves_every_source(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    server = replay(source_routes())
    report = ingest(make_config(endpoints_at(server.base_url)))
    assert report.written, report.summary()
    assert {name: o.status for name, o in report.outcomes.items()} == dict.fromkeys(ADAPTERS, "ok")
    # The batch settled Portal 2; Alyx, left out of it, alone took the per-game appdetails.
    assert (report.outcomes["store_items"].updated, report.outcomes["storefront"].no_data) == (1, 1)
    assert [h.query["appids"] for h in server.hits if h.path == "/api/appdetails"] == [str(ALYX)]
    catalog = read_catalog(previous_catalog)
    assert (catalog.origin, catalog.created_at, catalog.not_rated) == ("live ingest", NOW, (TINY,))
    portal, alyx = catalog.games
    # Storefront: the recorded GetItems (US cents, an 80% sale ending 9 Oct 2025, tags).
    assert (portal.price_usd, portal.list_price_usd, portal.discount_percent) == (1.99, 9.99, 80)
    assert portal.price_history[-1].discount_end == dt.datetime(2025, 10, 9, 17, 0, tzinfo=dt.UTC)
    assert (portal.review_count, portal.review_score) == (443_211, 0.98)
    assert portal.tags == ("Puzzle", "Co-op", "First-Person", "Sci-fi", "Comedy")
    assert (portal.metacritic, portal.release_year) == (None, 2011)
    # Reviews: the recorded page's three negatives, all written under two hours.
    assert portal.reviews is not None
    assert (portal.reviews.sample, portal.reviews.early_window_reviews) == (3, 3)
    assert portal.reviews.sampled_on == TODAY
    # Player stats, price history, wiki (hand-built responses).
    assert (portal.owners_range, portal.median_playtime_hours) == ("20,000,000 .. 50,000,000", 10.9)
    assert portal.finish_rate == 0.385
    assert portal.historical_low_usd == 0.99
    # GetItems names no credits: the wiki fills the gap.
    assert portal.developer == "Valve Corporation"
    # The previous catalogue's store categories (Single-player, Co-op) and the replayed tags
    # ("Co-op" second) make this Portal 2 multiplayer-first (scoring.multiplayer.multiplayer_first):
    # its length is how long players play, live SteamSpy's median, not HLTB's story.
    assert (portal.main_story_hours, portal.length_source) == (10.9, "playtime")
    assert {k: (p.source, p.date) for k, p in portal.provenance.items()} == {
        "developer": ("live pcgw", TODAY),
        "finish_rate": ("live achievements", TODAY),
        "historical_low_usd": ("live itad", TODAY),
        "length_hours": ("live steamspy", TODAY),
        "median_playtime_hours": ("live steamspy", TODAY),
        "name": ("live store_items", TODAY),
        "price_usd": ("live store_items", TODAY),
        "publisher": ("live pcgw", TODAY),
        "release_year": ("live store_items", TODAY),
        "review_count": ("live store_items", TODAY),
        "review_score": ("live store_items", TODAY),
        "tags": ("live store_items", TODAY),
    }
    # Dates follow provenance: the wiki filled the credits, so it dates them.
    assert portal.sources == Sources(
        storefront=TODAY, player_stats=TODAY, price_history=TODAY, wiki=TODAY
    )
    assert portal.estimated == ("finish_rate",)
    # Alyx: delisted on the (replayed) storefront, so its storefront values and date stay; its
    # old sale price is no longer current at the ingest time, so the list price is shown.
    assert (alyx.price_usd, alyx.list_price_usd, alyx.discount_percent) == (10.0, 10.0, 0)
    assert alyx.sources.storefront == OLD
    assert (alyx.main_story_hours, alyx.completionist_hours) == (12.1, 18.3)
    assert alyx.sources.play_length == TODAY
    assert alyx.provenance["length_hours"].source == "live hltb"
    assert (alyx.historical_low_usd, alyx.sources.price_history) == (3.0, OLD)
    assert alyx.reviews is not None and alyx.reviews.sample == 0


def test_game_refused_by_fresh_values_moves_to_not_rated(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    healthy = source_routes()
    details = fixture_json("storefront/appdetails_620_usd.json")[str(PORTAL)]
    dlc = details | {"data": details["data"] | {"type": "dlc", "steam_appid": ALYX}}

    def appdetails(q: dict[str, str], b: bytes) -> Any:
        if q["appids"] == str(ALYX):
            return ok({str(ALYX): dlc})
        return healthy[("GET", "/api/appdetails")](q, b)

    server = replay(source_routes({("GET", "/api/appdetails"): appdetails}))
    report = ingest(make_config(endpoints_at(server.base_url)), sources=["storefront", "hltb"])
    assert report.written, report.summary()
    assert report.not_rated == {"not_a_game": 1}
    assert "no longer rated: 1 (not_a_game 1)" in report.summary()
    # A game refused on the way is not asked for by the later adapters.
    assert (report.outcomes["hltb"].skipped, report.outcomes["hltb"].no_data) == (1, 1)
    catalog = read_catalog(previous_catalog)
    assert [g.appid for g in catalog.games] == [PORTAL]
    # The replayed review summary of Alyx counts no reviews: review_count 0 is left out.
    assert catalog.not_rated == (
        TINY,
        NotRated(appid=ALYX, name="Portal 2", reason="not_a_game", review_count=None),
    )


def test_invalid_fresh_value_is_an_error_and_keeps_the_record(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    details = fixture_json("storefront/appdetails_620_usd.json")
    details[str(PORTAL)]["data"]["metacritic"] = {"score": 101}
    server = replay(source_routes({("GET", "/api/appdetails"): lambda q, b: ok(details)}))
    report = ingest(make_config(endpoints_at(server.base_url)), sources=["storefront"])
    outcome = report.outcomes["storefront"]
    assert (outcome.status, outcome.errors, outcome.updated, outcome.no_data) == ("ok", 1, 0, 1)
    assert "appid 620: ValueError" in outcome.message and "metacritic" in outcome.message
    assert report.written
    portal = read_catalog(previous_catalog).games[0]
    assert portal == old_record(PORTAL, "Portal 2")


def test_no_network_names_sources_and_keeps_catalog(
    make_config: MakeConfig, previous_catalog: Path
) -> None:
    before = previous_catalog.read_bytes()
    report = ingest(make_config(endpoints_at("http://127.0.0.1:1")))
    assert not report.written
    assert report.outcomes["storefront"].status == "skipped"
    assert report.unreachable == [
        "store_items",
        "reviews",
        "steamspy",
        "achievements",
        "hltb",
        "itad",
        "pcgw",
    ]
    summary = report.summary()
    assert summary.startswith("could not reach: store_items (127.0.0.1: ConnectError")
    assert "previous values of those sources are kept with their dates" in summary
    assert "NOT written (last good catalog kept)" in summary
    assert previous_catalog.read_bytes() == before


def test_one_unreachable_source_keeps_its_values_and_dates(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    server = replay(source_routes())
    endpoints = Endpoints(
        store=server.base_url,
        steam_api=server.base_url,
        steamspy=server.base_url,
        hltb=server.base_url,
        itad="http://127.0.0.1:1",
        pcgw=server.base_url,
    )
    # Without the batch, whose 80% sale would be the new historical low.
    sources = [name for name in ADAPTERS if name != "store_items"]
    report = ingest(make_config(endpoints), sources=sources)
    assert report.written
    assert report.unreachable == ["itad"]
    portal = read_catalog(previous_catalog).games[0]
    assert (portal.historical_low_usd, portal.sources.price_history) == (3.0, OLD)
    assert portal.provenance["historical_low_usd"].source == "previous catalog price_history"
    assert portal.sources.storefront == TODAY


def test_partial_ingest_is_not_written_and_rerun_resumes(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    before = previous_catalog.read_bytes()
    healthy = source_routes()

    def steamspy_dies_after_first_game(q: dict[str, str], b: bytes) -> Any:
        if q["appid"] == str(ALYX):
            return 503, {"Retry-After": "1"}, b"{}"
        return healthy[("GET", "/api.php")](q, b)

    broken = replay(source_routes({("GET", "/api.php"): steamspy_dies_after_first_game}))
    config = make_config(endpoints_at(broken.base_url))
    report = ingest(config)
    assert report.outcomes["steamspy"].status == "failed"
    assert not report.written
    assert "partial ingest (steamspy failed)" in report.reason
    assert previous_catalog.read_bytes() == before
    # The host recovers; the rerun the same day resumes: everything fetched before comes from
    # the cache, and only the request that failed goes over the wire again.
    broken.routes[("GET", "/api.php")] = healthy[("GET", "/api.php")]
    sent_before = len(broken.hits)
    rerun = ingest(config)
    assert rerun.written, rerun.summary()
    resumed = broken.hits[sent_before:]
    assert [(h.path, h.query.get("appid")) for h in resumed] == [("/api.php", str(ALYX))]
    assert rerun.network_requests == 1
    assert read_catalog(previous_catalog).games[0].owners_range == "20,000,000 .. 50,000,000"


def test_rerun_same_day_refetches_nothing(replay: ReplayFactory, make_config: MakeConfig) -> None:
    server = replay(source_routes())
    config = make_config(endpoints_at(server.base_url))
    first = ingest(config)
    sent = len(server.hits)
    second = ingest(config)
    assert (first.written, second.written) == (True, True)
    assert len(server.hits) == sent
    # The first run already read the tag list a second time from its own cache.
    assert (second.network_requests, second.cache_hits) == (
        0,
        first.network_requests + first.cache_hits,
    )


def test_sources_limit_and_since(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    server = replay(source_routes())
    config = make_config(endpoints_at(server.base_url))
    report = ingest(config, sources=["steamspy"], limit=1)
    assert list(report.outcomes) == ["steamspy"]
    assert [h.query["appid"] for h in server.hits] == [str(PORTAL)]
    portal = read_catalog(previous_catalog).games[0]
    assert portal.provenance["median_playtime_hours"].date == TODAY
    # Portal holds SteamSpy values dated TODAY: --since TODAY skips it; Alyx (OLD) is tried.
    again = ingest(config, sources=["steamspy"], since=TODAY)
    assert (again.outcomes["steamspy"].skipped, again.outcomes["steamspy"].no_data) == (1, 1)
    assert [h.query["appid"] for h in server.hits] == [str(PORTAL), str(ALYX)]


def test_itad_without_key_is_skipped_not_failed(
    replay: ReplayFactory, make_config: MakeConfig
) -> None:
    server = replay(source_routes())
    report = ingest(
        make_config(endpoints_at(server.base_url), itad_api_key=None), sources=["itad", "pcgw"]
    )
    assert report.outcomes["itad"].status == "skipped"
    assert report.outcomes["itad"].message == "no API key configured"
    assert report.written
    assert not any(h.path.startswith("/games/") for h in server.hits)


def test_unknown_source_is_refused(make_config: MakeConfig) -> None:
    with pytest.raises(ValueError, match="unknown sources"):
        ingest(make_config(Endpoints()), sources=["steamdb"])


def test_app_list_sends_changed_games_to_appdetails_and_counts_new_apps(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    def page(appid: int, more: bool) -> dict[str, Any]:
        app = {"appid": appid, "name": "x", "last_modified": 1740000000, "price_change_number": 2}
        return {"apps": [app], "have_more_results": more, "last_appid": appid}

    pages = {"0": page(PORTAL, True), str(PORTAL): page(3_000_001, False)}

    def app_list(q: dict[str, str], _: bytes) -> Any:
        assert q["if_modified_since"] == str(int((NOW - dt.timedelta(days=60)).timestamp()))
        return ok({"response": pages[q["last_appid"]]})

    server = replay(source_routes({("GET", "/IStoreService/GetAppList/v1/"): app_list}))
    config = make_config(endpoints_at(server.base_url), steam_api_key="steam-secret")
    report = ingest(config, sources=["store_items", "storefront"])
    assert report.written, report.summary()
    listed = report.outcomes["app_list"]
    assert (listed.status, listed.updated, listed.message) == (
        "ok",
        1,
        "1 new apps not in the catalogue",
    )
    # Portal 2 changed on the store: appdetails as well as the batch; Alyx, left out, too.
    asked = [h.query["appids"] for h in server.hits if h.path == "/api/appdetails"]
    assert asked == [str(PORTAL), str(ALYX)]
    portal = read_catalog(previous_catalog).games[0]
    # appdetails' fields; the batch's price (its layer answered first, the same day).
    assert (portal.metacritic, portal.price_usd) == (95, 1.99)


def test_an_api_key_never_reaches_a_report(replay: ReplayFactory, make_config: MakeConfig) -> None:
    routes = source_routes({("POST", "/lookup/id/shop/61/v1"): lambda q, b: (403, {}, b"{}")})
    server = replay(routes)
    report = ingest(make_config(endpoints_at(server.base_url)), sources=["itad"])
    assert report.unreachable == ["itad"]
    assert "403" in report.summary() and "test-key" not in report.summary()


def test_each_night_adds_its_observation_to_the_price_history(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    recorded = fixture_json("storefront/get_items_620.json")
    cents = {"final": "199"}

    def items(q: dict[str, str], _: bytes) -> Any:
        answer = json.loads(json.dumps(recorded))
        option = answer["response"]["store_items"][0]["best_purchase_option"]
        option["final_price_in_cents"] = cents["final"]
        option["discount_pct"] = round(100 * (1 - int(cents["final"]) / 999))
        return ok(answer)

    server = replay(source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): items}))
    config = make_config(endpoints_at(server.base_url))
    nights = [
        (TODAY, "199"),
        (TODAY + dt.timedelta(days=1), "999"),
        (TODAY + dt.timedelta(days=2), "999"),
    ]
    for night, final in nights:
        cents["final"] = final
        at = dt.datetime.combine(night, dt.time(4), tzinfo=dt.UTC)
        report = run_ingest(
            config, sources=["store_items"], today=night, now=at, sleep=lambda s: None
        )
        assert report.written, report.summary()
    history = read_catalog(previous_catalog).games[0].price_history
    # The previous catalogue's point, the sale, its end, and the newest observation (an
    # unchanged price is kept only as the newest: the next night replaces it).
    assert [(p.date, p.price_usd, p.discount_percent) for p in history] == [
        (OLD, 5.0, 50),
        (TODAY, 1.99, 80),
        (TODAY + dt.timedelta(days=1), 9.99, 0),
        (TODAY + dt.timedelta(days=2), 9.99, 0),
    ]
    # Rerunning the last night (from the cache) adds nothing.
    at = dt.datetime.combine(nights[-1][0], dt.time(4), tzinfo=dt.UTC)
    run_ingest(config, sources=["store_items"], today=nights[-1][0], now=at, sleep=lambda s: None)
    assert read_catalog(previous_catalog).games[0].price_history == history


def test_a_source_that_answers_not_found_for_every_game_failed(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    # 404 is not fatal (one game's page may be gone); every game's being gone is a failure.
    before = previous_catalog.read_bytes()
    server = replay(source_routes({("GET", "/api.php"): lambda q, b: (404, {}, b"{}")}))
    report = ingest(make_config(endpoints_at(server.base_url)), sources=["steamspy"])
    outcome = report.outcomes["steamspy"]
    assert (outcome.status, outcome.errors, outcome.updated, outcome.no_data) == ("failed", 2, 0, 0)
    assert not report.written
    assert previous_catalog.read_bytes() == before


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        pytest.param({"response": {"store_items": "none"}}, "TypeError", id="items-not-a-list"),
        pytest.param(
            {"response": {"store_items": [{"success": 1, "name": "x", "tags": [{"weight": 3}]}]}},
            "KeyError",
            id="tag-without-id",
        ),
    ],
)
def test_a_malformed_batch_answer_counts_every_game_of_the_batch(
    replay: ReplayFactory,
    make_config: MakeConfig,
    previous_catalog: Path,
    answer: dict[str, Any],
    error: str,
) -> None:
    before = previous_catalog.read_bytes()
    routes = source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(answer)})
    server = replay(routes)
    report = ingest(make_config(endpoints_at(server.base_url)), sources=["store_items"])
    outcome = report.outcomes["store_items"]
    assert (outcome.status, outcome.errors, outcome.updated) == ("failed", 2, 0)
    assert outcome.message.startswith(f"last error: batch from {PORTAL}: {error}")
    assert not report.written and previous_catalog.read_bytes() == before


@pytest.mark.parametrize(
    ("reply", "status", "message", "written"),
    [
        # Unreachable, the list is only a hint: the batch's catalogue is written.
        pytest.param((403, {}, b"{}"), "unreachable", "403", True, id="refused"),
        # A malformed answer is a failed source: the catalogue waits for a rerun.
        pytest.param(ok({"response": {"apps": 5}}), "failed", "TypeError", False, id="malformed"),
    ],
)
def test_an_app_list_that_fails_flags_nothing_and_the_batch_still_runs(
    replay: ReplayFactory,
    make_config: MakeConfig,
    previous_catalog: Path,
    reply: tuple[int, dict[str, str], bytes],
    status: str,
    message: str,
    written: bool,
) -> None:
    server = replay(source_routes({("GET", "/IStoreService/GetAppList/v1/"): lambda q, b: reply}))
    config = make_config(endpoints_at(server.base_url), steam_api_key="steam-secret")
    report = ingest(config, sources=["store_items", "storefront"])
    listed = report.outcomes["app_list"]
    assert (listed.status, listed.updated) == (status, 0)
    assert message in listed.message and "steam-secret" not in report.summary()
    assert report.outcomes["store_items"].status == "ok"
    assert report.written is written, report.summary()
    # Nothing flagged by the list: appdetails only for what the batch could not settle.
    asked = [h.query["appids"] for h in server.hits if h.path == "/api/appdetails"]
    assert str(PORTAL) not in asked


@pytest.mark.parametrize(
    ("field", "cents"),
    [
        pytest.param("final_price_in_cents", "-199", id="negative-price"),
        pytest.param("original_price_in_cents", "-999", id="negative-list-price"),
    ],
)
def test_a_batch_value_a_record_refuses_counts_against_that_game_only(
    replay: ReplayFactory,
    make_config: MakeConfig,
    previous_catalog: Path,
    field: str,
    cents: str,
) -> None:
    answer = fixture_json("storefront/get_items_620.json")
    answer["response"]["store_items"][0]["best_purchase_option"][field] = cents
    routes = source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(answer)})
    report = ingest(make_config(endpoints_at(replay(routes).base_url)), sources=["store_items"])
    outcome = report.outcomes["store_items"]
    assert (outcome.errors, outcome.updated) == (1, 0)
    assert outcome.message.startswith(f"last error: appid {PORTAL}: ")
    assert read_catalog(previous_catalog).games[0] == old_record(PORTAL, "Portal 2")


# -- implausible batches (issue 36) ------------------------------------------------------------


def portal_item(**changes: Any) -> dict[str, Any]:
    """The recorded GetItems entry of Portal 2, with fields replaced."""
    item: dict[str, Any] = fixture_json("storefront/get_items_620.json")["response"]["store_items"][
        0
    ]
    copied: dict[str, Any] = json.loads(json.dumps(item))
    return copied | changes


def priced(item: dict[str, Any], cents: int) -> dict[str, Any]:
    option = dict(item["best_purchase_option"])
    option["final_price_in_cents"] = str(cents)
    option["original_price_in_cents"] = str(max(cents, int(option["original_price_in_cents"])))
    return item | {"best_purchase_option": option}


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        pytest.param({"response": {}}, "answered no item", id="empty-answer"),
        pytest.param({"response": {"store_items": []}}, "answered no item", id="no-items"),
        pytest.param(
            {"response": {"store_items": [portal_item(), priced(portal_item(), 1)]}},
            "more than once",
            id="duplicate-appids",
        ),
    ],
)
def test_an_implausible_batch_is_refused_and_the_last_good_catalogue_kept(
    replay: ReplayFactory,
    make_config: MakeConfig,
    previous_catalog: Path,
    answer: dict[str, Any],
    message: str,
) -> None:
    before = previous_catalog.read_bytes()
    routes = source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(answer)})
    report = ingest(make_config(endpoints_at(replay(routes).base_url)), sources=["store_items"])
    outcome = report.outcomes["store_items"]
    assert outcome.status == "failed" and message in outcome.message, report.summary()
    assert not report.written
    assert previous_catalog.read_bytes() == before  # prices_as_of and every price unchanged


def test_a_price_outside_0_to_1000_usd_is_refused_for_that_game(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    answer = {"response": {"store_items": [priced(portal_item(), 99_999_999_999)]}}
    routes = source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(answer)})
    report = ingest(make_config(endpoints_at(replay(routes).base_url)), sources=["store_items"])
    outcome = report.outcomes["store_items"]
    assert (outcome.errors, outcome.updated) == (1, 0)
    assert "outside 0-1000" in outcome.message
    assert read_catalog(previous_catalog).games[0] == old_record(PORTAL, "Portal 2")


def test_many_prices_moving_tenfold_at_once_refuse_the_batch(
    replay: ReplayFactory, make_config: MakeConfig, tmp_path: Path
) -> None:
    appids = [620, 630, 640, 650, 660, 670]
    path = tmp_path / "six.json.gz"
    games = tuple(old_record(a, f"Game {a}") for a in appids)
    write_catalog(Catalog(created_at=NOW - dt.timedelta(days=60), origin="x", games=games), path)
    before = path.read_bytes()
    # $5.00 each before; $500.00 each now: a decimal point lost upstream, not 6 real rises.
    items = [priced(portal_item(appid=a, name=f"Game {a}"), 50_000) for a in appids]
    answer = {"response": {"store_items": items}}
    routes = source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(answer)})
    config = make_config(endpoints_at(replay(routes).base_url), catalog_path=path)
    report = ingest(config, sources=["store_items"])
    outcome = report.outcomes["store_items"]
    assert outcome.status == "failed" and "prices past 10x" in outcome.message, report.summary()
    assert path.read_bytes() == before


def test_control_and_bidi_characters_are_removed_from_names_at_ingest(
    replay: ReplayFactory, make_config: MakeConfig, previous_catalog: Path
) -> None:
    hostile = "Portal\u202e 2\x00\x1b\x07\u2066"
    answer = {"response": {"store_items": [portal_item(name=hostile)]}}
    routes = source_routes({("GET", "/IStoreBrowseService/GetItems/v1/"): lambda q, b: ok(answer)})
    report = ingest(make_config(endpoints_at(replay(routes).base_url)), sources=["store_items"])
    assert report.written, report.summary()
    [portal] = [g for g in read_catalog(previous_catalog).games if g.appid == PORTAL]
    assert portal.name == "Portal 2"
