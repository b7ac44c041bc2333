"""Review sampling: arithmetic on hand-made review sets, and the pipeline on recorded pages."""

from __future__ import annotations

import datetime as dt
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bangscore.ingest.live.http import ClientSettings, PoliteClient, RateLimit, ResponseCache
from bangscore.ingest.live.reviews import (
    Review,
    allocate,
    parse_page,
    sample_game,
    summarise_sample,
)
from bangscore.scoring.records import DateWindow, FirstDaysSplit
from tests.ingest.replay import Replay, fixture_json, mock_replay, ok, stop_replay

DAY = dt.date(2025, 3, 1)
MakeReviews = Callable[..., list[Review]]
Served = Callable[[dict[str, Any]], tuple[Replay, PoliteClient]]
_ids = itertools.count(1)


@pytest.fixture
def reviews() -> MakeReviews:
    """Factory: ``n`` reviews of one class, the first ``refunded`` of them refunded."""

    def make(
        n: int,
        *,
        up: bool,
        refunded: int = 0,
        labelled: bool = True,
        playtimes: list[int | None] | None = None,
        created: dt.date = dt.date(2024, 6, 1),
    ) -> list[Review]:
        times = playtimes if playtimes is not None else [600] * n
        return [
            Review(
                recommendation_id=str(next(_ids)),
                voted_up=up,
                refunded=(i < refunded) if labelled else None,
                playtime_at_review=times[i],
                created=created,
            )
            for i in range(n)
        ]

    return make


def summarise(sample: list[Review], mix: float | None, release: dt.date | None = None) -> Any:
    return summarise_sample(
        sample, mix_positive=mix, depth=500, release_date=release, sampled_on=DAY
    )


def test_weighted_share_of_the_worked_example(reviews: MakeReviews) -> None:
    # 10 positives with 2 refunded, 10 negatives with 5 refunded, game 80% positive:
    # 0.8 * 2/10 + 0.2 * 5/10 = 0.16 + 0.10 = 0.26 (the raw 7/20 = 0.35 would overstate it).
    result = summarise(reviews(10, up=True, refunded=2) + reviews(10, up=False, refunded=5), 0.8)
    assert result.share == pytest.approx(0.26)
    assert (result.sample, result.flagged, result.depth) == (20, 7, 500)


@pytest.mark.parametrize(
    ("pos", "pos_ref", "neg", "neg_ref", "mix", "expected"),
    [
        (4, 1, 0, 0, 0.9, 0.25),  # no negatives sampled: the positives' rate stands alone
        (0, 0, 5, 5, 0.9, 1.0),  # only negatives sampled, all refunded
        (10, 0, 10, 10, 0.5, 0.5),
        (10, 10, 10, 10, 0.8, 1.0),
        (10, 3, 10, 1, None, 0.2),  # unknown mix: classes weigh equally (0.3 + 0.1) / 2
    ],
    ids=["positives-only", "negatives-only", "even-mix", "all-refunded", "unknown-mix"],
)
def test_weighted_share_table(
    reviews: MakeReviews,
    pos: int,
    pos_ref: int,
    neg: int,
    neg_ref: int,
    mix: float | None,
    expected: float,
) -> None:
    result = summarise(
        reviews(pos, up=True, refunded=pos_ref) + reviews(neg, up=False, refunded=neg_ref), mix
    )
    assert result.share == pytest.approx(expected)
    assert result.flagged == pos_ref + neg_ref


def test_share_is_null_without_refund_labels_or_reviews(reviews: MakeReviews) -> None:
    unlabelled = summarise(reviews(5, up=True, labelled=False), 0.7)
    assert (unlabelled.share, unlabelled.flagged, unlabelled.sample) == (None, 0, 5)
    empty = summarise([], 0.7)
    assert (empty.share, empty.sample, empty.window, empty.early_window_reviews) == (
        None,
        0,
        None,
        None,
    )


