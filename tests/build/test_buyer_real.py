"""The buyer's fields on the real bundled catalogue: every better-value box lists the
best-scoring games of the same genre at most 30% dearer, best first, no adult game; and every
``wait_for_sale`` names a price that makes the game worth it or better and that its dated
prices show it has reached (docs/API.md#verdict)."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bangscore.build.buyer import buyer_fields, record_reviews, sightings
from bangscore.contract.objects import game_page_key
from bangscore.ingest.catalog import IngestReport
from bangscore.manifest import read_body, read_manifest_view
from bangscore.scoring import flags
from bangscore.scoring.multiplayer import multiplayer_first
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import Catalog
from bangscore.scoring.review_words import share_words
from bangscore.scoring.verdict import EVIDENCE_DAYS, day, evidence, is_stale
from bangscore.storage import ObjectStorage
from tests.support.raw_prices import raw_prices

pytestmark = pytest.mark.slow
BETTER = re.compile(r'<ol id="better-list">(.*?)</ol>', re.S)
ITEM = re.compile(r'<li data-score="(\d+)"><a href="/game/(\d+)/')


def test_every_better_value_box_is_the_best_of_its_genre_at_most_30_percent_dearer(
    real_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    storage, games = real_snapshot
    entries = read_manifest_view(storage, "s1").entries
    # Each genre's games in list order (best first), as arrays: a box's candidates are its genre's.
    members: dict[str, np.ndarray] = {}
    for genre in {g.genre for g in games}:
        members[genre] = np.array([i for i, g in enumerate(games) if g.genre == genre])
    score = np.array([g.bang_score for g in games])
    price = np.array([round(g.record.price_usd * 100) for g in games])
    adult = np.array([flags.adult(g.record) for g in games])
    wrong: list[str] = []
    boxes = 0
    for n, game in enumerate(games):
        page = read_body(storage, entries[game_page_key(game.record.appid)]).decode()
        found = BETTER.search(page)
        listed = [int(appid) for _, appid in ITEM.findall(found[1])] if found else []
        boxes += bool(listed)
        same = members[game.genre]
        fit = (score[same] > game.bang_score) & (price[same] * 10 <= price[n] * 13) & ~adult[same]
        expected = [games[i].record.appid for i in same[fit][:5]]
        if listed != expected:
            wrong.append(f"{game.record.appid} ({game.bang_score}) lists {listed}, not {expected}")
    assert boxes > 20_000
    assert wrong[:10] == []


@pytest.fixture(scope="module")
def verdicts(
    bundled: tuple[Catalog, IngestReport],
    real_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> list[tuple[ScoredGame, dict[str, Any]]]:
    """Every real game with its buyer fields, as the snapshot's detail records carry them."""
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    _, games = real_snapshot
    return list(zip(games, buyer_fields(games, catalog.prices_as_of.date()), strict=True))


def _cents(usd: float) -> int:
    return round(usd * 100)


