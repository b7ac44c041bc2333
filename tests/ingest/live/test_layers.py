"""Live refresh as layered sources (ingest.live.layers): records back into observations, and one
game re-resolved over them by the catalog's own resolver (adapter patches into observations and
the live layers: test_live_layers.py).

Records are built the way the bundled catalog builds them (``assemble`` over hand-built layers),
so a round trip compares two outputs of the same resolver; the last test does it on the real
bundled catalog.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from bangscore.ingest.catalog import IngestReport, assemble
from bangscore.ingest.live.layers import (
    MATCHED_SOURCES,
    record_observations,
    resolve_game,
)
from bangscore.ingest.resolve.checks import LENGTH_TOO_LONG, LENGTH_TOO_SHORT
from bangscore.ingest.resolve.observations import (
    TRUST_KEYED,
    TRUST_MATCHED,
    Layer,
    Observation,
    Observations,
)
from bangscore.ingest.resolve.prices import Price, Seen
from bangscore.ingest.resolve.resolution import prices_as_of
from bangscore.scoring.records import (
    Catalog,
    DateWindow,
    EarlyWindow,
    GameRecord,
    Provenance,
    ReviewSample,
    Sources,
)

APPID = 7
TODAY = dt.date(2026, 8, 1)
PICS = Layer("steam_pics_2026", "storefront", dt.date(2026, 7, 24))
PRICES = Layer("steam_prices_usd_2026", "storefront", dt.date(2026, 7, 13))
LATER_STORE = Layer("steam_store_late", "storefront", dt.date(2026, 10, 1))
STORE_2019 = Layer("steam_store_2019", "storefront", dt.date(2019, 5, 1))
INSIGHTS = Layer("steam_insights_2024", "storefront", dt.date(2024, 10, 31))
SPY = Layer("steamspy_2025-01-01", "player_stats", dt.date(2025, 1, 1))
HLTB = Layer("hltb_steam_2025-12", "play_length", dt.date(2025, 12, 27))
OLD_HLTB = Layer("hltb_2023", "play_length", dt.date(2023, 12, 31))
HLTB_TITLE = Layer("hltb_steam_2026", "play_length", dt.date(2026, 6, 30), TRUST_MATCHED)
PLAYTIME = Layer("steam_review_playtime_2026", "player_stats", dt.date(2026, 7, 24), TRUST_MATCHED)
ITAD = Layer("itad_2025", "price_history", dt.date(2025, 10, 16), TRUST_MATCHED)
RAREST = Layer("steam_rarest_achievement_2024-12", "player_stats", dt.date(2024, 12, 17))
WINDOW = Layer("steam_reviews_window_2025-01", "player_stats", dt.date(2025, 1, 20))
EARLY = EarlyWindow(
    reviews=40,
    positive_share=0.75,
    review_share=0.1,
    sample=400,
    window=DateWindow(from_=dt.date(2024, 12, 1), to=dt.date(2025, 1, 20)),
    source="steam_reviews_window_2025-01",
)
SAMPLE = ReviewSample(depth=10, sample=3, flagged=1, share=0.2, sampled_on=TODAY)

Layers = list[tuple[Layer, list[tuple[str, Any]]]]


def base(**overrides: Any) -> dict[str, Any]:
    """Storefront basics of a rated game: name, tags, genres, date, score, count, price."""
    fields: dict[str, Any] = {
        "name": "Story Game",
        "app_type": "game",
        "tags": ("Adventure", "Story Rich"),
        "storefront_genres": ("Adventure",),
        "release_date": dt.date(2023, 8, 3),
        "review_score": 0.91,
        "developer": "Studio",
    }
    return fields | overrides


SALE_SEEN = dt.datetime(2026, 7, 1, 18, 30, tzinfo=dt.UTC)


def world(layers: Layers) -> Observations:
    known = Observations()
    for layer, fields in layers:
        known.add(layer, [Observation(APPID, name, value) for name, value in fields])
    return known


def build(layers: Layers) -> GameRecord:
    """Given hand-built layers of one game, return the record the catalog's resolver makes."""
    rated, refused = assemble(world(layers), IngestReport())
    assert not refused, refused
    return rated[0]


def as_layers(layer: Layer, fields: dict[str, Any]) -> tuple[Layer, list[tuple[str, Any]]]:
    return layer, [(name, value) for name, value in fields.items() if value is not None]