def test_over_2h_counts_flagged_writers_past_two_hours(reviews: MakeReviews) -> None:
    # Flagged: playtimes 60, 121, 200 and one unknown -> 2 of the 3 known exceed 120 minutes.
    flagged = reviews(4, up=False, refunded=4, playtimes=[60, 121, 200, None])
    result = summarise(flagged + reviews(3, up=True, playtimes=[5, 5, 5]), 0.5)
    assert result.over_2h == pytest.approx(2 / 3)
    assert summarise(reviews(3, up=True), 0.5).over_2h is None


def test_window_and_first_30_days(reviews: MakeReviews) -> None:
    release = dt.date(2024, 1, 1)
    sample = (
        reviews(1, up=True, created=dt.date(2023, 12, 31))  # before release: not in the split
        + reviews(2, up=False, refunded=1, created=dt.date(2024, 1, 1))  # release day
        + reviews(1, up=True, refunded=1, created=dt.date(2024, 1, 30))  # day 29: last one in
        + reviews(1, up=True, created=dt.date(2024, 1, 31))  # day 30: out
    )
    result = summarise(sample, 0.5, release)
    assert result.window == DateWindow(from_=dt.date(2023, 12, 31), to=dt.date(2024, 1, 31))
    split = result.first_30_days
    assert split is not None
    assert (split.sample, split.flagged, split.share) == (3, 2, pytest.approx(2 / 3))
    assert summarise(sample, 0.5, None).first_30_days is None


def test_early_window_is_weighted_to_the_mix(reviews: MakeReviews) -> None:
    # 4 of 10 positives and 8 of 10 negatives under 120 minutes; 120 itself is not "under".
    positives = reviews(10, up=True, playtimes=[10, 50, 119, 0, 120, 500, 600, 700, 800, 900])
    negatives = reviews(10, up=False, playtimes=[5] * 8 + [120, 240])
    result = summarise(positives + negatives, 0.8)
    assert result.early_window_reviews == 12
    # share of reviews: 0.8 * 0.4 + 0.2 * 0.8 = 0.48; positive among them: 0.32 / 0.48.
    assert result.early_window_review_share == pytest.approx(0.48)
    assert result.early_window_positive_share == pytest.approx(2 / 3)


def test_early_window_null_without_playtime_at_review(reviews: MakeReviews) -> None:
    result = summarise(reviews(3, up=True, playtimes=[None, None, None]), 1.0)
    assert (
        result.early_window_reviews,
        result.early_window_positive_share,
        result.early_window_review_share,
    ) == (None, None, None)


@pytest.mark.parametrize(
    ("depth", "pos", "neg", "expected"),
    [
        (500, 10_000, 10_000, (250, 250)),
        (500, 10_000, 30, (470, 30)),
        (500, 40, 10_000, (40, 460)),
        (500, 100, 50, (100, 50)),
        (501, 10_000, 10_000, (251, 250)),
        (500, 0, 0, (0, 0)),
    ],
    ids=["even", "few-negatives", "few-positives", "fewer-than-depth", "odd-depth", "none"],
)
def test_allocate(depth: int, pos: int, neg: int, expected: tuple[int, int]) -> None:
    assert allocate(depth, pos, neg) == expected


def test_parse_recorded_page() -> None:
    page = parse_page(fixture_json("reviews/app_reviews_page.json"))
    assert (page.total_positive, page.total_negative) == (1, 13)
    assert page.cursor == "AoJ4357nuoUDesDy7wM="
    assert [r.playtime_at_review for r in page.reviews] == [90, 11, 14]
    assert [r.voted_up for r in page.reviews] == [False, False, False]
    assert page.reviews[0].created == dt.date(2024, 1, 27)  # 1706319884 UTC
    assert {r.refunded for r in page.reviews} == {None}


def test_parse_archived_mapping_shape() -> None:
    page = parse_page(fixture_json("reviews/review_620_2019.json"))
    assert len(page.reviews) == 190
    assert (page.total_positive, page.total_negative) == (63500, 853)
    assert page.cursor is None


# --- the pipeline over a real local server replaying recorded responses ---------------------


