"""The sale forecast's backtest (bench.forecast_backtest): the observed prices come from the raw
2026 dumps (data/raw, read raw, not the catalogue), and the figures docs/FORECAST.md, docs/API.md
and /about/score quote are what the backtest computes on the bundled catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.records import Catalog
from bench import forecast_backtest as fb

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
    return tuple(re.findall(r"\$?\d+(?:\.\d+)?%?", text))


def test_the_quoted_figures_are_the_backtests(bundled: tuple[Catalog, IngestReport]) -> None:
    catalog, _ = bundled
    records = list(catalog.games)
    observed = fb.observed_in_sale(RAW, fb.HELD_OUT, {r.appid for r in records})
    rows, model = fb.evaluate(records, observed, fb.HELD_OUT)
    rule, naive = fb.figures(rows, "rule"), fb.figures(rows, "naive")
    assert model.sale is not None and model.sale.title == "Winter Sale 2024"
    assert rule.coverage == naive.coverage > 0.7
    assert rule.within_10 is not None and naive.within_10 is not None
    assert rule.within_10 > naive.within_10  # the rule wins on price, narrowly
    quoted = {
        "coverage": f"{100 * rule.coverage:.1f}%",
        "right": f"{100 * (rule.right_call or 0):.1f}%",
        "within": f"{100 * rule.within_10:.1f}%",
        "naive within": f"{100 * naive.within_10:.1f}%",
        "error": f"${rule.median_error_usd:.2f}",
        "naive error": f"${naive.median_error_usd:.2f}",
    }
    forecast_md = (REPO / "docs" / "FORECAST.md").read_text()
    api_md = (REPO / "docs" / "API.md").read_text()
    about = (REPO / "bangscore" / "site" / "templates" / "about_score.html").read_text()
    row = (
        f"| all games, forecast | {len(rows):,} | {quoted['coverage']} | {quoted['right']} | "
        f"{quoted['within']} | {quoted['error']} |"
    )
    assert row in forecast_md
    api_section = api_md[api_md.index("## Next sale") : api_md.index("## Genres")]
    about_section = about[about.index('id="forecast-figures"') :]
    for name, value in quoted.items():
        assert value in _figures(api_section), (name, value)
        assert value in _figures(about_section), (name, value)
    forward = fb.forward_reach(records, catalog.prices_as_of.date(), observed)  # type: ignore[union-attr]
    assert forward.forecast / forward.paid >= 0.7
    assert f"**{forward.forecast:,}" in forecast_md
