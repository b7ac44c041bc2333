"""scoring/CALIBRATION.md as text (:func:`render_report`): the model's inputs and norms,
the score histogram's tiers, genres, landmarks before and after, top and bottom 25, each
genre's top 10 and the evidence for (and against) the ranking."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from bangscore.scoring import value
from bangscore.scoring.calibration.figures import curve_lines, prior_lines
from bangscore.scoring.calibration.norms import Norms, model_lines, norms_lines
from bangscore.scoring.calibration.summary import Landmark, Summary
from bangscore.scoring.calibration.targets import read_anchors, target_lines
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.tiers import TIERS


class IngestFigures(Protocol):
    """What the report reads of the ingest's report (``bangscore.ingest`` is a layer above:
    its ``IngestReport`` is passed in by the command and read through this shape)."""

    apps: int
    rated: int
    dropped: Counter[str]
    checks: Counter[str]
    years: Counter[int | None]
    length_sources: Counter[str]
    early_window: int
    regional_copies: int
    free_flag: int
    zero_not_free: int
    zero_not_free_reviewed: int
    older_share_offset: float


HISTOGRAM_NAME = "score_histogram.png"
LIST_LENGTH = 25
GENRE_LIST_LENGTH = 10


def _pct(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def _num(x: float | None, fmt: str = ".1f") -> str:
    return "-" if x is None else format(x, fmt)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _game_table(games: Sequence[ScoredGame], first_rank: int) -> list[str]:
    lines = [
        "| # | name | appid | price | reviews (n) | hours (source) | finish rate | score "
        "| tier | genre |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for i, g in enumerate(games):
        r = g.record
        source = "est." if r.length_source == "playtime_estimate" else "HLTB"
        lines.append(
            f"| {first_rank + i} | {_cell(r.name)} | {r.appid} | ${r.price_usd:.2f} "
            f"| {r.review_score:.3f} ({r.review_count:,}) | {g.inputs.length_hours:.1f} "
            f"({source}) | {_num(r.finish_rate, '.2f')} | {g.score:.1f} | {g.tier} | {g.genre} |"
        )
    return lines


def _landmark_row(mark: Landmark, n: int) -> str:
    before = f"{mark.v1 or '-'} | {mark.v2_0 or '-'}"
    if mark.game is None or mark.rank is None:
        why = f"not rated: `{mark.not_rated}`" if mark.not_rated else "unknown to every source"
        return f"| {_cell(mark.name)} | {before} | {why} | - | - | - | - |"
    g, r = mark.game, mark.game.record
    return (
        f"| {_cell(mark.name)} | {before} | #{mark.rank:,} of {n:,} | {g.bang_score} {g.tier} "
        f"({g.genre}) | ${r.price_usd:.2f} | {g.inputs.length_hours:.1f} h ({r.length_source}) "
        f"| {_num(g.worth_it_at_usd, '.2f')} |"
    )


def _report_lines(report: IngestFigures | None) -> list[str]:
    if report is None:
        return []
    years = sorted(report.years.items(), key=lambda kv: kv[0] or 0)
    return [
        "## The catalog",
        "",
        f"{report.apps:,} known apps; {report.rated:,} rated. Not rated, per rule (the first "
        "rule that refuses an app; its detail answers 404 `game_not_rated` with this `reason`):",
        "",
        "| reason | apps |",
        "|---|---:|",
        *[f"| {k} | {v:,} |" for k, v in report.dropped.most_common()],
        "",
        "Length source of the rated games, and the length cross-check "
        "(`ingest/resolve/checks.py`):",
        "",
        "| | games |",
        "|---|---:|",
        *[f"| length_source {k} | {v:,} |" for k, v in report.length_sources.most_common()],
        *[f"| check {k} | {v:,} |" for k, v in report.checks.most_common()],
        f"| early-window reviews known | {report.early_window:,} |",
        "",
        f"Of the `no_usd_price` apps, {report.regional_copies:,} are regional copies of another "
        "listing (`ingest.resolve.checks.regional_copies`: Fallout: New Vegas 22490, Call of Duty: "
        "Modern Warfare 3's 115300), so each game is ranked once; "
        f"{report.zero_not_free:,} are priced $0 only by SteamSpy while the 2024 catalogue says "
        "they are not free to play (`ingest.resolve.checks.zero_is_no_price`: replaced by a later "
        "edition, withdrawn or unreleased), "
        f"{report.zero_not_free_reviewed:,} of them with enough reviews to be rated, which "
        "were shown as free before this check (the original Sleeping Dogs 202170 and Ori and the "
        "Blind Forest 261570).",
        "",
        f"{report.free_flag:,} rated games are priced $0 by a free marker alone (no US price "
        "dump lists them): Steam's own `is_free` flag (the 2024 catalogue, seen on or after "
        "their release: `ingest.resolve.priced.free_price`, dated 2024-10-31), or the "
        "storefront "
        "genre Free to Play of the 2026 record (`free_to_play_price`, dated 2026-07-24).",
        "",
        "Rated games per release year:",
        "",
        "| year | games |",
        "|---|---:|",
        *[f"| {k or 'unknown'} | {v:,} |" for k, v in years],
        "",
    ]


def render_report(
    scored: Sequence[ScoredGame],
    summary: Summary,
    *,
    origin: str,
    generated: dt.date,
    report: IngestFigures | None = None,
    norms: Norms | None = None,
    buyer: Sequence[dict[str, Any]] | None = None,
) -> str:
    """Given the scored catalog in API order, its summary, the catalog's origin, the date of
    the run, the ingest report (or None) and the norms derived from it (or None), return
    CALIBRATION.md as Markdown text."""
    n = summary.games
    tc, gc = summary.tier_counts, summary.genre_counts
    q1, q2, q3 = summary.score_quartiles
    meta_n, meta_rho = summary.spearman_metacritic
    lines = [
        "# Calibration of the bang_score (internal)",
        "",
        "Internal to the team: the formula and these constants are private "
        "(docs/API.md#the-score).",
        "Generated by `make calibrate` (`bangscore.cli.calibrate`) on "
        f"{generated.isoformat()} from the rated catalog of the {origin}: **{n:,} games**, "
        f"score version `{value.SCORE_VERSION}`. The formula and the meaning of every "
        "constant are in the docstring and comments of `scoring/value.py`.",
        "",
        *_report_lines(report),
        *model_lines(),
        *(norms_lines(norms) if norms is not None else []),
        *target_lines(scored, read_anchors()),
        *(
            curve_lines(
                list(zip(scored, buyer, strict=True)),
                report.older_share_offset if report is not None else 0.0,
            )
            if buyer is not None
            else []
        ),
        *prior_lines(scored),
        "## Score distribution",
        "",
        f"![Histogram of bang_score]({HISTOGRAM_NAME})",
        "",
        f"Quartiles of the unrounded score: {q1:.1f} / {q2:.1f} / {q3:.1f}. "
        f"{summary.zero_scores:,} games score 0 (reviews too poor for any price).",
        "",
        "| tier | games | share |",
        "|---|---:|---:|",
        *[f"| {t} | {tc[t]:,} | {_pct(tc[t], n)} |" for t in TIERS],
        "",
        "## Genres",
        "",
        "The median HowLongToBeat main story per genre is what `GENRE_NORM_HOURS` judges depth "
        "and open-ended hours against (floored at `MIN_NORM_HOURS`).",
        "",
        "| genre | games | share | median main story |",
        "|---|---:|---:|---:|",
        *[
            f"| {g} | {gc[g]:,} | {_pct(gc[g], n)} | {_num(summary.genre_median_hours[g])} h |"
            for g in GENRES
        ],
        "",
        f"Tags: {summary.tags_reordered:,} rated games have only the 2024 catalogue's "
        "alphabetical tag set; it is put in the order its tags typically hold in ranked lists "
        "of games of the same storefront genres (`ingest/resolve/tags.py`), which recovers the "
        "genre "
        "of 76% of ranked games from their alphabetised tags (70% alphabetical).",
        "",
        "## Landmarks: where known games landed in score versions 1, 2.0 and now",
        "",
        f"Now is score version {value.SCORE_VERSION}.",
        "",
        "| game | version 1 | version 2.0 | rank now | score (genre) | price | length "
        "| worth it up to |",
        "|---|---|---|---|---|---:|---|---:|",
        *[_landmark_row(mark, n) for mark in summary.landmarks],
        "",
        f"Idle or clicker games, tools and ambient apps (unattended) in the top 100: "
        f"{summary.unattended_in_top_100} (version 1: the top 2; version 2.0: KovaaK's and "
        f"Virtual Cottage in the top 25). Games with an estimated length in the top 50: "
        f"{summary.estimated_in_top_50} (version 2.0: 4). Free games in the top 30: "
        f"{summary.free_in_top_30} (version 1: 10).",
        "",
        "## Estimated lengths",
        "",
        "A game without a HowLongToBeat time gets 0.7 x its positive reviewers' median "
        "playtime (at most 30 h, `ingest/resolve/checks.py`), and the score counts that estimate "
        "as "
        "what a measured main story is likely to be at least (`scoring.value.estimated_hours`). "
        "The check, on the rated games that have both a measured length and the playtime the "
        "estimate is made from: the share whose measured main story is *shorter* than what "
        "their estimate would count for. 25% means the estimate counts as the lower quartile "
        "of measured stories; version 2.0 counted 80% of any estimate, which overshot more and "
        "more as the estimate grew past the genre's normal length (reviewers who idle, replay "
        "or leave a game running).",
        "",
        "| estimate / genre's normal length | games | shorter now | shorter in 2.0 |",
        "|---|---:|---:|---:|",
        *[
            f"| {band} | {count:,} | {now:.0%} | {before:.0%} |"
            for band, count, now, before in summary.estimate_check
        ],
        "",
        "(Only lengths that passed the length check are here; the constants were fitted by "
        "quantile regression on every keyed HowLongToBeat time, refused ones included: "
        "`scoring/value.py`.)",
        "",
        f"## Top {LIST_LENGTH}",
        "",
        *_game_table(scored[:LIST_LENGTH], 1),
        "",
        f"## Bottom {LIST_LENGTH}",
        "",
        *_game_table(scored[-LIST_LENGTH:], n - min(LIST_LENGTH, n) + 1),
        "",
        f"## Top {GENRE_LIST_LENGTH} per genre",
        "",
    ]
    for genre in GENRES:
        best = [g for g in scored if g.genre == genre][:GENRE_LIST_LENGTH]
        names = "; ".join(f"{_cell(g.record.name)} ({g.bang_score})" for g in best)
        lines.append(f"- **{genre}**: {names or '-'}")
    lines += [
        "",
        "## Why we believe the ranking",
        "",
        "- Reviews set the ceiling and price only docks: a game priced at or below what its real "
        "hours are worth in its genre scores its ceiling; above it the score falls with the "
        "excess. The score never rises with price and never "
        "falls with review score, length, replay depth or finish rate: property tests in "
        "`tests/scoring/test_value.py` check this on arbitrary inputs, not only on the catalog.",
        f"- Rank correlation (Spearman) of the score with the review score: "
        f"{summary.spearman_review_score:.2f}; with main-story hours per dollar: "
        f"{summary.spearman_hours_per_usd:.2f}; with the critics' metacritic score "
        f"({meta_n:,} games have one): {_num(meta_rho, '.2f')}.",
        "- Median score by price band (being cheaper than a game's worth earns nothing, and a "
        f"free game keeps {value.LIMITED_SHARE:.0%} of its ceiling, so free games are not best "
        "by price alone):",
        "",
        "| price band | games | median score |",
        "|---|---:|---:|",
        *[
            f"| {band} | {count:,} | {_num(med)} |"
            for band, (count, med) in summary.median_by_price_band.items()
        ],
        "",
        f"- Finish rate known (estimated) for {summary.finish_rate_known:,} games "
        f"({_pct(summary.finish_rate_known, n)}); it is a bonus, never a requirement.",
        "",
        "## Known weaknesses",
        "",
        "- Finish rate is an estimate (share of players whose playtime reaches the main-story "
        "length under a log-normal fit of owners' or, failing that, reviewers' playtime), not "
        "an observed completion statistic. Reviewers play longer than owners, so the second "
        "source overstates it.",
        "- Lengths estimated from reviewers' playtime (`length_source` `playtime_estimate`) "
        "count as the lower quartile of measured stories, but a replayable game still gets "
        "its replay depth from the same playtime, as a measured one does: 14 Minesweeper "
        "Variants 2 (81 h median, procedural puzzles) stays near the top 50 on its replay "
        "depth, not on its estimated story.",
        "- Reconstructed tag order (the 2024 catalogue's alphabetical sets) gets about one "
        "genre in four wrong, and can lift a low tag into the play rules' top 10: WEBFISHING "
        "(a social fishing game) counts as idle for its 'Idler' tag.",
        "- Prices: the June-July 2026 US price history prices 82% of the 2019-2026 "
        "catalogue; a release with no US price in any dump is not rated (`no_usd_price`), "
        "unless the storefront's record of 2026-07-24 files it under Free to Play ("
        "priced $0 at that date, source `steam_pics_2026`; Marvel Rivals, Wuthering "
        "Waves, Delta Force, Where Winds Meet, FragPunk) or the 2024 catalogue flags it "
        "`is_free` ($0 as of 2024-10-31). Deltarune, Pipistrello and the Cursed Yoyo and Dead "
        "as Disco stay `no_usd_price`: no dump prices them, the first two are known only as "
        "unreleased 2024 listings with no reviews, and Dead as Disco is a paid Early Access "
        "game the 2026 price scraper skipped. Apps above appid ~745,000 were "
        "last seen in the Summer Sale 2026 (June 26 - July 3): that sale is over at the "
        "catalogue's as-of time (2026-07-24), so they are scored at their list price.",
        "- Review counts: the largest no-older lower bound wins (the 2026 sample of at most "
        "1,000-3,000 recent reviews of any purchase type, or the least count Steam's review "
        "summary implies), listed in `estimated` as `review_count`; for many small games the "
        "2026 sample outnumbers SteamSpy's January 2025 total.",
        f"- Genre: {gc['other']:,} games ({_pct(gc['other'], n)}) are `other` (simulation, "
        "sandbox, survival crafting, racing, sports, puzzle, management). The one-genre rule "
        "(`scoring/genres.py`) is checked against 200 games labelled by hand and 12 cited cases "
        "(`tests/scoring/genre_labels.csv`); what it misses sits between two genres: co-op "
        "shooters, puzzle adventures with a story, short indie games tagged Action; Slime "
        "Rancher and Aground stay `action` (nothing in their first five tags says life sim or "
        "survival crafting). A genre sets the normal length and price a game is judged "
        "against, and `other` mixes 5-hour puzzles with 100-hour farming sims, so long sims "
        "(Farming Simulator) do well against its norm.",
        "- A full-price acclaimed long game is worth it, rarely a banger: Baldur's Gate 3 and "
        "Elden Ring at $59.99 rank in the top few thousand, not the top 100, which cheaper "
        "well-loved games hold; their genre percentile is about 0.9.",
        "- Tools are found by their players' tags ('Software Training', 'Utilities' in the "
        "top 10); an aim trainer or desktop app without them counts its hours like a game.",
        "",
    ]
    return "\n".join(lines)
