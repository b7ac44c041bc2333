"""scoring/review_words.py: the share the score reads, and every sentence quoting that share
with its period and date, on the real records of the bundled catalogue, their shares checked
against the raw dumps (data/raw/steam_review_playtime_2026: the recent sample's votes)."""

from __future__ import annotations

import datetime as dt
import gzip
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.build.buyer import buyer_fields, record_reviews
from bangscore.build.wire import detail_record
from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.pipeline import ScoredGame, reviews_read
from bangscore.scoring.records import Catalog
from bangscore.scoring.review_words import Reviews, pct, read_share, share_words
from bangscore.scoring.verdict import day
from bangscore.site.labels import driver_reasons
from tests.support.real_catalogue import cached_games

AT = dt.date(2026, 7, 24)
SAMPLED = dt.date(2026, 7, 20)
PLAYTIME = Path(__file__).resolve().parents[2] / "data/raw/steam_review_playtime_2026"
DOTA_2 = 570
# A quoted share: "71% of its last 996 reviews (sampled 24 Jul 2026)" or "80% of its 2,412,000
# reviews (lifetime, as of 24 Jul 2026)".
QUOTED = re.compile(r"(\d+)% of its (last )?([\d,]+\+?) reviews \((sampled|lifetime, as of) ")


@pytest.mark.parametrize(
    ("lifetime", "recent", "count", "read"),
    [
        pytest.param(0.85, 0.35, 996, 0.35, id="a-collapse-read"),
        pytest.param(0.85, 0.35, 199, 0.85, id="too-few-recent"),
        pytest.param(0.85, 0.76, 996, 0.85, id="under-10-points"),
        pytest.param(0.85, 0.75, 996, 0.75, id="10-points-stored-as-floats"),
        pytest.param(0.60, 0.90, 996, 0.6999, id="a-mixed-game-recovers-under-70"),
        pytest.param(0.85, None, None, 0.85, id="no-sample"),
    ],
)
def test_the_share_read(
    lifetime: float, recent: float | None, count: int | None, read: float
) -> None:
    assert read_share(lifetime, recent, count) == read


@pytest.mark.parametrize(
    ("reviews", "words"),
    [
        pytest.param(
            Reviews(0.85, "40,112", AT, 0.35, 996, SAMPLED),
            "35% of its last 996 reviews (sampled 20 Jul 2026) are positive, 85% lifetime",
            id="recent-read-both-said",
        ),
        pytest.param(
            Reviews(0.85, "40,112", AT, 0.80, 996, SAMPLED),
            "85% of its 40,112 reviews (lifetime, as of 24 Jul 2026) are positive",
            id="lifetime-read",
        ),
        pytest.param(
            Reviews(0.60, "1,000+", None, 0.90, 996, SAMPLED),
            "90% of its last 996 reviews (sampled 20 Jul 2026) are positive, 60% lifetime, so it "
            "counts as under 70%",
            id="recovery-capped",
        ),
        pytest.param(
            Reviews(0.8698, "77", None), "87% of its 77 reviews (lifetime) are positive", id="round"
        ),
    ],
)
def test_share_words(reviews: Reviews, words: str) -> None:
    assert share_words(reviews) == words


def _raw_recent() -> dict[int, tuple[int, int]]:
    """The raw recent samples: appid -> (positive votes, votes), read without our ingest."""
    raw = orjson.loads(gzip.decompress((PLAYTIME / "playtime.json.gz").read_bytes()))
    assert raw["_format"][2:] == ["n_up", "n_down"]
    return {int(k): (int(v[2]), int(v[2]) + int(v[3])) for k, v in raw["playtime"].items()}


@pytest.fixture(scope="module")
def departing(
    bundled: tuple[Catalog, IngestReport], real_cache: Path
) -> list[tuple[ScoredGame, dict[str, Any]]]:
    """The real games whose recent sample and lifetime share differ by 10 points or more, with
    their buyer fields (as the build makes them: every game's, for the genre percentiles and
    the forecast's fit)."""
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    games = cached_games(real_cache)
    fields = buyer_fields(games, catalog.prices_as_of.date(), dt.date(2026, 12, 1))
    return [
        (g, f)
        for g, f in zip(games, fields, strict=True)
        if g.record.recent_review_score is not None
        and abs(g.record.recent_review_score - g.record.review_score) >= 0.1
    ]


@pytest.mark.slow
def test_dota_2_s_sentence_quotes_the_recent_share_its_score_reads(
    departing: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    """Issue 56: Dota 2's "skip" quoted 80% (lifetime) though its score reads its recent
    reviews. Its sentence now quotes the recent sample's share, as the raw dump counts it, with
    the day it was sampled, and the lifetime share beside it."""
    game, fields = next((g, f) for g, f in departing if g.record.appid == DOTA_2)
    rec = game.record
    up, votes = _raw_recent()[DOTA_2]
    assert rec.recent_review_count == votes
    assert rec.recent_review_score == pytest.approx(up / votes, abs=5e-5)  # kept to 4 places
    assert reviews_read(rec) == rec.recent_review_score  # the score reads the recent share
    assert rec.recent_reviews_at is not None
    said = (
        f"{pct(up / votes)}% of its last {votes:,} reviews "
        f"(sampled {day(rec.recent_reviews_at)}) are positive, "
        f"{pct(rec.review_score)}% lifetime"
    )
    assert said in fields["verdict_text"]
    assert f"{pct(rec.review_score)}% of its" not in fields["verdict_text"]


@pytest.mark.slow
def test_every_quoted_share_is_the_one_the_score_read(
    departing: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    """Every real game whose recent and lifetime shares differ by 10 points or more: each share
    its verdict sentence and its drivers quote first is the one its score read (the recent
    sample's where it reads that, counted as the raw dump counts it), dated; the lifetime one
    only beside it."""
    raw = _raw_recent()
    reading_recent = 0
    wrong: list[str] = []
    for game, fields in departing:
        rec = game.record
        reads = reviews_read(rec)
        recent = reads != rec.review_score
        reading_recent += recent
        if recent and rec.appid in raw:
            assert raw[rec.appid][1] == rec.recent_review_count, rec.appid
        detail = detail_record(game, "http://x", buyer=fields)
        reasons = driver_reasons(detail, typical_price_per_hour=None, typical_hours=None)
        texts = [fields["verdict_text"], reasons.get("reviews", "")]
        for text in (t for t in texts if QUOTED.search(t)):
            found = QUOTED.search(text)
            assert found is not None
            quoted = (int(found[1]), bool(found[2]))
            share = rec.recent_review_score if recent else rec.review_score
            assert share is not None
            if quoted != (pct(share), recent) and not reads < share:
                wrong.append(f"{rec.appid} {rec.name}: {text}")
        read = rec.recent_review_score if recent else rec.review_score
        assert read is not None
        assert share_words(record_reviews(rec)).startswith(f"{pct(read)}%")
    assert reading_recent >= 100  # the rule is at work on the real catalogue
    assert wrong == []