def archive_pages(review_type: str, per_page: int = 100) -> dict[str, dict[str, Any]]:
    """Re-page the real 2019 Portal 2 reviews (storefront purchases only) the way the endpoint
    pages them: cursor -> page, for one review class."""
    archive = fixture_json("reviews/review_620_2019.json")
    wanted = review_type == "positive"
    items = [
        r
        for r in archive["reviews"].values()
        if r["steam_purchase"] and (review_type == "all" or r["voted_up"] == wanted)
    ]
    pages: dict[str, dict[str, Any]] = {}
    cursor = "*"
    for start in range(0, len(items) + per_page, per_page):
        nxt = f"c{review_type}{start + per_page}"
        chunk = items[start : start + per_page]
        pages[cursor] = {"success": 1, "reviews": chunk, "cursor": nxt if chunk else cursor}
        if cursor == "*":
            pages[cursor]["query_summary"] = archive["query_summary"]
        cursor = nxt
    return pages


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    servers: list[Replay] = []
    clients: list[PoliteClient] = []

    def serve(by_type: dict[str, Any]) -> tuple[Replay, PoliteClient]:
        def handle(query: dict[str, str], _: bytes) -> Any:
            assert (query["json"], query["purchase_type"], query["filter"]) == (
                "1",
                "steam",
                "recent",
            )
            return ok(by_type[query["review_type"]][query["cursor"]])

        server = mock_replay({("GET", "/appreviews/620"): handle})
        settings = ClientSettings(default_rate_limit=RateLimit(1000, 1.0))
        client = PoliteClient(
            settings, ResponseCache(tmp_path, DAY), sleep=lambda s: None, transport=server.transport
        )
        servers.append(server)
        clients.append(client)
        return server, client

    yield serve
    for c in clients:
        c.close()
    for s in servers:
        stop_replay(s)


def test_sample_game_on_recorded_2019_reviews(served: Served) -> None:
    server, client = served(
        {t: archive_pages(t, per_page=50) for t in ("all", "positive", "negative")}
    )
    sample = sample_game(
        client, server.base_url, 620, depth=120, release_date=dt.date(2011, 4, 18), sampled_on=DAY
    )
    # Totals 63500/853 -> 60 + 60 wanted; the recording holds only 3 storefront negatives.
    assert (sample.sample, sample.depth, sample.flagged) == (63, 120, 0)
    # 2019 responses carry neither the refund label nor playtime_at_review.
    assert (sample.share, sample.early_window_reviews) == (None, None)
    assert sample.window is not None and sample.window.to.year == 2019
    assert sample.first_30_days == FirstDaysSplit(sample=0, flagged=0, share=None)
    # summary + 2 positive pages of 50 (60 wanted) + 1 negative page and its empty follower.
    queries = [(h.query["review_type"], h.query["cursor"]) for h in server.hits]
    assert queries == [
        ("all", "*"),
        ("positive", "*"),
        ("positive", "cpositive50"),
        ("negative", "*"),
        ("negative", "cnegative50"),
    ]


def test_sample_game_on_recorded_current_page(served: Served) -> None:
    page = fixture_json("reviews/app_reviews_page.json")
    cursor = page["cursor"]
    empty = {"success": 1, "reviews": [], "cursor": cursor}
    server, client = served(
        {
            "all": {"*": page},
            "positive": {"*": {"success": 1, "reviews": [], "cursor": "*"}},
            "negative": {"*": page, cursor: empty},
        }
    )
    sample = sample_game(client, server.base_url, 620, depth=6, release_date=None, sampled_on=DAY)
    # Totals 1/13 -> 1 positive + 5 negatives wanted; the recording has 3 negatives, all
    # written under 2 hours (90, 11, 14 minutes), none positive.
    assert (sample.sample, sample.early_window_reviews) == (3, 3)
    assert sample.early_window_review_share == 1.0
    assert sample.early_window_positive_share == 0.0
    assert sample.window == DateWindow(from_=dt.date(2023, 1, 3), to=dt.date(2024, 1, 27))
    assert json.loads(sample.model_dump_json(by_alias=True))["window"]["from"] == "2023-01-03"
