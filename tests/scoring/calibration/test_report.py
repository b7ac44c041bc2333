"""scoring/calibration: the norms the model reads and the calibration report's pure steps:
summary, rendering, plot (scoring itself is tests/scoring/test_pipeline.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from bangscore.ingest.resolve.checks import PLAYTIME_TO_MAIN
from bangscore.scoring import value
from bangscore.scoring.calibration import ranks
from bangscore.scoring.calibration.figures import plot_histogram
from bangscore.scoring.calibration.norms import (
    PACKAGE_DIR,
    REPORT_NAME,
    derive_norms,
    norms_lines,
    read_norms_section,
    write_norms,
)
from bangscore.scoring.calibration.report import HISTOGRAM_NAME, render_report
from bangscore.scoring.calibration.summary import ESTIMATE_BANDS, estimate_check, summarize
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import GameRecord, NotRated


@pytest.fixture
def make_record() -> Callable[..., GameRecord]:
    """Return a factory of rated-catalog GameRecords: a 20-hour $10 game, fields overridable."""

    def make(appid: int, **overrides: object) -> GameRecord:
        fields: dict[str, object] = {
            "appid": appid,
            "name": f"Game {appid}",
            "price_usd": 10.0,
            "list_price_usd": 10.0,
            "discount_percent": 0,
            "review_score": 0.9,
            "review_count": 1000,
            "release_year": 2015,
            "storefront_genres": ("Action",),
            "tags": ("Action",),
            "main_story_hours": 20.0,
            "length_source": "hltb",
        }
        fields.update(overrides)
        return GameRecord.model_validate(fields)

    return make


@pytest.mark.parametrize(
    ("xs", "ys", "expected"),
    [
        pytest.param([1, 2, 3, 4], [10, 20, 30, 40], 1.0, id="same-order"),
        pytest.param([1, 2, 3, 4], [4, 3, 2, 1], -1.0, id="reversed"),
        pytest.param([1, 2, 3, 4], [1, 100, 1000, 10_000], 1.0, id="monotone-not-linear"),
        pytest.param([1, 1, 2, 2], [1, 1, 2, 2], 1.0, id="ties"),
    ],
)
def test_spearman(xs: list[float], ys: list[float], expected: float) -> None:
    assert ranks.spearman(xs, ys) == pytest.approx(expected)


def test_summary_report_and_histogram(
    make_record: Callable[..., GameRecord], tmp_path: Path
) -> None:
    records = [
        make_record(620, price_usd=1.99, main_story_hours=8.9, metacritic=95),
        make_record(2, price_usd=59.99, main_story_hours=3.0, review_score=0.75, metacritic=60),
        make_record(3, price_usd=0.0, review_score=0.01, finish_rate=0.2, metacritic=40),
        make_record(4, price_usd=5.0, main_story_hours=60.0, finish_rate=0.5),
        make_record(5, price_usd=14.99, tags=("Visual Novel",)),
    ]
    scored = score_catalog(records)
    refused = [NotRated(appid=1263850, name="Football Manager 2021", reason="delisted")]
    summary = summarize(scored, refused, playtime_to_main=PLAYTIME_TO_MAIN)
    assert summary.games == 5
    assert sum(summary.tier_counts.values()) == 5
    assert sum(summary.genre_counts.values()) == 5
    assert summary.genre_counts["narrative"] == 1
    assert summary.finish_rate_known == 2
    assert summary.free_games == 1
    assert summary.spearman_metacritic[0] == 3
    portal = next(mark for mark in summary.landmarks if mark.name == "Portal 2")
    assert portal.game is not None
    assert portal.rank == [g.record.appid for g in scored].index(620) + 1
    fm = next(mark for mark in summary.landmarks if mark.appid == 1263850)
    assert (fm.game, fm.not_rated) == (None, "delisted")

    text = render_report(
        scored,
        summary,
        origin="test records",
        generated=dt.date(2025, 1, 2),
    )
    assert "**5 games**" in text
    assert "| Portal 2 | - | #" in text
    assert "| Terraria | - | #10, 93 banger | unknown to every source |" in text
    assert "| Football Manager 2021 | #3 (delisted, shown free) | not rated: `delisted` |" in text
    assert f"![Histogram of bang_score]({HISTOGRAM_NAME})" in text
    assert f"score version `{value.SCORE_VERSION}`" in text

    png = tmp_path / "hist.png"
    plot_histogram(scored, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_estimate_check_counts_measured_stories_shorter_than_the_counted_estimate(
    make_record: Callable[..., GameRecord],
) -> None:
    # Positive reviewers' median 9 h: an estimate of 6.3 h (under the 1.8 x knee of action's
    # normal length, read from the catalogue's norms), counted as 4.41 h now and 5.04 h in
    # score version 2.0.
    records = [
        make_record(1, main_story_hours=4.0, positive_reviewer_hours=9.0),  # shorter than both
        make_record(2, main_story_hours=5.0, positive_reviewer_hours=9.0),  # shorter than 2.0's
        make_record(3, main_story_hours=9.0, positive_reviewer_hours=9.0),  # longer than both
        make_record(4, main_story_hours=1.0),  # no playtime: no estimate to check
        make_record(5, main_story_hours=1.0, positive_reviewer_hours=9.0, tags=("Idler",)),
    ]
    [(band, games, now, before)] = estimate_check(score_catalog(records), PLAYTIME_TO_MAIN)
    ratio = 6.3 / value.norm_hours("action")
    assert 1.8 * value.norm_hours("action") > 6.3
    [expected] = [name for name, low, high in ESTIMATE_BANDS if low <= ratio < high]
    assert (band, games) == (expected, 3)
    assert now == pytest.approx(1 / 3)
    assert before == pytest.approx(2 / 3)


def test_calibration_md_gives_the_genre_norms_the_model_reads() -> None:
    # `make calibrate` writes both from the same derivation; the model reads the JSON file.
    text = (PACKAGE_DIR / REPORT_NAME).read_text(encoding="utf-8")
    norms, mean = read_norms_section(text)
    json_norms = orjson.loads(value.NORMS_FILE.read_bytes())["genres"]
    assert norms == {
        g: (value.GENRE_NORM_HOURS[g], json_norms[g]["price_usd"], value.GENRE_USD_PER_HOUR[g])
        for g in value.GENRE_NORM_HOURS
    }
    assert mean == value.PRIOR_REVIEW_SCORE


def test_derive_norms_takes_the_medians_of_established_well_reviewed_games(
    make_record: Callable[..., GameRecord], tmp_path: Path
) -> None:
    # Action games (storefront Action, tag Action); only those with 1,000 reviews, 80% positive,
    # a HowLongToBeat length and a price count.
    records = [
        make_record(1, main_story_hours=10.0, price_usd=9.99, list_price_usd=9.99),
        make_record(2, main_story_hours=20.0, price_usd=19.99, list_price_usd=19.99),
        make_record(3, main_story_hours=30.0, price_usd=29.99, list_price_usd=29.99),
        make_record(4, main_story_hours=90.0, review_count=999),  # not established
        make_record(5, main_story_hours=90.0, review_score=0.79),  # not well reviewed
        make_record(6, main_story_hours=90.0, length_source="playtime_estimate"),  # estimated
        make_record(7, main_story_hours=90.0, price_usd=0.0, list_price_usd=0.0),  # free
    ]
    norms = derive_norms(records)
    assert (norms.hours["action"], norms.prices["action"], norms.games["action"]) == (
        20.0,
        19.99,
        3,
    )
    # Each charges $0.9995 an hour: the median price per hour of verified length.
    assert norms.usd_per_hour["action"] == 1.0
    # Review-score percentiles per genre and over all, from games with 1,000 reviews or more.
    assert len(norms.review_curves["all"]) == 99
    assert set(norms.review_curves) == {"all", *GENRES}
    # A genre with no established game takes the medians of all of them.
    assert (norms.hours["rpg"], norms.prices["rpg"], norms.games["rpg"]) == (20.0, 19.99, 0)
    assert norms.review_score_mean == pytest.approx(
        round(sum(r.review_score for r in records) / len(records), 3)
    )
    path = tmp_path / "genre_norms.json"
    assert write_norms(norms, path)
    assert not write_norms(norms, path)  # unchanged: not written again
    text = "\n".join(norms_lines(norms))
    assert read_norms_section(text) == (
        {g: (norms.hours[g], norms.prices[g], norms.usd_per_hour[g]) for g in norms.hours},
        norms.review_score_mean,
    )
