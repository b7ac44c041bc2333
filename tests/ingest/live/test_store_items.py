"""The batched GetItems adapter on the recorded Portal 2 item and its documented variants."""

from __future__ import annotations

import copy
import datetime as dt
import json
from typing import Any

import pytest

from bangscore.ingest.live.store_items import (
    StoreItemsAdapter,
    batches,
    items_request,
    parse_store_item,
    parse_store_items,
)
from bangscore.ingest.resolve.prices import Price, Seen
from tests.ingest.replay import fixture_json
from tests.support import factories

SEEN = dt.datetime(2025, 3, 1, 4, 0, tzinfo=dt.UTC)


def portal() -> dict[str, Any]:
    item: dict[str, Any] = fixture_json("storefront/get_items_620.json")["response"]["store_items"][
        0
    ]
    return copy.deepcopy(item)


def test_recorded_item_gives_cents_sale_end_reviews_and_release() -> None:
    item = parse_store_item(portal())
    assert item is not None
    assert item.price == Price(1.99, 9.99, 80)
    assert item.discount_end == dt.datetime(2025, 10, 9, 17, 0, tzinfo=dt.UTC)
    assert (item.review_count, item.percent_positive) == (443_211, 98)
    assert item.release_date == dt.date(2011, 4, 19)
    assert item.tag_weights[0] == (1664, 4810)
    assert (item.item_type, item.is_free, item.adult) == (0, False, False)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param({"success": 2}, None, id="not-answered"),
        pytest.param({"name": ""}, None, id="no-name"),
    ],
)
def test_items_the_store_does_not_answer_are_absent(change: dict[str, Any], expected: None) -> None:
    assert parse_store_item(portal() | change) is expected


def test_free_app_is_priced_zero_and_adult_descriptors_flag() -> None:
    raw = portal()
    del raw["best_purchase_option"]
    raw |= {"is_free": True, "content_descriptorids": [1, 5, 3]}
    item = parse_store_item(raw)
    assert item is not None and item.price is None and item.is_free and item.adult
    patch = StoreItemsAdapter("http://unused").patch(item, SEEN)
    assert (patch["price_usd"], patch["list_price_usd"], patch["discount_percent"]) == (0, 0, 0)


def test_patch_carries_a_dated_price_point_with_its_sale_end() -> None:
    item = parse_store_item(portal())
    assert item is not None
    patch = StoreItemsAdapter("http://unused").patch(item, SEEN)
    points = patch["price_points"]
    assert isinstance(points, tuple) and len(points) == 1
    point: Seen = points[0]
    assert (point.at, point.price, point.discount_end) == (SEEN, item.price, item.discount_end)
    assert (patch["review_count"], patch["review_score"]) == (443_211, 0.98)


@pytest.mark.parametrize(
    ("change", "changed"),
    [
        pytest.param({}, False, id="same-game"),
        pytest.param({"type": 4}, True, id="became-dlc"),
        pytest.param({"release": {"is_coming_soon": True}}, True, id="back-to-coming-soon"),
    ],
)
def test_changed_sends_only_what_the_batch_cannot_settle(
    change: dict[str, Any], changed: bool
) -> None:
    adapter = StoreItemsAdapter("http://unused")
    record = factories.make_record(appid=620)
    assert adapter.changed(record, parse_store_item(portal() | change)) is changed
    assert adapter.changed(record, None) is True


def test_request_asks_for_every_field_of_a_nightly_refresh_in_us_dollars() -> None:
    request = json.loads(items_request([620, 440])["input_json"])
    assert request["ids"] == [{"appid": 620}, {"appid": 440}]
    assert request["context"]["country_code"] == "US"
    assert {"include_all_purchase_options", "include_reviews", "include_release"} <= set(
        request["data_request"]
    )


def test_answer_keeps_only_answered_items_and_batches_cut_in_order() -> None:
    assert list(parse_store_items({"response": {"store_items": [portal()]}})) == [620]
    # The store answers every appid asked: an empty answer is an outage, not an empty store.
    with pytest.raises(ValueError, match="answered no item"):
        parse_store_items({"response": {}})
    assert batches(range(5), 2) == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError, match="at least 1"):
        batches([1], 0)


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param({"response": {"store_items": "none"}}, id="items-a-string"),
        pytest.param({"response": {"store_items": [5]}}, id="an-item-a-number"),
        pytest.param({"response": ["store_items"]}, id="response-a-list"),
    ],
)
def test_a_malformed_answer_is_a_type_error(payload: dict[str, Any]) -> None:
    # The refresh counts a ValueError/KeyError/TypeError against the batch, not a crash.
    with pytest.raises(TypeError, match="is a JSON object, not"):
        parse_store_items(payload)
