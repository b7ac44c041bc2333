"""The sale forecast's rule (scoring.forecast) on small hand-made histories: the likelihood,
the price, the basis, the deepening of a young game and the cases too thin to forecast."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.scoring import forecast as fc
from bangscore.scoring.sales import SALES, Sale

D = dt.date
WINTER_2024 = D(2025, 1, 1)
SUMMER_2026 = D(2026, 6, 30)
AS_OF = D(2026, 7, 24)
AUTUMN = Sale("Autumn Sale", 2026, D(2026, 10, 1), D(2026, 10, 8), "test")


def seen(day: dt.date, price: float, list_price: float) -> fc.Observed:
    discount = round(100 * (1 - price / list_price))
    return fc.Observed(day, price, list_price, discount)


def game(
    *history: fc.Observed, publisher: str = "P", released: dt.date | None = None
) -> fc.GameFacts:
    return fc.GameFacts(publisher, released or D(2015, 1, 1), list(history))


# A cross-section to learn from: 8 games of publisher "Deep" discounted in the Summer Sale 2026,
# 2 of "Shy" discounted and 6 not, all released in 2015.
PEERS = [
    *(game(seen(SUMMER_2026, 5.0, 20.0), publisher="Deep") for _ in range(8)),
    *(game(seen(SUMMER_2026, 10.0, 20.0), publisher="Shy") for _ in range(2)),
    *(game(seen(SUMMER_2026, 20.0, 20.0), publisher="Shy") for _ in range(6)),
]
MODEL = fc.fit(PEERS, AS_OF)


def test_fit_learns_from_the_sale_most_games_were_seen_in() -> None:
    assert MODEL.sale is not None and MODEL.sale.title == "Summer Sale 2026"
    assert MODEL.publishers == {"deep": (8, 1.0), "shy": (8, 0.25)}
    assert MODEL.overall_share == 10 / 16
    # Games 11 years old at the sale's start: 10 of 16 discounted, median depth of 75 and 50.
    assert MODEL.age_share[11] == 10 / 16
    assert MODEL.age_depth[11] == 75.0


@pytest.mark.parametrize(
    ("history", "publisher", "price", "likelihood", "basis"),
    [
        pytest.param(
            (seen(WINTER_2024, 8.99, 14.99), seen(SUMMER_2026, 8.99, 14.99)),
            "Deep",
            8.99,
            (2 + 1.0) / 3,
            "sold at $8.99 in the last 2 of 2 seasonal sales seen",
            id="repeats-twice",
        ),
        pytest.param(
            (seen(WINTER_2024, 11.99, 14.99), seen(SUMMER_2026, 8.99, 14.99)),
            "Shy",
            8.99,
            (2 + 0.25) / 3,
            "sold at $8.99 in the last 1 of 2 seasonal sales seen",
            id="the-newest-depth",
        ),
        pytest.param(
            (seen(WINTER_2024, 8.99, 14.99), seen(SUMMER_2026, 14.99, 14.99)),
            "Shy",
            14.99,
            (1 + 0.25) / 3,
            "discounted in 1 of 2 seasonal sales seen, not in the Summer Sale 2026; "
            "25% of its publisher's games were",
            id="discount-unlikely-list-price",
        ),
        pytest.param(
            (seen(SUMMER_2026, 19.99, 19.99),),
            "Deep",
            19.99,
            (0 + 1.0) / 2,
            "not discounted in the 1 seasonal sale seen; 100% of its publisher's games were",
            id="never-seen-discounted-is-never-called-discounted",
        ),
        pytest.param(
            (seen(WINTER_2024, 10.0, 20.0), fc.Observed(AS_OF, 25.0, 25.0, 0)),
            "Unknown",
            12.5,
            (1 + 10 / 16) / 2,
            "$10.00 (50% off) in the Winter Sale 2024, discounted in 1 of 1 seasonal sales seen; "
            "50% off of its list price, now $25.00",
            id="the-depth-off-the-new-list-price",
        ),
    ],
)
def test_forecast(
    history: tuple[fc.Observed, ...], publisher: str, price: float, likelihood: float, basis: str
) -> None:
    # The rule's own likelihood (table=(): uncalibrated); the calibration is tested below.
    made = fc.forecast(MODEL, AUTUMN, game(*history, publisher=publisher), table=())
    assert made is not None
    assert (made.expected_price_usd, made.basis) == (price, basis)
    assert made.discounted_likelihood == made.raw_likelihood == pytest.approx(likelihood)
    # Called discounted only with a discounted price: a game never seen discounted is not.
    assert made.discounted == (likelihood >= 0.5 and price < history[-1].list_price_usd)


def age_curve() -> fc.ForecastModel:
    """Return the model learnt from games under a year old at the sale 20% off and
    two-year-old ones 50% off."""
    young = [game(seen(SUMMER_2026, 8.0, 10.0), released=D(2026, 3, 1)) for _ in range(5)]
    older = [game(seen(SUMMER_2026, 5.0, 10.0), released=D(2024, 6, 1)) for _ in range(5)]
    return fc.fit([*young, *older], AS_OF)


def test_no_deepening_for_an_unknown_age_and_none_past_the_curves_last_point() -> None:
    model = age_curve()
    assert model.deepening(None, 1.25) == model.deepening(0.32, None) == 0.0
    # Past the curve's last point (two years, 50%) the depth is that point's: from 20 at
    # 0.32 years to 50 at 9, and nothing deeper from 2.5 years to 9.
    assert model.deepening(0.32, 9.0) == 30.0
    assert model.deepening(2.5, 9.0) == 0.0


def test_a_game_under_a_year_old_deepens_along_the_age_curve() -> None:
    model = age_curve()
    assert model.age_depth[:3] == (20.0, None, 50.0)
    winter = Sale("Winter Sale", 2027, D(2027, 6, 1), D(2027, 6, 8), "test")
    launch = game(seen(SUMMER_2026, 8.0, 10.0), released=D(2026, 3, 1))
    # 0.32 years old then (20, the curve's first point), 1.25 at the sale (20 + 30 * 0.75 / 2):
    # 11 points deeper, 31% off $10: under the lowest price ever seen, $8.00, which one sale
    # cannot show deepening, so $8.00 stands ...
    floored = fc.forecast(model, winter, launch, table=())
    assert floored is not None and floored.expected_price_usd == 8.0
    assert floored.stratum == "floored"
    # ... while two sales, the second deeper, let it go under: $6.90.
    deeper = game(
        seen(D(2025, 12, 20), 9.0, 10.0), seen(SUMMER_2026, 8.0, 10.0), released=D(2026, 3, 1)
    )
    made = fc.forecast(model, winter, deeper, table=())
    assert made is not None and made.expected_price_usd == 6.9
    assert "games of its age go 11 points deeper" in made.basis
    # The same game, one year older: past its launch window, its depth holds.
    old = game(seen(SUMMER_2026, 8.0, 10.0), released=D(2025, 3, 1))
    held = fc.forecast(model, winter, old, table=())
    assert held is not None and held.expected_price_usd == 8.0
    assert held.stratum == "repeat/shallow"


@pytest.mark.parametrize(
    "history",
    [
        pytest.param((), id="no-price-at-all"),
        pytest.param((fc.Observed(D(2026, 7, 20), 9.99, 9.99, 0),), id="seen-in-no-sale"),
        pytest.param((seen(D(2023, 12, 25), 4.99, 9.99),), id="its-sale-older-than-730-days"),
        pytest.param(
            (fc.Observed(WINTER_2024, 5.0, 20.0, 75, estimated=True),), id="only-an-estimate"
        ),
        pytest.param((fc.Observed(SUMMER_2026, 0.0, 0.0, 0),), id="free"),
    ],
)
def test_too_thin_to_forecast(history: tuple[fc.Observed, ...]) -> None:
    assert fc.forecast(MODEL, AUTUMN, game(*history)) is None


def test_sales_seen_takes_the_first_observation_in_each_sale() -> None:
    history = [
        seen(SUMMER_2026, 8.99, 14.99),
        seen(D(2026, 7, 5), 7.49, 14.99),
        seen(WINTER_2024, 11.99, 14.99),
        fc.Observed(D(2026, 7, 20), 14.99, 14.99, 0),
    ]
    found = fc.sales_seen(history, AS_OF)
    assert [(s.sale.title, s.price_usd) for s in found] == [
        ("Winter Sale 2024", 11.99),
        ("Summer Sale 2026", 8.99),
    ]


def test_the_wire_value_is_the_contracts() -> None:
    made = fc.forecast(MODEL, fc.next_sale(AS_OF), game(seen(SUMMER_2026, 8.99, 14.99)), table=())
    assert made is not None
    assert made.wire() == {
        "name": "Autumn Sale",
        "starts": "2026-10-01",
        "ends": "2026-10-08",
        "expected": False,
        "expected_price_usd": 8.99,
        "discounted_likelihood": 0.812,
        "confidence": fc.confidence_of("repeat/shallow"),
        "basis": "sold at $8.99 in the last 1 of 1 seasonal sales seen",
    }
    assert fc.next_sale(AS_OF) in SALES


@pytest.mark.parametrize(
    ("day", "title"),
    [
        (D(2026, 7, 24), "Autumn Sale 2026"),
        (D(2026, 10, 8), "Autumn Sale 2026"),  # its last day: it still runs
        (D(2026, 10, 9), "Winter Sale 2026"),
        (D(2026, 12, 1), "Winter Sale 2026"),
        (D(2026, 12, 25), "Winter Sale 2026"),  # running
        (D(2027, 1, 5), "Spring Sale 2027"),
    ],
    ids=["after-the-prices", "autumn-last-day", "after-autumn", "1-dec", "mid-winter", "2027"],
)
def test_the_next_sale_is_the_first_that_ends_on_or_after_the_day(day: dt.date, title: str) -> None:
    sale = fc.next_sale(day)
    assert sale.title == title and sale.end >= day


@pytest.mark.parametrize(
    ("list_cents", "depth", "shown"),
    [(1999, 75, 499), (1999, 50, 999), (83 * 100 // 83, 0, 100), (2999, 33, 2009), (999, 90, 99)],
    ids=["$19.99-75%", "$19.99-50%", "no-depth", "$29.99-33%", "$9.99-90%"],
)
def test_a_whole_percent_depth_is_cut_to_the_cent(list_cents: int, depth: int, shown: int) -> None:
    assert fc.storefront_cents(list_cents, depth) == shown


def test_the_seen_sale_price_repeats_when_the_list_price_is_unchanged() -> None:
    # $0.83 seen at 83% off $4.99: the depth off $4.99 gives $0.84; the storefront showed $0.83.
    made = fc.forecast(MODEL, AUTUMN, game(fc.Observed(SUMMER_2026, 0.83, 4.99, 83)), table=())
    assert made is not None and made.expected_price_usd == 0.83


def test_a_depth_is_never_applied_to_a_cut_list_price() -> None:
    # 90% off $9.99 seen, then the list price cut to $0.99: the seen $0.99 stands, not $0.09.
    history = (fc.Observed(SUMMER_2026, 0.99, 9.99, 90), fc.Observed(AS_OF, 0.99, 0.99, 0))
    made = fc.forecast(MODEL, AUTUMN, game(*history, publisher="Deep"), table=())
    assert made is not None and made.expected_price_usd == 0.99 and not made.discounted


@pytest.mark.parametrize(
    ("history", "released", "why"),
    [
        ((seen(SUMMER_2026, 8.99, 14.99),), D(2026, 9, 20), "released 20 Sep 2026"),
        (
            (
                seen(SUMMER_2026, 8.99, 14.99),
                fc.Observed(D(2026, 9, 10), 14.99, 14.99, 0),
                fc.Observed(D(2026, 9, 20), 19.99, 19.99, 0),
            ),
            D(2015, 1, 1),
            "its list price rose to $19.99 after 10 Sep 2026",
        ),
    ],
    ids=["released-within-28-days", "price-rise-within-28-days"],
)
def test_steamworks_allows_no_seasonal_discount_within_28_days(
    history: tuple[fc.Observed, ...], released: dt.date, why: str
) -> None:
    model = fc.fit(PEERS, D(2026, 9, 25))
    made = fc.forecast(model, AUTUMN, game(*history, publisher="Deep", released=released))
    assert made is not None and not made.discounted and made.discounted_likelihood == 0.0
    assert made.basis.startswith(why) and made.stratum == "steamworks"
    assert made.expected_price_usd == history[-1].list_price_usd


@pytest.mark.parametrize(
    ("raw", "table", "calibrated"),
    [
        (0.4, (), 0.4),
        (0.4, ((0.2, 0.3), (0.6, 0.7)), 0.5),
        (0.1, ((0.2, 0.3), (0.6, 0.7)), 0.3),
        (0.9, ((0.2, 0.3), (0.6, 0.7)), 0.7),
    ],
    ids=["no-table", "between-points", "below-the-first", "above-the-last"],
)
def test_the_likelihood_is_read_off_the_reliability_table(
    raw: float, table: tuple[tuple[float, float], ...], calibrated: float
) -> None:
    assert fc.calibrated(raw, table) == pytest.approx(calibrated)


def test_the_basis_says_when_the_prices_are_older_than_30_days() -> None:
    history = (seen(SUMMER_2026, 8.99, 14.99),)
    fresh = fc.forecast(MODEL, AUTUMN, game(*history), day=D(2026, 7, 24), table=())
    old = fc.forecast(MODEL, AUTUMN, game(*history), day=D(2026, 12, 1), table=())
    assert fresh is not None and old is not None
    assert "last seen" not in fresh.basis
    assert old.basis.endswith("; prices last seen 30 Jun 2026")