CASES: dict[str, tuple[Layers, dict[str, Any]]] = {
    "keyed-length-finish-estimate": (
        [
            as_layers(PICS, base(metacritic=88)),
            (PRICES, [("price", (47.99, 59.99, 20)), ("usd_price_seen", 47.99)]),
            (
                SPY,
                [
                    ("review_count", 70_000),
                    ("usd_price_seen", 39.99),
                    ("owners_range", "1,000,000 .. 2,000,000"),
                    ("owner_playtime", (600, 1200)),
                ],
            ),
            (
                HLTB,
                [
                    ("main_story_hours", 20.5),
                    ("completionist_hours", 60.0),
                    ("play_length_genres", ("Adventure",)),
                ],
            ),
            (PLAYTIME, [("reviewer_playtime", (30.0, 4.0, 955, 45))]),
            (RAREST, [("rarest_achievement_percent", 1.5), ("players_estimate", 50_000)]),
            (WINDOW, [("early_window", EARLY)]),
        ],
        {
            "price_usd": 47.99,
            "historical_low_usd": 39.99,
            "length_source": "hltb",
            "main_story_hours": 20.5,
            "positive_reviewers": 955,
            "estimated": ("finish_rate",),
            "checks": (),
        },
    ),
    "playtime-estimate": (
        [
            as_layers(PICS, base()),
            (SPY, [("price", (9.99, 9.99, 0)), ("review_count", 400)]),
            (PLAYTIME, [("reviewer_playtime", (10.0, 2.0, 300, 30))]),
        ],
        {"main_story_hours": 7.0, "length_source": "playtime_estimate", "finish_rate": None},
    ),
    "too-short-set-aside": (
        [
            as_layers(PICS, base()),
            (PRICES, [("price", (19.99, 19.99, 0))]),
            (SPY, [("review_count", 5000)]),
            (HLTB, [("main_story_hours", 10.0)]),
            (OLD_HLTB, [("main_story_hours", 40.0)]),
            (PLAYTIME, [("reviewer_playtime", (100.0, 5.0, 800, 50))]),
        ],
        {"main_story_hours": 40.0, "checks": (LENGTH_TOO_SHORT,)},
    ),
    "too-long-keyed-kept": (
        [
            as_layers(PICS, base()),
            (PRICES, [("price", (19.99, 19.99, 0))]),
            (SPY, [("review_count", 5000)]),
            (HLTB, [("main_story_hours", 200.0)]),
            (PLAYTIME, [("reviewer_playtime", (10.0, 5.0, 800, 50))]),
        ],
        {"main_story_hours": 200.0, "checks": (LENGTH_TOO_LONG,)},
    ),
    "matched-count-and-length": (
        [
            as_layers(PICS, base()),
            (PRICES, [("price", (4.99, 4.99, 0))]),
            (HLTB_TITLE, [("main_story_hours", 6.0)]),
            (PLAYTIME, [("reviewer_playtime", (5.0, 1.0, 900, 100)), ("review_count_floor", 1000)]),
        ],
        {"review_count": 1000, "estimated": ("finish_rate", "review_count")},
    ),
    # A sample that ran out of reviews before the cap counted them all: not a lower bound.
    "exhausted-sample-is-a-full-count": (
        [
            as_layers(PICS, base()),
            (PRICES, [("price", (4.99, 4.99, 0))]),
            (HLTB_TITLE, [("main_story_hours", 6.0)]),
            (PLAYTIME, [("reviewer_playtime", (5.0, 1.0, 500, 100)), ("review_count", 600)]),
        ],
        {"review_count": 600, "estimated": ("finish_rate",)},
    ),
    "stale-sale-keeps-its-low": (
        [
            as_layers(PICS, base()),
            (LATER_STORE, [("developer", "Studio Ltd")]),
            (
                PRICES,
                [
                    ("price", (9.99, 19.99, 50)),
                    # Seen 12 days before the layer's newest observation: the sale is over.
                    ("price_points", (Seen(SALE_SEEN, Price(9.99, 19.99, 50), PRICES.name),)),
                ],
            ),
            (SPY, [("review_count", 5000)]),
            (HLTB, [("main_story_hours", 8.0)]),
        ],
        {
            "price_usd": 19.99,
            "discount_percent": 0,
            "historical_low_usd": 9.99,
            "historical_low_at": SALE_SEEN.date(),
            "price_observed_at": SALE_SEEN,
        },
    ),
    "itad-deepest-discount": (
        [
            as_layers(PICS, base()),
            (PRICES, [("price", (19.99, 19.99, 0))]),
            (SPY, [("review_count", 5000)]),
            (HLTB, [("main_story_hours", 8.0)]),
            (ITAD, [("deepest_discount_percent", 75), ("metacritic", 81)]),
        ],
        {"historical_low_usd": 4.99, "estimated": ("historical_low_usd",), "metacritic": 81},
    ),
    "finish-rate-from-a-storefront-dump": (
        [
            as_layers(PICS, base(storefront_genres=None)),
            (
                STORE_2019,
                [
                    ("storefront_genres", ("Adventure", "Indie")),
                    ("owner_playtime", (300, 900)),
                ],
            ),
            (PRICES, [("price", (14.99, 14.99, 0))]),
            (SPY, [("review_count", 5000)]),
            (HLTB, [("main_story_hours", 4.0)]),
        ],
        {"storefront_genres": ("Adventure", "Indie"), "estimated": ("finish_rate",)},
    ),
    # An unranked tag set is put in typical order once; read back, that order is kept.
    "unranked-tag-set": (
        [
            as_layers(PICS, base(tags=None)),
            (INSIGHTS, [("tags", ("Story Rich", "Adventure")), ("tags_unranked", True)]),
            (PRICES, [("price", (9.99, 9.99, 0))]),
            (SPY, [("review_count", 5000)]),
            (HLTB, [("main_story_hours", 8.0)]),
        ],
        {"tags": ("Adventure", "Story Rich"), "estimated": ("tags",)},
    ),
}


