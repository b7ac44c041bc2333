"""scoring/calibration/bands.py: the review and count bands as tables, and the rows and checks
make calibrate writes into scoring/CALIBRATION.md, measured on the real catalogue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bangscore.build.buyer import buyer_fields
from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.calibration import bands
from bangscore.scoring.pipeline import ScoredGame, is_free
from bangscore.scoring.records import Catalog

CALIBRATION = Path(__file__).parents[3] / "scoring" / "CALIBRATION.md"


@pytest.mark.parametrize(
    ("share", "band"),
    [
        pytest.param(1.0, "95%+", id="all"),
        pytest.param(0.95, "95%+", id="at-95"),
        pytest.param(0.9499, "90-95%", id="under-95"),
        pytest.param(0.80, "80-90%", id="at-80"),
        pytest.param(0.70, "70-80%", id="at-70"),
        pytest.param(0.6999, "50-70%", id="under-70"),
        pytest.param(0.50, "50-70%", id="at-50"),
        pytest.param(0.4999, "under 50%", id="under-50"),
        pytest.param(0.0, "under 50%", id="none"),
    ],
)
def test_review_band(share: float, band: str) -> None:
    assert bands.review_band(share) == band


@pytest.mark.parametrize(
    ("count", "band"),
    [
        pytest.param(2_000_000, "100,000+", id="millions"),
        pytest.param(100_000, "100,000+", id="at-100k"),
        pytest.param(99_999, "10,000+", id="under-100k"),
        pytest.param(1_000, "1,000+", id="at-1000"),
        pytest.param(999, "200+", id="under-1000"),
        pytest.param(200, "200+", id="at-200"),
        pytest.param(199, "under 200", id="under-200"),
        pytest.param(0, "under 200", id="none"),
    ],
)
def test_count_band(count: int, band: str) -> None:
    assert bands.count_band(count) == band


@pytest.fixture(scope="module")
def rows(
    real_cache: Path, bundled: tuple[Catalog, IngestReport]
) -> list[tuple[ScoredGame, dict[str, Any]]]:
    from tests.support.real_catalogue import cached_games

    games = cached_games(real_cache)
    catalog, _ = bundled
    assert catalog.prices_as_of is not None
    return list(zip(games, buyer_fields(games, catalog.prices_as_of.date()), strict=True))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip("|").split("|")]


def test_band_rows_partition_the_catalogue_and_each_row_sums_to_all(
    rows: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    lines = bands.band_rows(rows)
    assert len(lines) == len(bands.BEFORE_BANDS)
    counts = [int(_cells(line)[1].replace(",", "")) for line in lines]
    # Six review bands, then five count bands, then all: each kind of band covers every game.
    assert sum(counts[:6]) == sum(counts[6:11]) == counts[11] == len(rows)
    for line in lines:
        cells = [float(c.rstrip("%")) for c in _cells(line)[2:]]
        tiers, verdicts = cells[:4], cells[4:]
        if int(_cells(line)[1].replace(",", "")):
            assert sum(tiers) == pytest.approx(100, abs=0.3), line
            assert sum(verdicts) == pytest.approx(100, abs=0.3), line


def test_no_game_under_70_percent_is_worth_it_and_the_report_says_so(
    rows: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    # docs/API.md#the-score: under 70% positive, never worth_it or banger at any price.
    under = [g.record.name for g, _ in rows if g.record.review_score < 0.70]
    assert under
    assert [
        g.record.name
        for g, _ in rows
        if g.record.review_score < 0.70 and g.tier in ("banger", "worth_it")
    ] == []
    lines = bands.check_lines(rows)
    assert "- Under 70% positive and `worth_it` or `banger`: 0." in lines
    # The committed report is what the checks measure on today's dumps.
    text = CALIBRATION.read_text(encoding="utf-8")
    assert all(line in text for line in lines)
    assert all(line in text for line in bands.band_rows(rows))


def test_the_sale_target_is_the_lower_of_the_historical_low_and_a_quarter_of_list(
    rows: list[tuple[ScoredGame, dict[str, Any]]],
) -> None:
    paid = [g for g, _ in rows if not is_free(g.record) and g.record.list_price_usd > 0]
    assert len(paid) > 10_000
    for game in paid:
        target = bands.sale_target(game)
        assert target <= round(game.record.list_price_usd / 4, 2) + 0.005
        low = game.record.historical_low_usd
        if low is not None:
            assert target <= round(low, 2) + 0.005
        assert bands.worth_it_at_sale(game) == (
            game.worth_it_at_usd is not None and game.worth_it_at_usd >= target
        )
