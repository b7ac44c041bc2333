"""Each rated game's own objects (docs/API.md#snapshots): its detail record, its website page
and its badge, drawn from what :func:`bangscore.build.snapshot.snapshot_objects` prepared for
the whole catalogue, and rendered by forked processes when asked.

The pages and badges are most of a build's work (on the real catalogue about four fifths of
the rendering's CPU, a profile of 2 Dec 2026), and an API answer needs none of them: ``make
run`` publishes its snapshot without them and writes them once it answers (:class:`LaterPages`,
:func:`bangscore.build.publish.complete_pages`), so a fresh clone answers sooner (issue 56).
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from bangscore.build.buyer import price_date, price_points
from bangscore.build.score_history import ScorePoint
from bangscore.build.score_history import wire as score_wire
from bangscore.build.wire import check, detail_record, dumps
from bangscore.contract.compact import cents
from bangscore.contract.objects import badge_key, detail_key, game_page_key
from bangscore.contract.records import GameDetail
from bangscore.scoring.pipeline import ScoredGame, is_free
from bangscore.scoring.verdict import day
from bangscore.site.badge import badge
from bangscore.site.better_value import Candidate, better_value
from bangscore.site.chart import NARROW_WIDTH as NARROW_CHART
from bangscore.site.chart import WIDTH as WIDE_CHART
from bangscore.site.chart import PriceCurve, chart_prices, price_curves
from bangscore.site.history_chart import NARROW_WIDTH as NARROW_HISTORY
from bangscore.site.history_chart import WIDTH as WIDE_HISTORY
from bangscore.site.history_chart import (
    HistoryPoint,
    PriceHistory,
    ScoreMark,
    history_rows,
    price_histories,
)
from bangscore.site.render import SiteRenderer
from bangscore.storage import StoredObject

JSON_TYPE = "application/json"
HTML_TYPE = "text/html; charset=utf-8"
SVG_TYPE = "image/svg+xml"


def is_adult(item: Mapping[str, Any]) -> bool:
    """Given a list item, return its ``adult`` flag (False for an item without one)."""
    return bool(item.get("adult", False))


def candidates(games: Sequence[ScoredGame], items: Sequence[dict[str, Any]]) -> list[Candidate]:
    """Given games in list order and their list items, return them as the better-value box
    reads them, adult games hidden: a game page is precomputed for the site's default, which
    hides adult games (the shim recomposes the box for ``adult=true``)."""
    return [
        Candidate(g.genre, g.bang_score, cents(g.record.price_usd), is_adult(i))
        for g, i in zip(games, items, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class GamePages:
    """What every game's objects are drawn from: the games in list order, their list items,
    the positions of the better games of each game's genre (None until :meth:`with_better`),
    the buyer fields, the genres' typical figures, the renderer, the site URL and the
    snapshot's dates."""

    games: Sequence[ScoredGame]
    items: Sequence[dict[str, Any]]
    better: Sequence[Sequence[int]] | None
    buyer: Sequence[dict[str, Any]]
    typical: Mapping[str, Any]
    site: SiteRenderer
    site_url: str
    prices_as_of: dt.datetime | None
    as_of_day: dt.date | None
    dates: dict[str, str | None]
    histories: Mapping[int, Sequence[ScorePoint]]

    def with_better(self) -> GamePages:
        """Return these games' objects' sources with the better-value boxes' positions."""
        if self.better is not None:
            return self
        return replace(self, better=better_value(candidates(self.games, self.items)))

    def objects(self, n: int, *, details: bool = True, website: bool = True) -> list[StoredObject]:
        """Given a position in list order, return that game's detail record (with
        ``details``), then its page and badge (with ``website``)."""
        game, extra = self.games[n], self.buyer[n]
        history = self.histories.get(game.record.appid, ())
        detail = detail_record(
            game, self.site_url, self.prices_as_of, extra, self.items[n], score_wire(history)
        )
        appid = game.record.appid
        out: list[StoredObject] = []
        if details:
            record = dumps(detail)
            check(GameDetail, record)
            out.append(StoredObject(detail_key(appid), record, JSON_TYPE))
        if not website:
            return out
        assert self.better is not None, "the better-value boxes first: GamePages.with_better"
        points = price_points(game.record)
        marks = [ScoreMark(p.date, p.bang_score) for p in history]
        typical = self.typical[game.genre]
        html = self.site.game_page(
            detail,
            # A free game's page has no value-at-every-price chart (nothing to price).
            charts=() if is_free(game.record) else price_chart(game, detail),
            histories=history_chart(points, self.as_of_day, detail["name"], marks),
            history_rows=history_rows(points),
            better=[self.items[i] for i in self.better[n]],
            typical_price_per_hour=typical.price_per_hour,
            typical_hours=typical.hours,
            dates=self.dates,
        )
        svg = self.site.badge_svg(
            badge(name=game.record.name, bang_score=game.bang_score, tier=game.tier)
        )
        out.append(StoredObject(game_page_key(appid), html, HTML_TYPE))
        out.append(StoredObject(badge_key(appid), svg, SVG_TYPE))
        return out