@pytest.mark.parametrize(("layers", "expected"), CASES.values(), ids=CASES.keys())
def test_record_round_trips_through_its_observations(
    layers: Layers, expected: dict[str, Any]
) -> None:
    record = build(layers)
    assert {name: getattr(record, name) for name in expected} == expected
    # Read back, the game keeps the catalog's as-of time (a record alone does not hold it).
    assert resolve_game(record, as_of=prices_as_of(world(layers))) == record


def test_round_trip_reuses_one_layer_for_a_finish_rate_of_another_kind() -> None:
    record = build(CASES["finish-rate-from-a-storefront-dump"][0])
    assert record.provenance["genre"] == Provenance(
        source="steam_store_2019", kind="storefront", date=dt.date(2019, 5, 1)
    )
    assert record.provenance["finish_rate"].kind == "player_stats"
    layers = [layer for layer, _ in record_observations(record)]
    assert [layer for layer in layers if layer.name == "steam_store_2019"] == [STORE_2019]


def test_record_observations_of_a_keyed_length() -> None:
    record = build(CASES["keyed-length-finish-estimate"][0])
    observed = {
        (layer.name, obs.field): obs.value
        for layer, batch in record_observations(record)
        for obs in batch
    }
    assert observed == {
        ("steam_pics_2026", "name"): "Story Game",
        ("steam_pics_2026", "developer"): "Studio",
        ("steam_pics_2026", "review_score"): 0.91,
        ("steam_pics_2026", "release_date"): dt.date(2023, 8, 3),
        ("steam_pics_2026", "tags"): ("Adventure", "Story Rich"),
        ("steam_pics_2026", "storefront_genres"): ("Adventure",),
        ("steam_pics_2026", "metacritic"): 88,
        ("steam_prices_usd_2026", "price"): (47.99, 59.99, 20),
        ("steamspy_2025-01-01", "review_count"): 70_000,
        ("steamspy_2025-01-01", "usd_price_seen"): 39.99,
        ("steamspy_2025-01-01", "finish_rate"): record.finish_rate,
        # The owners' median playtime, kept on the record, on the layer it came from.
        ("steamspy_2025-01-01", "median_playtime_hours"): 10.0,
        ("hltb_steam_2025-12", "completionist_hours"): 60.0,
        ("hltb_steam_2025-12", "main_story_hours"): 20.5,
        ("hltb_steam_2025-12", "play_length_genres"): ("Adventure",),
        ("steam_reviews_window_2025-01", "early_window"): EARLY,
        # Reviewers' playtime keeps only what the record holds: positive hours and count.
        ("steam_review_playtime_2026", "reviewer_playtime"): (30.0, None, 955, 45),
        ("previous catalog player_stats", "rarest_achievement_percent"): 1.5,
        ("previous catalog player_stats", "players_estimate"): 50_000,
        ("previous catalog player_stats", "owners_range"): "1,000,000 .. 2,000,000",
        # The price history rides on the price's layer; each point names its own source: the
        # low SteamSpy saw is a point read back as an observation (only a price-history
        # source's dated low is left for ingest.resolve.prices.with_low to make again).
        ("steam_prices_usd_2026", "price_points"): (
            Seen(
                dt.datetime(2025, 1, 1, tzinfo=dt.UTC),
                Price(39.99, 59.99, 33),
                "steamspy_2025-01-01",
            ),
            Seen(
                dt.datetime(2026, 7, 13, tzinfo=dt.UTC),
                Price(47.99, 59.99, 20),
                "steam_prices_usd_2026",
            ),
        ),
    }


