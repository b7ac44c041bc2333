"""The ranking report (bench/ranking.py) on the small test catalogue."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bangscore.build.buyer import buyer_fields
from bangscore.ingest.catalog import IngestReport
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import Catalog
from bangscore.scoring.sales import next_sale
from bangscore.scoring.verdict import day
from bench.ranking import KNOWN, main, rows_for, sections
from tests.support import factories
from tests.support.raw_prices import raw_prices
from tests.support.real_catalogue import cached_games

# A verdict's forecast: "likely $8.99 in the Winter Sale from 18 Dec 2026".
FORECAST = re.compile(r"likely \$([\d,.]+) in the ([A-Z][a-z]+ Sale) from (\d{1,2} \w{3} \d{4})")


def test_the_report_lists_the_top_genres_and_the_verdict_counts() -> None:
    games = score_catalog(factories.small_catalog())
    as_of = dt.date(2026, 7, 24)
    rows = list(zip(games, buyer_fields(games, as_of), strict=True))
    text = list(sections(rows, as_of))
    assert (
        text[0]
        == f"Ranking as a player reads it: {len(games)} rated games, prices as of 2026-07-24"
    )
    top = text[text.index("\n== Top 50") + 1]
    assert top.startswith(
        f"{games[0].bang_score:3d} {games[0].tier:8s} {games[0].record.name[:44]}"
    )
    last = games[-1]  # the bottom 50 ends with the last game of the list
    assert text[text.index(f"\n== Top 10 {GENRES[0]}") - 1].startswith(
        f"{last.bang_score:3d} {last.tier:8s} {last.record.name[:44]}"
    )
    counts = text[text.index("\n== Verdicts") + 1]
    assert sum(int(part.split()[1]) for part in counts.split(", ")) == len(games)
    assert text[-2].startswith("paid buy_now at >= 2x a price seen in the past year: ")


@pytest.mark.slow
def test_the_forecast_starts_from_the_build_day_not_from_prices_as_of(
    bundled: tuple[Catalog, IngestReport], real_cache: Path
) -> None:
    """Issue 56: the report printed "likely ... in the Autumn Sale from 1 Oct 2026" for a build
    made in December, forecasting from ``prices_as_of`` (24 Jul 2026). Built for 1 Dec 2026,
    every forecast it prints names the Winter Sale 2026, which has not ended by then."""
    catalog, _ = bundled
    games = cached_games(real_cache)
    assert catalog.prices_as_of is not None
    prices_day = catalog.prices_as_of.date()
    # The catalogue's prices are the dumps' newest scrape day.
    newest_raw = max(at for seen in raw_prices().values() for at, _ in seen).date()
    assert prices_day == newest_raw
    built = dt.date(2026, 12, 1)
    rows = rows_for(games, prices_day, built)
    text = list(sections(rows, prices_day, built))
    assert text[0].endswith(f"prices as of {prices_day}, built for {built}")
    coming = next_sale(built)
    assert (coming.name, coming.year) == ("Winter Sale", 2026) and coming.end >= built
    named = FORECAST.findall("\n".join(text))
    assert len(named) >= 3  # the known games' verdicts name the forecast
    assert {(name, when) for _, name, when in named} == {(coming.name, day(coming.start))}
    # Each forecast price of a known game is at or under the price the dumps saw last.
    fields = {game.record.appid: f for game, f in rows}
    forecast = {a: FORECAST.search(fields[a]["verdict_text"]) for a in KNOWN if a in fields}
    checked = [(a, f) for a, f in forecast.items() if f is not None and a in raw_prices()]
    assert checked  # Hades (1145360) is in no 2026 dump: the others are
    for appid, found in checked:
        assert round(float(found[1]) * 100) <= raw_prices()[appid][-1][1], found[0]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        pytest.param(["--as-of", "2999-01-01"], "is after today", id="a-day-to-come"),
        pytest.param(
            ["--as-of", "2026-06-24", "--catalog", "x.json.gz"], "drop --catalog", id="with-a-file"
        ),
        pytest.param(["--as-of", "24 Jun"], "invalid", id="not-a-date"),
    ],
)
def test_a_day_that_cannot_be_built_is_refused(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2 and says in capsys.readouterr().err