class LaterPages:
    """The games' pages and badges a build leaves until after it publishes (``make run``):
    handed to :func:`~bangscore.build.snapshot.snapshot_objects` as ``later``, it is given
    what they are drawn from instead of rendering them, and :meth:`objects` renders them
    afterwards, the same bytes a build rendering them at once would have published."""

    def __init__(self) -> None:
        self._pages: GamePages | None = None

    def take(self, pages: GamePages) -> None:
        """Given what the games' objects are drawn from, keep it for :meth:`objects`."""
        self._pages = pages

    def __len__(self) -> int:
        """Return how many objects :meth:`objects` yields: two a game (0 before :meth:`take`)."""
        return 2 * len(self._pages.games) if self._pages is not None else 0

    def objects(self, workers: int = 1) -> Iterator[StoredObject]:
        """Given a number of processes, yield each game's page and badge in list order;
        raise RuntimeError if the snapshot's objects were not all drawn yet (nothing taken)."""
        if self._pages is None:
            raise RuntimeError("no game pages to render: the snapshot's objects were not drawn")
        yield from game_objects(self._pages.with_better(), workers, details=False)


GAMES_PER_TASK = 200  # about 2.5 MB of pages a task: little to pickle, many tasks to share
_PAGES: GamePages | None = None  # set before the workers fork; they inherit it


def _render(task: tuple[int, int, bool, bool]) -> list[StoredObject]:
    assert _PAGES is not None, "a render worker runs only in a process forked by game_objects"
    start, stop, details, website = task
    return [
        obj
        for n in range(start, stop)
        for obj in _PAGES.objects(n, details=details, website=website)
    ]


def game_objects(
    pages: GamePages, workers: int = 1, *, details: bool = True, website: bool = True
) -> Iterator[StoredObject]:
    """Given what the games' objects are drawn from and a number of processes, yield each
    game's detail record (with ``details``), page and badge (with ``website``) in list order.

    With ``workers`` > 1, forked processes render blocks of games (they inherit ``pages``, so
    nothing but the finished objects crosses between processes); at most two blocks per worker
    wait, so memory stays bounded when the writer is slower than the renderers.
    """
    if workers <= 1 or len(pages.games) <= GAMES_PER_TASK:
        for n in range(len(pages.games)):
            yield from pages.objects(n, details=details, website=website)
        return
    global _PAGES
    _PAGES = pages
    tasks = [
        (start, min(start + GAMES_PER_TASK, len(pages.games)), details, website)
        for start in range(0, len(pages.games), GAMES_PER_TASK)
    ]
    context = multiprocessing.get_context("fork")
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            pending: deque[Future[list[StoredObject]]] = deque()
            for task in tasks:
                pending.append(pool.submit(_render, task))
                if len(pending) > 2 * workers:
                    yield from pending.popleft().result()
            while pending:
                yield from pending.popleft().result()
    finally:
        _PAGES = None


def history_chart(
    points: Sequence[HistoryPoint],
    as_of: dt.date | None,
    name: str,
    scores: Sequence[ScoreMark] = (),
) -> list[PriceHistory]:
    """Given a game's dated prices, the prices' as-of date, its name and its score marks,
    return the game page's price-history charts (geometry): one for wide screens, one for
    phones."""
    return price_histories(
        points,
        as_of=as_of,
        name=name,
        charts=(("history-chart", WIDE_HISTORY), ("history-chart-narrow", NARROW_HISTORY)),
        scores=scores,
    )


def score_at_price(game: ScoredGame, detail: dict[str, Any]) -> Callable[[float], float]:
    """Given a scored game and its detail record, return the lookup of its unrounded score
    (0..100) at each price the chart reads (:func:`chart_prices`), sampled once from the score
    curve scoring returned: the chart makes no call into the model."""
    samples = game.curve.sample(
        chart_prices(
            detail["price_usd"],
            detail["historical_low_usd"],
            detail["worth_it_at_usd"],
            detail["becomes_banger_at_usd"],
        )
    )
    return samples.__getitem__


def price_chart(game: ScoredGame, detail: dict[str, Any]) -> list[PriceCurve]:
    """Given a scored game and its detail record, return the game page's price charts
    (geometry): one drawn for wide screens and one for phones, the page's style showing one of
    them."""
    seen = price_date(game.record)
    return price_curves(
        score_at_price(game, detail),
        price_usd=detail["price_usd"],
        historical_low_usd=detail["historical_low_usd"],
        worth_it_at_usd=detail["worth_it_at_usd"],
        becomes_banger_at_usd=detail["becomes_banger_at_usd"],
        name=detail["name"],
        charts=(("price-chart", WIDE_CHART), ("price-chart-narrow", NARROW_CHART)),
        price_date=day(seen) if seen else None,
    )