def test_matched_sources_are_the_bundled_title_matched_and_sampled_ones() -> None:
    assert {
        "steam_review_playtime_2026",
        "hltb_steam_2026",
        "hltb_2023 by title",
        "itad_2025",
    } == MATCHED_SOURCES


def previous(kind: Any) -> Layer:
    """The ``previous catalog <kind>`` layer of a record whose ``sources`` date nothing."""
    return Layer(f"previous catalog {kind}", kind, dt.date.min, TRUST_KEYED)


def saved(provenance: dict[str, Layer], **fields: Any) -> GameRecord:
    """Given provenance entries (wire field -> layer) and fields, return a saved record."""
    values: dict[str, Any] = {
        "appid": APPID,
        "name": "Saved Game",
        "price_usd": 9.99,
        "list_price_usd": 19.99,
        "discount_percent": 50,
        "review_score": 0.8,
        "review_count": 1200,
        "provenance": {
            wire: Provenance(source=layer.name, kind=layer.kind, date=layer.date)
            for wire, layer in provenance.items()
        },
    }
    return GameRecord(**(values | fields))


# Reviewers' playtime the record's own provenance names (dated apart from the bundled layer).
OWN_PLAYTIME = Layer(
    "steam_review_playtime_2026", "player_stats", dt.date(2026, 1, 5), TRUST_MATCHED
)
REVIEWERS = {"positive_reviewer_hours": 10.0, "positive_reviewers": 300}
ESTIMATED_LENGTH = {"main_story_hours": 7.0, "length_source": "playtime_estimate"}
# Saved record (its provenance, its fields) -> what it observes of the fields named in
# ``expected`` ((layer, field) -> value), one row per case of record_observations' readers.
READ_BACK: dict[str, tuple[dict[str, Layer], dict[str, Any], tuple[str, ...], dict[Any, Any]]] = {
    "legacy-score-observed": (
        {},
        {},
        ("review_score",),
        {(previous("storefront"), "review_score"): 0.8},
    ),
    # A record without provenance holds a score of 0 when nothing scored it: no observation.
    "legacy-score-0-is-no-score": ({}, {"review_score": 0.0}, ("review_score",), {}),
    "keyed-score-0-observed": (
        {"review_score": PICS},
        {"review_score": 0.0},
        ("review_score",),
        {(PICS, "review_score"): 0.0},
    ),
    "lower-bound-count-is-a-floor": (
        {"review_count": PLAYTIME},
        {"estimated": ("review_count",)},
        ("review_count", "review_count_floor"),
        {(PLAYTIME, "review_count_floor"): 1200},
    ),
    "categories-on-the-genres-layer": (
        {"genre": STORE_2019},
        {"categories": ("Single-player",)},
        ("categories",),
        {(STORE_2019, "categories"): ("Single-player",)},
    ),
    "categories-without-genres-entry": (
        {"name": PICS},
        {"categories": ("Single-player",)},
        ("categories",),
        {(previous("storefront"), "categories"): ("Single-player",)},
    ),
    "year-without-date-on-its-entry": (
        {"release_year": HLTB},
        {"release_year": 2020},
        ("play_length_release_year",),
        {(HLTB, "play_length_release_year"): 2020},
    ),
    "year-without-date-no-entry": (
        {"name": PICS},
        {"release_year": 2020},
        ("play_length_release_year",),
        {(previous("play_length"), "play_length_release_year"): 2020},
    ),
    # Resolving the reviewers' playtime estimates the length again: it is no source's length.
    "estimated-length-not-a-main-story": (
        {"length_hours": SPY},
        ESTIMATED_LENGTH,
        ("main_story_hours",),
        {},
    ),
    "genres-of-an-estimated-length": (
        {"length_hours": SPY},
        ESTIMATED_LENGTH | {"play_length_genres": ("Adventure",)},
        ("play_length_genres",),
        {(previous("play_length"), "play_length_genres"): ("Adventure",)},
    ),
    "reviewers-on-the-estimated-lengths-layer": (
        {"length_hours": SPY},
        ESTIMATED_LENGTH | REVIEWERS,
        ("reviewer_playtime",),
        {(SPY, "reviewer_playtime"): (10.0, None, 300, 0)},
    ),
    "reviewers-on-the-records-playtime-layer": (
        {"name": PICS, "finish_rate": OWN_PLAYTIME},
        REVIEWERS,
        ("reviewer_playtime",),
        {(OWN_PLAYTIME, "reviewer_playtime"): (10.0, None, 300, 0)},
    ),
    "reviewers-on-the-bundled-playtime-layer": (
        {"name": PICS},
        REVIEWERS,
        ("reviewer_playtime",),
        {(PLAYTIME, "reviewer_playtime"): (10.0, None, 300, 0)},
    ),
    # 75% off $19.99 is $4.99 to the cent: the deepest discount that low came from.
    "estimated-low-as-its-deepest-discount": (
        {"historical_low_usd": ITAD},
        {"historical_low_usd": 4.99, "estimated": ("historical_low_usd",)},
        ("deepest_discount_percent", "usd_price_seen"),
        {(ITAD, "deepest_discount_percent"): 75},
    ),
    "estimated-low-no-discount-gives": (
        {"historical_low_usd": ITAD},
        {"historical_low_usd": 4.98, "estimated": ("historical_low_usd",)},
        ("deepest_discount_percent", "usd_price_seen"),
        {(ITAD, "usd_price_seen"): 4.98},
    ),
    "low-without-entry-not-observed": (
        {"name": PICS},
        {"historical_low_usd": 4.99},
        ("deepest_discount_percent", "usd_price_seen"),
        {},
    ),
    "legacy-low": (
        {},
        {"historical_low_usd": 4.99},
        ("deepest_discount_percent", "usd_price_seen"),
        {(previous("price_history"), "usd_price_seen"): 4.99},
    ),
    "unsourced-values-set-only": (
        {"name": PICS},
        {"owners_range": "1 .. 2", "content_descriptors": ()},
        ("owners_range", "content_descriptors"),
        {(previous("player_stats"), "owners_range"): "1 .. 2"},
    ),
}


