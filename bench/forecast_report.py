"""docs/FORECAST.md from a run of the backtests (:mod:`bench.forecast_backtest`,
:mod:`bench.decision_backtest`): :func:`render` is a pure function of their results."""

from __future__ import annotations

from collections.abc import Sequence

from bangscore.scoring import forecast as fc
from bench import decision_backtest as db
from bench.forecast_backtest import EVE, HELD_OUT, PICKS, Backtest, Figures, Row, figures


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _usd(value: float | None) -> str:
    return "–" if value is None else f"${value:,.2f}"


def _figures_line(name: str, f: Figures) -> str:
    return (
        f"| {name} | {f.games:,} | {_pct(f.coverage)} | {_pct(f.right_call)} | "
        f"{_pct(f.within_10)} | {_usd(f.median_error_usd)} |"
    )


def baseline_lines(rows: Sequence[Row]) -> list[str]:
    """The forecast beside the three baselines on the reported half."""
    return [
        "| forecaster | games | coverage | discounted-or-not right | within 10% | median error |",
        "|---|---:|---:|---:|---:|---:|",
        *(_figures_line(pick, figures(rows, pick)) for pick in PICKS),
    ]


def variant_lines(backtest: Backtest) -> list[str]:
    """Every deepening variant on both halves, the chosen one marked."""
    lines = [
        "| a discounted game deepens | within 10%, fitting half (choice) "
        "| within 10%, reported half | median error, reported |",
        "|---|---:|---:|---:|",
    ]
    for name, fit, report in backtest.variants:
        mark = " **(chosen)**" if name == backtest.chosen else ""
        lines.append(
            f"| {name}{mark} | {_pct(fit.within_10)} | {_pct(report.within_10)} | "
            f"{_usd(report.median_error_usd)} |"
        )
    return lines


def reliability_lines(backtest: Backtest) -> list[str]:
    """The reliability table of the calibrated likelihood on the reported half, with Brier."""
    rel = backtest.reliability
    lines = [
        "| likelihood | games | mean likelihood | share discounted |",
        "|---|---:|---:|---:|",
    ]
    for low, high, n, mean, share in rel.bins:
        lines.append(f"| {low:.1f}-{high:.1f} | {n:,} | {mean:.3f} | {share:.3f} |")
    lines += [
        "",
        f"Brier score (lower is better): calibrated **{rel.brier:.4f}**, raw rule "
        f"{rel.brier_raw:.4f}, the base rate ({100 * rel.base_rate:.1f}% of the fitting half's "
        f"forecast games discounted, said of every game) {rel.brier_base:.4f}.",
        "",
        "The table the calibration reads (`scoring.forecast.CALIBRATION`, fitted on the fitting "
        "half: mean raw likelihood of a tenth, its share discounted, made non-decreasing):",
        "",
        f"    {backtest.calibration!r}",
    ]
    if tuple(fc.CALIBRATION) != backtest.calibration:
        lines += ["", "**The code's table differs from this run's: copy it in.**"]
    return lines


def strata_lines(backtest: Backtest) -> list[str]:
    """Each stratum's accuracy on both halves and the confidence it sets."""
    report = {k: v for k, v in _accuracy(backtest.rows).items()}
    lines = [
        "| stratum (price found / depth of the sale read) | within 10%, fitting half | confidence "
        "| games, reported | within 10%, reported |",
        "|---|---:|---|---:|---:|",
    ]
    for name, share in backtest.accuracy.items():
        games, odd = report.get(name, (0, None))
        lines.append(
            f"| {name} | {_pct(share)} | {fc.confidence_of(name) if fc.STRATUM_ACCURACY else '–'} "
            f"| {games:,} | {_pct(odd)} |"
        )
    if dict(fc.STRATUM_ACCURACY) != backtest.accuracy:
        lines += ["", "**The code's accuracies differ from this run's: copy them in.**"]
    return lines


def _accuracy(rows: Sequence[Row]) -> dict[str, tuple[int, float]]:
    by: dict[str, list[bool]] = {}
    for r in rows:
        if r.rule is not None and r.stratum is not None:
            by.setdefault(r.stratum, []).append(abs(r.rule[0] - r.observed) <= 0.1 * r.observed)
    return {k: (len(v), sum(v) / len(v)) for k, v in by.items()}