def test_the_real_verdicts_follow_the_sale_cycle(
    bundled: tuple[Catalog, IngestReport],
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    as_of = catalog.prices_as_of.date()
    counts = Counter(fields["verdict"] for _, fields in verdicts)
    wrong: list[str] = []
    cheap_buys = paid_buys = 0
    for game, fields in verdicts:
        rec, name = game.record, f"{game.record.appid} {game.record.name}"
        price = _cents(rec.price_usd)
        year = evidence(sightings(rec), as_of)
        if fields["verdict"] == "wait_for_sale":
            seen = _cents(fields["verdict_price_usd"])
            if price - seen < 200 or 10 * (price - seen) < price:
                wrong.append(f"{name}: waits to save under 10% or $2 ({fields['verdict_text']})")
            days = [s.date for s in year if _cents(s.price_usd) == seen]
            if not days or not any(day(d) in fields["verdict_text"] for d in days):
                wrong.append(f"{name}: waits for a price not seen with its date in the year")
            if game.worth_it_at_usd is None or seen > _cents(game.worth_it_at_usd):
                wrong.append(f"{name}: waits for a price that does not make it worth it")
        if fields["verdict"] == "buy_now" and price > 0:
            paid_buys += 1
            low = min((_cents(s.price_usd) for s in year), default=price)
            if price >= 2 * low:
                # The third clause of the rule: waiting would save under $2 (a $2.99 game
                # seen at $1.49): counted, and wrong if it saves $2 or more.
                cheap_buys += 1
                if price - low >= 200:
                    wrong.append(f"{name}: buy now at {rec.price_usd}, twice {low / 100}")
        free = price == 0 and rec.list_price_usd == 0
        if not free and game.tier in ("banger", "worth_it") and fields["verdict"] == "skip":
            wrong.append(f"{name}: a {game.tier} game told to skip")
        if free and game.bang_score > 79:
            wrong.append(f"{name}: free and scored {game.bang_score}")
        # A free game: "Free: get it" from `fair` up (score version 6.0; 5.0's worth_it rule
        # told 28 of the 31 free games with 100,000+ reviews to skip).
        if free and fields["verdict"] != ("skip" if game.tier == "skip" else "buy_now"):
            wrong.append(f"{name}: free, {game.tier}, told {fields['verdict']}")
    assert wrong == []
    # Score version 5.0 (SteamBangers' levels: reviews set the ceiling) rates about 5,900 games
    # worth it or better; about 1,650 are told to buy now, 5,100 to wait (4.0: over 3,000 each).
    assert counts["buy_now"] > 1_000 and counts["wait_for_sale"] > 3_000, counts
    # Only the under-$2 clause lets a paid buy sit at twice a seen price, so every such game
    # costs under $4: 432 of 2,980 paid buys over the 730-day window (score version 3.2; 309 of
    # 5,546 over the round-4 year).
    assert cheap_buys < 0.2 * paid_buys, (cheap_buys, paid_buys)


def _undercut(price: int, seen: int) -> bool:
    """Return True when a seen price (cents) is at least 25% and $2 under ``price``."""
    return 4 * seen <= 3 * price and price - seen >= 200


def test_no_paid_buy_now_at_a_price_the_raw_dumps_saw_25pc_and_2_dollars_lower(
    bundled: tuple[Catalog, IngestReport],
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    """Issue 33's count, against the raw 2026 dumps (not our catalogue): 1,421 of 5,733 paid
    ``buy_now`` games were seen at least 25% and $2 cheaper within the year; now none, within
    the 730 days before ``prices_as_of``."""
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    as_of = catalog.prices_as_of.date()
    start = as_of - dt.timedelta(days=EVIDENCE_DAYS)
    dumps = raw_prices()
    wrong: list[str] = []
    paid_buys = 0
    for game, fields in verdicts:
        price = _cents(game.record.price_usd)
        if fields["verdict"] != "buy_now" or price == 0:
            continue
        paid_buys += 1
        for at, seen in dumps.get(game.record.appid, ()):
            if start < at.date() <= as_of and _undercut(price, seen):
                wrong.append(f"{game.record.appid} {game.record.name}: {price} vs {seen} on {at}")
                break
    assert paid_buys > 1_000
    assert wrong == []


def test_no_paid_buy_now_under_its_own_history_or_dated_low(
    bundled: tuple[Catalog, IngestReport],
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    """2,218 paid ``buy_now`` games had a price 25% and $2 lower in their own history or dated
    low within two years (issue 33); now none."""
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    as_of = catalog.prices_as_of.date()
    start = as_of - dt.timedelta(days=EVIDENCE_DAYS)
    wrong: list[str] = []
    for game, fields in verdicts:
        rec = game.record
        price = _cents(rec.price_usd)
        if fields["verdict"] != "buy_now" or price == 0:
            continue
        seen = [(p.date, _cents(p.price_usd)) for p in rec.price_history]
        if rec.historical_low_usd is not None and rec.historical_low_at is not None:
            seen.append((rec.historical_low_at, _cents(rec.historical_low_usd)))
        lower = [(d, c) for d, c in seen if start < d <= as_of and _undercut(price, c)]
        if lower:
            wrong.append(f"{rec.appid} {rec.name}: {price} vs {lower[0]}")
    assert wrong == []


WINDOW = re.compile(r"the (\d+) prices seen from (\d+ \w+ \d{4}) to (\d+ \w+ \d{4})")
ONLY = re.compile(r"the only price seen since (\d+ \w+ \d{4})")


def test_no_verdict_text_claims_a_low_its_observations_do_not_cover(
    bundled: tuple[Catalog, IngestReport],
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    """Every sentence speaks of what was seen: no "lowest price of the past year"; each "the N
    prices seen from A to B" counts and dates the window's own observations, each "the only
    price seen since A" has one; a stale price (over 180 days old) says "last seen <date>"."""
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    as_of = catalog.prices_as_of.date()
    wrong: list[str] = []
    stale = 0
    for game, fields in verdicts:
        rec, text = game.record, fields["verdict_text"]
        name = f"{rec.appid} {rec.name}"
        if re.search(r"past (year|two years)|lowest price of|lowest price (in|over)", text):
            wrong.append(f"{name}: {text}")
        window = [s for s in evidence(sightings(rec), as_of) if not s.estimated]
        for count, first, last in WINDOW.findall(text):
            dates = sorted(s.date for s in window)
            if (int(count), first, last) != (len(window), day(dates[0]), day(dates[-1])):
                wrong.append(f"{name}: says {count} from {first} to {last} ({text})")
        if ONLY.search(text) and len(window) != 1:
            wrong.append(f"{name}: one price, {len(window)} seen ({text})")
        seen_on = rec.price_observed_at.date() if rec.price_observed_at else None
        if rec.price_usd > 0 and is_stale(seen_on, as_of):
            stale += 1
            assert seen_on is not None
            if f"last seen {day(seen_on)}" not in text:
                wrong.append(f"{name}: stale price without its date ({text})")
    assert stale > 100
    assert wrong[:10] == [] and len(wrong) == 0


def test_every_multiplayer_first_game_is_measured_by_play(
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    first = [
        g.record
        for g, _ in verdicts
        if multiplayer_first(g.record.categories, g.record.tags, g.record.storefront_genres)
    ]
    # Without anyone's playtime (6 games when this was written) the campaign stays.
    unplayed = [
        r
        for r in first
        if r.length_source != "playtime"
        and (r.positive_reviewer_hours or r.median_playtime_hours) is not None
    ]
    assert len(first) > 2_000
    assert [f"{r.appid} {r.name}" for r in unplayed] == []
    assert sum(r.length_source != "playtime" for r in first) < 20


@pytest.mark.parametrize(
    ("appid", "verdict", "words"),
    [
        pytest.param(
            1771300,
            "wait_for_sale",
            # Score version 4.0: 78 at $23.99 (its "1,000+" reviews shrank toward the mean); 5.0
            # calls it a banger at its $59.99 list price and still names the sale.
            "$23.99 in the Summer Sale seen 3 Jul 2026, since ended; that sale keeps it a banger: "
            "wait for $23.99 or less",
            id="kingdom-come-2-waits-for-the-3-jul-sale",
        ),
        pytest.param(
            1569580,
            "wait_for_sale",
            "wait for $17.99 or less ($12.00, 40% less)",
            id="blue-prince-waits-for-a-real-sale-not-a-cent",
        ),
        pytest.param(2807960, "skip", "Battlefield™ 6 is poor value", id="battlefield-6"),
    ],
)
def test_the_games_the_issue_named(
    verdicts: list[tuple[ScoredGame, dict[str, Any]]], appid: int, verdict: str, words: str
) -> None:
    game, fields = next((g, f) for g, f in verdicts if g.record.appid == appid)
    assert fields["verdict"] == verdict
    assert words in fields["verdict_text"]
    if appid == 2807960:
        # Judged on how long people play it, not its 6-hour campaign.
        assert game.record.length_source == "playtime"
        assert game.record.main_story_hours is not None and game.record.main_story_hours > 20


def test_split_fiction_answers_no_store_data_with_its_name(
    bundled: tuple[Catalog, IngestReport],
) -> None:
    catalog, _ = bundled
    found = {a.appid: a for a in catalog.not_rated}[2001120]
    assert (found.name, found.reason) == ("Split Fiction", "no_store_data")
    # A storefront typed each not_a_game; a name is missing only where no source has one.
    nameless = [a.appid for a in catalog.not_rated if a.reason == "not_a_game" and not a.name]
    assert len(nameless) <= 20, nameless


# The day the issue tried the site as a buyer: a build of the default catalogue that day.
BUILT_ON = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def built_on(
    bundled: tuple[Catalog, IngestReport], real_cache: Path
) -> list[tuple[ScoredGame, dict[str, Any]]]:
    """Every real game with the buyer fields of a snapshot built on 1 Dec 2026."""
    from tests.support.real_catalogue import cached_games

    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    games = cached_games(real_cache)
    fields = buyer_fields(games, catalog.prices_as_of.date(), BUILT_ON)
    return list(zip(games, fields, strict=True))


def test_no_wait_names_a_price_25pc_and_2_dollars_above_a_newer_raw_price_of_its_tier(
    built_on: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # Round 7: the newest price reaching the best tier is the one to wait for. The raw 2026
    # dumps are the newest prices there are; none of them may undercut the wait so.
    raw = raw_prices()
    wrong = []
    waits = 0
    for game, fields in built_on:
        if fields["verdict"] != "wait_for_sale":
            continue
        waits += 1
        target = _cents(fields["verdict_price_usd"])
        seen = dt.date.fromisoformat(fields["verdict_price_seen_at"])
        banger = game.becomes_banger_at_usd
        limit = _cents(banger) if banger is not None and target <= _cents(banger) else None
        limit = limit if limit is not None else _cents(game.worth_it_at_usd or 0)
        for at, cents in raw.get(game.record.appid, ()):
            newer = at.date() > seen and cents <= limit
            # 25% and $2 above it: target >= 1.25 x its price, and $2 more.
            if newer and 4 * target >= 5 * cents and target - cents >= 200:
                wrong.append(f"{game.record.appid} waits for {target} ({seen}); {cents} {at:%d %b}")
                break
    assert waits > 1_000
    assert wrong[:10] == []


@pytest.mark.parametrize(
    ("appid", "at_most"),
    [(1174180, 1499), (292030, 399), (239140, 249), (304430, 249)],
    ids=["red-dead-redemption-2", "the-witcher-3", "dying-light", "inside"],
)
def test_the_waits_the_issue_named_wait_for_the_newest_sale(
    built_on: list[tuple[ScoredGame, dict[str, Any]]], appid: int, at_most: int
) -> None:
    fields = next(f for g, f in built_on if g.record.appid == appid)
    assert fields["verdict"] == "wait_for_sale"
    assert _cents(fields["verdict_price_usd"]) <= at_most
    assert fields["verdict_price_seen_at"] >= "2026-06-25"  # the Summer Sale 2026


def test_the_forecasts_agree_with_the_waits_and_the_calendar(
    built_on: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    forecasts = [(g, f, f["next_sale"]) for g, f in built_on if f["next_sale"] is not None]
    assert len(forecasts) > 20_000
    # Every next_sale is the Winter Sale 2026, which starts after the build day.
    assert {(s["name"], s["starts"]) for _, _, s in forecasts} == {("Winter Sale", "2026-12-17")}
    # No wait's forecast is under half its target, half as the storefront cuts a 50% discount
    # to the cent ($1.49 -> $0.74).
    under_half = [
        f"{g.record.appid}: wait {f['verdict_price_usd']}, likely {s['expected_price_usd']}"
        for g, f, s in forecasts
        if f["verdict"] == "wait_for_sale"
        and _cents(s["expected_price_usd"]) < _cents(f["verdict_price_usd"]) // 2
    ]
    assert under_half[:10] == []
    assert {s["confidence"] for _, _, s in forecasts} <= {"high", "medium", "low"}


def test_no_expected_price_is_a_cent_above_the_sale_price_it_repeats_or_far_under_the_low(
    built_on: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # The raw dumps' own discounted rows: the price the storefront showed in the Summer Sale.
    raw = raw_prices()
    a_cent_above = []
    under_low = []
    for game, fields in built_on:
        sale = fields["next_sale"]
        if sale is None:
            continue
        expected = _cents(sale["expected_price_usd"])
        shown = {cents for _, cents in raw.get(game.record.appid, ())}
        listed = _cents(game.record.list_price_usd)
        if expected - 1 in shown and expected not in shown and expected < listed:
            a_cent_above.append(f"{game.record.appid}: {expected} beside {expected - 1}")
        low = min(shown | {_cents(s.price_usd) for s in sightings(game.record) if not s.estimated})
        if expected * 20 < low * 19 and low - expected >= 50:
            under_low.append(f"{game.record.appid}: {expected} under {low}")
    forecasts = sum(f["next_sale"] is not None for _, f in built_on)
    assert a_cent_above[:10] == []
    assert len(under_low) <= forecasts // 100, under_low[:10]


# -- the words follow the rule (issue 56, item 6) ---------------------------------------------

PRICE = r"\$([\d,]+\.\d\d)"


def test_baldurs_gate_3_waits_for_the_sale_it_cites_as_the_raw_dumps_saw_it(
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # Issue 56: it cited "$44.99 in the Summer Sale seen 3 Jul 2026" then "wait for $47.99".
    game, fields = next((g, f) for g, f in verdicts if g.record.appid == 1086940)
    assert fields["verdict"] == "wait_for_sale"
    assert (
        "list price $59.99; $44.99 in the Summer Sale seen 3 Jul 2026, since ended; "
        "that sale keeps it a banger: wait for $44.99 or less ($15.00, 25% less)"
    ) in fields["verdict_text"]
    # The raw 2026 dumps (not our catalogue) saw it at $44.99 on 3 Jul, the last scrape of it.
    raw = raw_prices()[1086940]
    assert raw[-1][0].date() == dt.date(2026, 7, 3) and raw[-1][1] == 4499
    assert game.record.list_price_usd == 59.99


def test_no_wait_quotes_a_dearer_price_after_a_cheaper_sale_without_saying_why(
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # A sale that just ended below the price to wait for: the wait is for a seasonal sale's
    # price (the rule's), and the sentence says so (13 such waits on 2 Dec 2026).
    cited = re.compile(rf"; {PRICE} in the [^;]*?since ended; (.*?)wait for {PRICE} or less")
    backwards, explained = [], 0
    for game, fields in verdicts:
        found = cited.search(fields["verdict_text"] or "")
        if fields["verdict"] != "wait_for_sale" or found is None:
            continue
        ended, words, wait = float(found[1].replace(",", "")), found[2], found[3]
        if float(wait.replace(",", "")) > ended:
            explained += "that seasonal sales return to" in words
            if "that seasonal sales return to" not in words:
                backwards.append(f"{game.record.appid}: {fields['verdict_text']}")
    assert backwards == []
    assert explained > 0


def test_every_game_no_price_helps_says_what_holds_it_down(
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # Issue 56: a game at 0 said nothing of why. Each paid skip no price helps names the
    # drivers that lower its score; a free one names its reviews.
    from bangscore.scoring.verdict_text import HELD_DOWN

    silent, zeros = [], 0
    for game, fields in verdicts:
        text = fields["verdict_text"] or ""
        zeros += game.bang_score == 0
        if "no price makes it worth it" in text:
            why = text.split("no price makes it worth it", 1)[1]
            lowers = [n for n in HELD_DOWN if n in game.drivers["lowers"]]
            # The share the score read, with its period and date (issue 56: Dota 2's quoted
            # the lifetime share though its score read the recent one).
            share = f"only {share_words(record_reviews(game.record))}"
            if lowers and not why.startswith(", as "):
                silent.append(f"{game.record.appid}: {text}")
            elif "reviews" in lowers and share not in why:
                silent.append(f"{game.record.appid} (reviews): {text}")
        if game.bang_score == 0:
            reasons = ("are positive", "worth it only at", "becomes worth it at")
            if not any(r in text for r in reasons) and not any(
                HELD_DOWN[n].split("{")[0] in text for n in HELD_DOWN
            ):
                silent.append(f"{game.record.appid} (0): {text}")
    assert zeros > 1_000
    assert silent[:10] == []


def test_a_skip_never_calls_a_sale_too_close_to_wait_for_beside_a_cheaper_one(
    verdicts: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # Read on 2 Dec 2026: LIZARDS MUST DIE, list price $1.99, "$0.99 in the Winter Sale ...:
    # skip it; it becomes worth it at $1.98 or less, too close to this price to wait for a
    # sale" read backwards. At $2 or less no sale saves the $2 a wait must save, and the
    # sentence says that; "too close" is left to dearer prices.
    cheap: dict[int, str] = {}
    close = []
    for game, fields in verdicts:
        text, cents = fields["verdict_text"] or "", _cents(game.record.price_usd)
        if "too close to this price to wait for a sale" in text:
            close.append(cents)
        if "no sale can save the $2 that makes a wait worth it" in text:
            assert cents <= 200, text
            cheap[game.record.appid] = text
    assert close and min(close) > 200
    assert 2532550 in cheap  # LIZARDS MUST DIE (its prices are from 2025: in no 2026 dump)
    # CATch the Stars (1420540): the raw 2026 dumps saw it last at $0.79, on 3 Jul 2026, and
    # its sentence cites that sale beside its $1.99 list price, then says why it is no wait.
    last = raw_prices()[1420540][-1]
    assert (last[0].date(), last[1]) == (dt.date(2026, 7, 3), 79)
    assert cheap[1420540].startswith(
        "CATch the Stars is fair value at list price $1.99; $0.79 in the Summer Sale seen 3 Jul "
        "2026, since ended: skip it; it becomes worth it at $"
    )