@pytest.mark.parametrize(
    ("provenance", "fields", "looked_at", "expected"), READ_BACK.values(), ids=READ_BACK.keys()
)
def test_record_observations_reads_each_value_back(
    provenance: dict[str, Layer],
    fields: dict[str, Any],
    looked_at: tuple[str, ...],
    expected: dict[Any, Any],
) -> None:
    observed = {
        (layer, obs.field): obs.value
        for layer, batch in record_observations(saved(provenance, **fields))
        for obs in batch
        if obs.field in looked_at
    }
    assert observed == expected


def test_record_without_provenance_is_read_from_its_sources_dates() -> None:
    old = dt.date(2025, 1, 1)
    legacy = GameRecord(
        appid=APPID,
        name="Old Game",
        price_usd=5.0,
        list_price_usd=10.0,
        discount_percent=50,
        review_score=0.8,
        review_count=1200,
        main_story_hours=7.0,
        historical_low_usd=3.0,
        owners_range="old range",
        sources=Sources(storefront=old, play_length=old, price_history=old),
    )
    fresh = resolve_game(legacy)
    assert isinstance(fresh, GameRecord)
    assert (fresh.price_usd, fresh.review_count, fresh.main_story_hours) == (5.0, 1200, 7.0)
    assert (fresh.historical_low_usd, fresh.owners_range, fresh.length_source) == (
        3.0,
        "old range",
        "hltb",
    )
    assert {k: p.source for k, p in fresh.provenance.items()} == {
        "historical_low_usd": "previous catalog price_history",
        "length_hours": "previous catalog play_length",
        "name": "previous catalog storefront",
        "price_usd": "previous catalog storefront",
        "review_count": "previous catalog storefront",
        "review_score": "previous catalog storefront",
    }
    assert fresh.sources == Sources(storefront=old, play_length=old, price_history=old)
    assert resolve_game(fresh) == fresh


def test_bundled_records_round_trip(bundled: tuple[Catalog, IngestReport]) -> None:
    # Every 7th rated game of the real catalog (this keeps the test quick).
    sample = bundled[0].games[::7]
    assert len(sample) > 4000
    as_of = bundled[0].prices_as_of
    assert [g for g in sample if resolve_game(g, as_of=as_of) != g] == []