def decision_lines(decision: db.Decision) -> list[str]:
    """The decision backtest's policies, in dollars."""
    figures_ = db.policies(decision)
    count = {
        v: sum(o.verdict == v for o in decision.outcomes)
        for v in ("buy_now", "wait_for_sale", "skip")
    }
    lines = [
        f"The build as of {decision.as_of:%d %b %Y} rated {decision.paid_rated:,} paid games; "
        f"{len(decision.outcomes):,} of them were seen by the raw dumps inside the sale: "
        f"{count['buy_now']:,} `buy_now`, {count['wait_for_sale']:,} `wait_for_sale`, "
        f"{count['skip']:,} `skip`. `wait_for_sale` hit rate (the target reached within 30 "
        f"days): **{_pct(db.hit_rate(decision))}**.",
        "",
        "| policy | games bought | undercut within 30 days (25% and $2) | median saving "
        "| median saving ($) | paid | saved against buying on 24 Jun |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, p in figures_.items():
        lines.append(
            f"| {name} | {p.games:,} | {_pct(p.undercut)} | {_pct(p.median_saving)} | "
            f"{_usd(p.median_saving_usd)} | {_usd(p.paid_usd)} | {_usd(p.saved_usd)} |"
        )
    ours, always = figures_["our buy_now"], figures_["always buy now"]
    newest = decision.prices_as_of
    held = f"from {newest.day} {newest:%b %Y}" if newest else "undated"
    if (ours.undercut or 0) > (always.undercut or 0):
        buys = (
            f"Our `buy_now` games were undercut more often ({_pct(ours.undercut)}) than buying "
            f"every game on 24 Jun ({_pct(always.undercut)}): the verdict reads the prices seen, "
            "not the calendar, so on the eve of a seasonal sale it says buy what the sale cuts."
        )
    else:
        buys = (
            f"Our `buy_now` games were undercut less often ({_pct(ours.undercut)}) than buying "
            f"every game on 24 Jun ({_pct(always.undercut)})."
        )
    reading = (
        f"Reading it: the newest price the build of that day held was {held} (the 2026 price "
        f"dumps begin on 26 Jun), and the Summer Sale began the next day. {buys}"
    )
    waited = figures_["always wait for the next sale"]
    verdicts = figures_["our verdicts (buys and waits; skips buy nothing)"]
    if (waited.median_saving or 0) > (verdicts.median_saving or 0):
        reading += (
            f" Waiting for the next sale, whatever the game, saved a median "
            f"{_pct(waited.median_saving)}, more than following our verdicts "
            f"({_pct(verdicts.median_saving)})."
        )
    return [
        *lines,
        "",
        reading,
        "",
        f'Headline, as /about/score quotes it: "{db.headline(decision)}"',
    ]


def render(backtest: Backtest, when: str, load: str) -> str:
    """Given a backtest run, when it ran and the machine's load, return docs/FORECAST.md."""
    rows = backtest.rows
    model = backtest.model
    learnt = model.sale.title if model.sale else "no sale"
    return "\n".join(
        [
            "# The sale forecast and the verdicts: backtests",
            "",
            f"Generated by `make forecast-backtest` (bench/forecast_backtest.py), {when}, load "
            f"average {load}. The rule is scoring/forecast.py's; docs/API.md#next-sale says what "
            "the API publishes.",
            "",
            "## Method",
            "",
            f"- What we knew: the bundled dumps as of **{EVE:%d %b %Y}** (what `bangscore build "
            f"--as-of {EVE.isoformat()}` builds from). The one seasonal sale their prices saw is "
            f"the {learnt}; the rule is learnt from it.",
            f"- Held out: the **{HELD_OUT.title}** ({HELD_OUT.start:%d %b} to "
            f"{HELD_OUT.end:%d %b %Y}). Observed: each rated paid game's first price in the raw "
            "2026 dumps scraped inside it (17:00 UTC of 25 Jun to 17:00 UTC of 9 Jul 2026); the "
            "dumps reach apps above appid ~745,000 during the sale, so the backtest speaks for "
            "the newer part of the catalogue.",
            "- The split: the games whose appid has an even tens digit (the fitting half) choose "
            "the deepening variant, fit the likelihood's reliability table and measure each "
            "stratum's accuracy; **every other figure is on the other half** (odd tens digit), "
            "which chose nothing.",
            "- Within 10%: |forecast - observed| <= 10% of the observed price. Coverage: the "
            "share of the games observed in the sale that get a forecast.",
            "",
            "## Baselines",
            "",
            *baseline_lines(rows),
            "",
            '"Always discounted" makes a call only (its price figures are blank); the price '
            "baselines forecast every game seen in a seasonal sale.",
            "",
            "## The deepening variant, chosen on half the games",
            "",
            *variant_lines(backtest),
            "",
            "## Calibration",
            "",
            "`discounted_likelihood` is the rule's raw likelihood read off the reliability "
            "table of the fitting half. On the reported half:",
            "",
            *reliability_lines(backtest),
            "",
            "## Confidence",
            "",
            "`next_sale.confidence` is `high` where the forecast's stratum put 70% or more of "
            "its prices within 10% on the fitting half, `medium` from 45%, else `low`:",
            "",
            *strata_lines(backtest),
            "",
            "## The decision backtest",
            "",
            "The verdicts of the build as of 24 Jun 2026 followed by a buyer and scored "
            "against the raw prices of 25 Jun-24 Jul 2026 (bench/decision_backtest.py): a buyer "
            "on 24 Jun pays the list price; a wait buys at the first price at or under its "
            "target, else at the last price of the window.",
            "",
            *decision_lines(backtest.decision),
            "",
            "## Too thin: no forecast",
            "",
            "`next_sale` is null for a free game, for a game seen in no seasonal sale of the 730",
            "days before `prices_as_of`, and for a game with no list price.",
            "",
        ]
    )
