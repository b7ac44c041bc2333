"""The buyer's fields on the real bundled catalogue: every better-value box lists the
best-scoring games of the same genre at most 30% dearer, best first, no adult game; and every
``wait_for_sale`` names a price that makes the game worth it or better and that its dated
prices show it has reached (docs/API.md#verdict)."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import orjson
import pytest

from bangscore.build.buyer import price_points
from bangscore.contract.filters import detail_key, game_page_key
from bangscore.manifest import object_key, read_manifest
from bangscore.scoring import flags, tiers, value
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import ObjectStorage

pytestmark = pytest.mark.slow
BETTER = re.compile(r'<ol id="better-list">(.*?)</ol>', re.S)
ITEM = re.compile(r'<li data-score="(\d+)"><a href="/game/(\d+)/')


def body(storage: ObjectStorage, key: str) -> bytes:
    entry = read_manifest(storage, "s1").entries[key]
    return storage.get(object_key(entry.sha256))


def test_every_better_value_box_is_the_best_of_its_genre_at_most_30_percent_dearer(
    real_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    storage, games = real_snapshot
    entries = read_manifest(storage, "s1").entries
    genre = np.array([g.genre for g in games])
    score = np.array([g.bang_score for g in games])
    price = np.array([round(g.record.price_usd * 100) for g in games])
    adult = np.array([flags.adult(g.record) for g in games])
    wrong: list[str] = []
    boxes = 0
    for n, game in enumerate(games):
        page = storage.get(object_key(entries[game_page_key(game.record.appid)].sha256)).decode()
        found = BETTER.search(page)
        listed = [int(appid) for _, appid in ITEM.findall(found[1])] if found else []
        boxes += bool(listed)
        fit = (
            (genre == game.genre)
            & (score > game.bang_score)
            & (price * 10 <= price[n] * 13)
            & ~adult
        )
        expected = [games[i].record.appid for i in np.flatnonzero(fit)[:5]]
        if listed != expected:
            wrong.append(f"{game.record.appid} ({game.bang_score}) lists {listed}, not {expected}")
    assert boxes > 20_000
    assert wrong[:10] == []


def test_every_wait_for_sale_names_a_reached_price_that_makes_it_worth_it(
    real_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    storage, games = real_snapshot
    entries = read_manifest(storage, "s1").entries
    waits = 0
    wrong: list[str] = []
    counts: dict[str, int] = {}
    for game in games:
        detail = orjson.loads(
            storage.get(object_key(entries[detail_key(game.record.appid)].sha256))
        )
        counts[detail["verdict"]] = counts.get(detail["verdict"], 0) + 1
        assert detail["verdict_text"]
        assert 0 <= detail["genre_percentile"] <= 1
        if detail["verdict"] != "wait_for_sale":
            assert detail["verdict_price_usd"] is None
            continue
        waits += 1
        price = detail["verdict_price_usd"]
        at_price = value.bang_score(dataclasses.replace(game.inputs, price_usd=price))
        reached = [
            p for p in price_points(game.record) if round(p.price_usd * 100) <= round(price * 100)
        ]
        if at_price < tiers.WORTH_IT_MIN or not reached:
            wrong.append(f"{game.record.appid}: {price} scores {at_price}, reached {reached}")
        lowest = min((p.price_usd for p in reached), default=None)
        named = {
            f"reached on {p.date.day} {p.date.strftime('%b %Y')} at ${p.price_usd:,.2f}"
            for p in reached
            if p.price_usd == lowest
        }
        if not any(words in detail["verdict_text"] for words in named):
            wrong.append(f"{game.record.appid}: no dated sale in: {detail['verdict_text']}")
    assert waits > 0, counts
    assert wrong == []
