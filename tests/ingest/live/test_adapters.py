"""The registry of live sources (ingest.live.adapters): one row per adapter, read by the refresh,
the plan and the command line."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.live.adapters import (
    ADAPTER_NAMES,
    ADAPTERS,
    DEFAULT_RATE_LIMITS,
    ROLE_LIMITS,
    AdapterContext,
    AdapterRow,
    Endpoints,
    host_of,
)
from bangscore.scoring.records import GameRecord

# Fields an adapter may fill that are not GameRecord fields of the same name: the app type and
# the review sample are read by the resolver, not stored under that name.
_NOT_RECORD_FIELDS = {"app_type", "reviews"}
ROWS: dict[str, AdapterRow] = {row.name: row for row in ADAPTERS}
TODAY = dt.date(2026, 11, 26)


def test_every_row_has_a_unique_name_in_run_order() -> None:
    assert tuple(ROWS) == ADAPTER_NAMES
    assert len(ADAPTER_NAMES) == len(set(ADAPTER_NAMES))
    # appdetails and the wiki build on the batch's fields: the batch runs first.
    assert ADAPTER_NAMES[0] == "store_items"


def test_every_host_of_the_default_endpoints_has_its_limit() -> None:
    endpoints = Endpoints()
    assert set(ROLE_LIMITS) == {row.role for row in ADAPTERS}
    assert {
        host_of(endpoints.url(role)): limit for role, limit in ROLE_LIMITS.items()
    } == DEFAULT_RATE_LIMITS
    assert DEFAULT_RATE_LIMITS["store.steampowered.com"].requests == 200
    assert DEFAULT_RATE_LIMITS["steamspy.com"].per_seconds == 1.0


@pytest.mark.parametrize("row", ADAPTERS, ids=lambda row: row.name)
def test_each_row_observes_record_fields(row: AdapterRow) -> None:
    record_fields = set(GameRecord.model_fields)
    assert row.observes and set(row.observes) <= record_fields | _NOT_RECORD_FIELDS


@pytest.mark.parametrize("row", ADAPTERS, ids=lambda row: row.name)
def test_each_row_makes_its_adapter_with_its_name_and_batch(row: AdapterRow) -> None:
    made = row.make(AdapterContext(Endpoints(), TODAY, itad_api_key="key"))
    assert made is not None
    assert made.name == row.name
    assert getattr(made, "batch_size", None) == row.batch_size


def test_itad_is_not_made_without_a_key() -> None:
    assert ROWS["itad"].make(AdapterContext(Endpoints(), TODAY)) is None


def test_an_endpoint_given_reaches_the_adapter() -> None:
    local = "http://127.0.0.1:9"
    made = ROWS["steamspy"].make(AdapterContext(Endpoints(steamspy=local), TODAY))
    assert getattr(made, "base", None) == local


@pytest.mark.parametrize(
    ("name", "games", "calls"),
    [
        ("store_items", 39_503, 396 + 1),
        ("store_items", 100, 2),
        ("itad", 39_503, 2 * 198),
        ("itad", 200, 2),
        ("storefront", 39_503, 0),
        ("reviews", 1_000, 1_000),
        ("hltb", 7, 7),
    ],
    ids=lambda value: str(value),
)
def test_calls_per_pass(name: str, games: int, calls: int) -> None:
    assert ROWS[name].calls_per_pass(games) == calls
