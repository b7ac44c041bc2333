"""The price chart: well-formed SVG, markers where the thresholds are, a text alternative,
and a curve that never rises with price."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from bangscore.site.chart import axis_top, nice_ceiling, price_curve_svg

SVG = "{http://www.w3.org/2000/svg}"


def falling(at_zero: float = 90.0, per_dollar: float = 1.0) -> Callable[[float], float]:
    """A score flat up to $5, then falling linearly, like the model's price floor."""
    return lambda p: max(0.0, at_zero - per_dollar * max(p, 5.0))


def labels(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == "marker-label"]


@pytest.mark.parametrize(
    ("value", "top", "step"),
    [(10.0, 10.0, 2.0), (12.5, 12.5, 2.5), (13.0, 15.0, 2.5), (60.0, 60.0, 10.0), (7.0, 8.0, 2.0)],
    ids=["10", "12.5", "13", "60", "7"],
)
def test_nice_ceiling_gives_few_round_ticks(value: float, top: float, step: float) -> None:
    assert nice_ceiling(value) == (top, step)


@pytest.mark.parametrize(
    ("prices", "today", "top"),
    [
        ([19.99], 19.99, 22.9885),
        ([4.99, 10.81], 4.99, 12.4315),
        ([2.0], 2.0, 10.0),
        ([19.99, 400.0], 19.99, 79.96),
        ([0.0], 0.0, 10.0),
    ],
    ids=["today-only", "threshold", "at-least-10", "far-threshold-capped", "free"],
)
def test_axis_covers_the_marked_prices_within_a_cap(
    prices: list[float], today: float, top: float
) -> None:
    assert axis_top(prices, today) == pytest.approx(top)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"historical_low_usd": 7.5, "worth_it_at_usd": 25.0, "becomes_banger_at_usd": 10.0},
            ["price $19.99", "low $7.50", "banger $10.00", "worth it $25.00"],
        ),
        (
            {"historical_low_usd": None, "worth_it_at_usd": None, "becomes_banger_at_usd": None},
            ["price $19.99"],
        ),
        (
            {"historical_low_usd": None, "worth_it_at_usd": 500.0, "becomes_banger_at_usd": 300.0},
            ["price $19.99"],  # both beyond the chart's right edge: named in the page text only
        ),
    ],
    ids=["all-markers", "none-known", "thresholds-off-chart"],
)
def test_markers_drawn_only_for_known_prices_on_the_chart(
    kwargs: dict[str, float | None], expected: list[str]
) -> None:
    svg = price_curve_svg(falling(), price_usd=19.99, name="Hades", **kwargs)  # type: ignore[arg-type]
    assert sorted(labels(svg)) == sorted(expected)


def test_svg_is_accessible_and_self_contained() -> None:
    svg = price_curve_svg(
        falling(),
        price_usd=19.99,
        historical_low_usd=7.5,
        worth_it_at_usd=25.0,
        becomes_banger_at_usd=10.0,
        name="Tom & Jerry <3",
    )
    root = ET.fromstring(svg)  # well-formed, names escaped
    assert root.get("role") == "img"
    title = root.find(f"{SVG}title")
    desc = root.find(f"{SVG}desc")
    assert title is not None and title.text == "bang_score of Tom & Jerry <3 against its price"
    assert desc is not None and desc.text is not None
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert "At its price of $19.99 it scores 70." in desc.text
    assert "At its historical low of $7.50 it scores 83." in desc.text
    assert "It is worth it (65 or more) at $25.00 or less." in desc.text
    assert "<script" not in svg and "href" not in svg
    # Readable without colour: each marker has its own shape and line pattern.
    dashes = [line.get("stroke-dasharray") for line in root.iter(f"{SVG}line")]
    assert {"2 3", "6 4", "12 4"} <= set(dashes)


def test_curve_never_rises_and_today_sits_on_it() -> None:
    score_at = falling(95.0, 1.5)
    svg = price_curve_svg(
        score_at,
        price_usd=12.0,
        historical_low_usd=None,
        worth_it_at_usd=None,
        becomes_banger_at_usd=None,
    )
    root = ET.fromstring(svg)
    curve = next(p for p in root.iter(f"{SVG}polyline") if p.get("class") == "curve")
    points = [tuple(map(float, pair.split(","))) for pair in (curve.get("points") or "").split()]
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    assert xs == sorted(xs) and len(points) > 45
    assert ys == sorted(ys)  # SVG y grows downward: the score never rises with price
    today = next(c for c in root.iter(f"{SVG}circle"))
    cx, cy = float(today.get("cx") or 0), float(today.get("cy") or 0)
    assert (cx, cy) in points


def test_no_label_overlaps_another_in_its_row() -> None:
    svg = price_curve_svg(
        falling(),
        price_usd=10.0,
        historical_low_usd=9.5,
        worth_it_at_usd=10.5,
        becomes_banger_at_usd=9.0,
    )
    rows: dict[str, list[float]] = {}
    for match in re.finditer(r'<text x="([\d.]+)" y="([\d.]+)" class="marker-label"', svg):
        rows.setdefault(match[2], []).append(float(match[1]))
    assert len(rows) >= 2  # four labels within $1.50 of each other: stacked in rows
    for xs in rows.values():
        xs.sort()
        assert all(b - a > 40 for a, b in itertools.pairwise(xs))
