"""What game pages show beyond the wire record: the chart, drivers, the length's source and the
better-value games of the same genre."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import orjson
import pytest

from bangscore.build.game_pages import price_chart, score_at_price
from bangscore.build.wire import detail_record, list_item
from bangscore.contract.objects import detail_key, game_page_key
from bangscore.manifest import read_body, read_manifest
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.value import SCORE_VERSION
from bangscore.scoring.verdict import day
from bangscore.site.chart import chart_prices
from bangscore.site.labels import (
    driver_label,
    driver_reasons,
    length_source_label,
    review_count_label,
)
from bangscore.site.render import SiteRenderer
from bangscore.storage import ObjectStorage
from tests.support.factories import SITE


def page_of(storage: ObjectStorage, appid: int) -> str:
    entry = read_manifest(storage, "s1").entries[game_page_key(appid)]
    return read_body(storage, entry).decode()


def test_unknown_driver_names_still_read_as_words() -> None:
    assert driver_label("new_signal") == "New signal"


@pytest.mark.parametrize(
    ("detail", "expected"),
    [
        ({"length_source": "hltb"}, "main-story time from a play-length source"),
        (
            {"length_source": "playtime_estimate"},
            "estimated from how long the game's reviewers play",
        ),
        ({"estimated": ["length"]}, "an estimate"),
        ({"estimated": []}, None),
    ],
    ids=["hltb", "playtime-estimate", "estimated-before-length-source", "measured"],
)
def test_length_source_label(detail: dict[str, Any], expected: str | None) -> None:
    assert length_source_label(detail) == expected


def test_the_chart_reads_the_score_curve_sampled_once_at_its_prices(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    for game in small_snapshot[1]:
        detail = detail_record(game, SITE)
        at = score_at_price(game, detail)
        marked = (
            detail["price_usd"],
            detail["historical_low_usd"],
            detail["worth_it_at_usd"],
            detail["becomes_banger_at_usd"],
        )
        prices = chart_prices(*marked)
        assert [at(p) for p in prices] == [game.curve.at(p) for p in prices]
        assert at(detail["price_usd"]) == game.score
        with pytest.raises(KeyError):  # nothing outside the samples: no call into the model
            at(prices[-1] + 1.0)


def test_game_page_has_chart_and_better_value_games_of_its_genre(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    storage, games = small_snapshot
    rpgs = [g for g in games if g.genre == "rpg"]
    last = rpgs[-1]
    html = page_of(storage, last.record.appid)
    assert '<svg xmlns="http://www.w3.org/2000/svg"' in html
    assert f"price ${last.record.price_usd:,.2f}" in html
    better = re.search(r'<ol id="better-list">(.*?)</ol>', html, re.S)
    assert better is not None
    names = re.findall(r">([^<]+)</a>", better[1])
    cap = last.record.price_usd * 1.3 + 0.005
    higher = [g for g in rpgs if g.bang_score > last.bang_score and g.record.price_usd <= cap]
    assert names == [g.record.name for g in higher[:5]]  # strictly higher, best first
    assert 'href="/game/' in better[1]  # root-relative: works on whatever host serves it
    top = page_of(storage, rpgs[0].record.appid)
    assert "No RPG game scores higher at" in top


def test_game_page_renders_drivers_length_source_and_score_version_when_present(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    game = small_snapshot[1][0]
    detail = detail_record(game, SITE) | {
        "drivers": {"raises": ["reviews"], "lowers": ["price", "estimated_length"], "neutral": []},
        "length_source": "playtime_estimate",
        "score_version": "2026.11-b",
    }
    site = SiteRenderer(site_url=SITE, base_url=SITE)
    html = site.game_page(detail, charts=price_chart(game, detail), better=[]).decode()
    drivers = html[html.index('id="drivers"') :]
    assert "<h3>Raises the score</h3>" in drivers
    assert "<li><strong>Player reviews</strong>: " in drivers
    price = detail["price_usd"]
    per_hour = round(price / detail["length_hours"], 2)
    assert (
        f"<li><strong>Price</strong>: ${price:,.2f} for {detail['length_hours']:.1f} h of main "
        f"story is ${per_hour:,.2f} an hour.</li><li><strong>Length is an estimate</strong>: "
        in drivers
    )
    assert "estimated from how long the game&#39;s reviewers play" in html
    assert "score version 2026.11-b" in html
    # Every record of the pipeline carries its own drivers and version.
    own = site.game_page(detail_record(game, SITE), charts=(), better=[]).decode()
    assert 'id="drivers"' in own and f"score version {SCORE_VERSION}" in own


def test_home_page_leads_into_browse_and_search(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    games = small_snapshot[1]
    site = SiteRenderer(site_url=SITE, base_url=SITE)
    html = site.home_page([list_item(g, SITE) for g in games[:25]], len(games)).decode()
    assert 'href="/games" id="browse-all"' in html
    assert 'href="/games?genre=rpg"' in html and 'href="/games?on_sale=true"' in html
    assert 'action="/search"' in html and 'name="q"' in html
    assert html.count('<tr data-appid="') == 25


@pytest.mark.parametrize(
    ("listed", "hidden", "says"),
    [
        pytest.param(
            36_467,
            3_900,
            "in 36,467 rows (3,900 adult games hidden, 429 chapters and episodes listed on "
            "their series' row)",
            id="both",
        ),
        pytest.param(40_367, 0, "in 40,367 rows (429 chapters and episodes", id="adult-shown"),
        pytest.param(40_796, 0, "Browse and filter all 40,796 games</a>", id="every-game"),
    ],
)
def test_the_home_page_says_why_browsing_shows_fewer_rows_than_games(
    listed: int, hidden: int, says: str
) -> None:
    # Issue 48: "all 40,796 games" led to a browse of 36,467 rows.
    site = SiteRenderer(site_url=SITE, base_url=SITE)
    html = site.home_page([], 40_796, listed=listed, adult_hidden=hidden).decode()
    assert "rates 40,796 PC games" in html
    assert says in " ".join(re.sub(r"<span[^>]*>|</span>", "", html).split())


def test_a_list_names_a_series_and_its_chapters(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    games = small_snapshot[1]
    site = SiteRenderer(site_url=SITE, base_url=SITE)
    items = [list_item(g, SITE) for g in games[:3]]
    items[0]["series"] = {"name": "Higurashi When They Cry Hou", "parts": 8}
    html = site.home_page(items, len(games)).decode()
    assert html.count("8 chapters</small>") == 1
    assert 'title="Higurashi When They Cry Hou"' in html


@pytest.mark.parametrize(
    ("extra", "flags", "reviews", "price_line"),
    [
        pytest.param({}, [], "1,000", "$19.99 on", id="no-flag"),
        pytest.param(
            {"early_access": True, "provisional": True, "provisional_reasons": ["few_reviews"]},
            ["Early Access", "Provisional: fewer than 50 reviews"],
            "1,000",
            "$19.99 on",
            id="early-access-and-few-reviews",
        ),
        pytest.param(
            {
                "provisional": True,
                "provisional_reasons": ["estimated_length", "stale_price"],
                "price_observed_at": "2025-01-01T00:00:00Z",
                "adult": True,
                "estimated": ["review_count"],
            },
            ["Provisional: estimated length, price last seen 1 Jan 2025", "Adult"],
            "1,000+",
            "$19.99, last seen 1 Jan 2025",
            id="capped-sample-and-a-stale-price",
        ),
        pytest.param(
            {"ended_sale_usd": 7.99, "ended_sale_at": "2026-07-03"},
            [],
            "1,000",
            "list price $19.99; ",
            id="ended-sale",
        ),
    ],
)
def test_game_page_header_shows_flags_why_provisional_and_an_ended_sale(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
    extra: dict[str, Any],
    flags: list[str],
    reviews: str,
    price_line: str,
) -> None:
    game = next(g for g in small_snapshot[1] if g.record.price_usd == 19.99)
    detail = {**detail_record(game, SITE), "review_count": 1000, "estimated": [], **extra}
    html = SiteRenderer(site_url=SITE, base_url=SITE).game_page(detail, charts=(), better=[])
    page = html.decode()
    shown = re.findall(r'<li class="flag flag-[\w-]+">([^<]*)</li>', page)
    assert shown == flags
    cell = re.search(r'<td id="reviews">\d+% of its ([\d,+]+) reviews \(lifetime', page)
    assert cell is not None and cell[1] == reviews
    line = re.search(r'<p id="price-line">(.*?) · ', page)[1]  # type: ignore[index]
    assert line.startswith(price_line)
    if "ended_sale_usd" in extra:
        assert "$7.99 in the Summer Sale seen 3 Jul 2026, since ended" in line


@pytest.mark.parametrize(
    ("source", "length", "price"),
    [
        pytest.param(
            "playtime",
            "Players play it 56.2 h; a typical Shooter game takes 4.4 h.",
            "$69.99 for 56.2 h of play is $1.25 an hour.",
            id="multiplayer-first-by-play",
        ),
        pytest.param(
            "hltb",
            "56.2 h of main story; a typical Shooter game takes 4.4 h.",
            "$69.99 for 56.2 h of main story is $1.25 an hour.",
            id="campaign",
        ),
    ],
)
def test_a_length_from_play_reads_as_how_long_players_play(
    source: str, length: str, price: str
) -> None:
    detail = {"genre": "shooter", "price_usd": 69.99, "length_hours": 56.2, "length_source": source}
    reasons = driver_reasons(detail, typical_price_per_hour=None, typical_hours=4.4)
    assert (reasons["length"], reasons["price"]) == (length, price)


@pytest.mark.parametrize(
    ("estimated", "words"),
    [
        pytest.param(
            ["review_count"],
            "80% of its 1,000+ reviews (lifetime, as of 24 Jul 2026) are positive",
            id="lower-bound",
        ),
        pytest.param(
            [], "80% of its 1,000 reviews (lifetime, as of 24 Jul 2026) are positive", id="counted"
        ),
    ],
)
def test_the_reviews_driver_writes_the_count_as_the_table_does(
    estimated: list[str], words: str
) -> None:
    # Issue 48: Slay the Spire 2's page said "1,000 reviews" here and "1,000+" in its table.
    detail = {
        "review_score": 0.8,
        "review_count": 1000,
        "estimated": estimated,
        "provenance": {"review_score": {"date": "2026-07-24"}},
    }
    reasons = driver_reasons(detail, typical_price_per_hour=None, typical_hours=None)
    assert reasons["reviews"].startswith(words + "; ")
    assert review_count_label(detail) in reasons["reviews"]


@pytest.mark.slow
def test_the_price_reason_dates_the_price_as_the_raw_dumps_saw_it(
    real_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    """Issue 56: the drivers quoted a price without its date. On real records: Baldur's Gate 3's
    list price comes after its Summer Sale (the raw dumps' last scrape of it, 3 Jul 2026, was
    $44.99), so the reason names that sale; Hollow Knight's price is dated the day it was seen."""
    from tests.support.raw_prices import raw_prices

    storage = real_snapshot[0]
    entries = read_manifest(storage, "s1").entries
    raw = raw_prices()

    def reason(appid: int) -> tuple[dict[str, Any], str]:
        detail = orjson.loads(read_body(storage, entries[detail_key(appid)]))
        typical = {"typical_price_per_hour": None, "typical_hours": None}
        return detail, driver_reasons(detail, **typical)["price"]

    _, bg3 = reason(1086940)
    assert bg3.startswith("$59.99 (list price; $44.99 in a sale seen 3 Jul 2026, since ended) for")
    assert raw[1086940][-1][0].date().isoformat() == "2026-07-03" and raw[1086940][-1][1] == 4499
    detail, hollow = reason(367520)
    observed = dt.date.fromisoformat(detail["price_observed_at"][:10])
    assert detail["ended_sale_at"] is None
    assert hollow.startswith(f"${detail['price_usd']:.2f} (seen {day(observed)}) for ")
    cents = round(detail["price_usd"] * 100)
    assert (observed, cents) in {(at.date(), c) for at, c in raw[367520]}
