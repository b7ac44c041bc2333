"""The sale forecast's backtest (bench.forecast_backtest): the observed prices come from the raw
2026 dumps (data/raw, read raw, not the catalogue), and the figures docs/FORECAST.md, docs/API.md
and /about/score quote are what the backtest computes on the bundled catalogue."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bangscore.scoring import forecast as fc
from bangscore.scoring.records import Catalog
from bench import decision_backtest as db
from bench import forecast_backtest as fb
from bench import forecast_report as fb_report
from tests.support.real_catalogue import EVE

REPO = Path(__file__).resolve().parents[2]
RAW = REPO / "data" / fb.DUMPS


@pytest.mark.parametrize(
    ("appid", "observed"),
    [
        # Stardew Valley, scraped 30 Jun 2026 in the sale: 40% off $14.99.
        pytest.param(413150, (8.99, 14.99, 40), id="stardew-valley"),
        # Hades II, scraped during the sale.
        pytest.param(1145350, None, id="hades-ii"),
    ],
)
def test_observed_prices_come_from_the_raw_dumps_inside_the_sale(
    appid: int, observed: tuple[float, float, int] | None
) -> None:
    found = fb.observed_in_sale(RAW, fb.HELD_OUT, {appid})
    if observed is None:
        # Whatever the dump saw, it saw it inside the sale and with a price.
        assert set(found) <= {appid}
        for price, list_price, discount in found.values():
            assert 0 <= price <= list_price and 0 <= discount <= 100
    else:
        assert found == {appid: observed}


def _figures(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\$?[\d,]+(?:\.\d+)?%?", text))


@pytest.fixture(scope="module")
def backtest(real_eve: tuple[Catalog, Any]) -> fb.Backtest:
    """The backtests run on the real catalogue as of 24 Jun 2026, as `make forecast-backtest`."""
    assert fb.EVE == EVE  # the session's catalogue as of a day is the backtest's
    catalog, scored = real_eve
    records = list(catalog.games)
    observed = fb.observed_in_sale(RAW, fb.HELD_OUT, {r.appid for r in records})
    # Scored as the session scored that catalogue, not again: 2 s of the fixture's 12 s.
    decision = db.decide(catalog, RAW, fb.EVE, scored)
    return fb.run_backtest(records, observed, decision)


def test_the_code_reads_the_tables_the_backtest_fitted(backtest: fb.Backtest) -> None:
    # Fitted on one half of the games (appid's tens digit even), reported on the other.
    assert backtest.calibration == fc.CALIBRATION
    assert backtest.accuracy == fc.STRATUM_ACCURACY
    fit, report = fb.halves(backtest.rows)
    assert fit == [] and len(report) > 5_000  # the rows kept are the reported half's
    # Calibrated, the likelihood beats the raw rule and the base rate on the reported half.
    rel = backtest.reliability
    assert rel.brier < rel.brier_raw < rel.brier_base


def test_the_quoted_figures_are_the_backtests(backtest: fb.Backtest) -> None:
    rows = list(backtest.rows)
    rule = fb.figures(rows, "forecast")
    always = fb.figures(rows, "always discounted")
    assert rule.within_10 is not None and rule.right_call is not None
    assert always.right_call is not None
    headline = db.headline(backtest.decision)
    quoted = {
        "coverage": f"{100 * rule.coverage:.1f}%",
        "right": f"{100 * rule.right_call:.1f}%",
        "always": f"{100 * always.right_call:.1f}%",
        "within": f"{100 * rule.within_10:.1f}%",
        "brier": f"{backtest.reliability.brier:.4f}",
        "base brier": f"{backtest.reliability.brier_base:.4f}",
        "hit rate": f"{100 * (db.hit_rate(backtest.decision) or 0):.1f}%",
    }
    forecast_md = (REPO / "docs" / "FORECAST.md").read_text()
    api_md = (REPO / "docs" / "API.md").read_text()
    about = (REPO / "bangscore" / "site" / "templates" / "about_score.html").read_text()
    assert fb_report.render(backtest, "", "").split("## Method")[1] in forecast_md
    api_section = api_md[api_md.index("## Next sale") : api_md.index("## Genres")]
    about_section = about[about.index('id="forecast-figures"') :]
    for name, value in quoted.items():
        assert value in _figures(api_section), (name, value)
    assert headline in about_section
    for name in ("coverage", "right", "within", "hit rate"):
        assert quoted[name] in _figures(about_section), name
