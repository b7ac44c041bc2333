"""The wire models (bangscore/contract/records.py) against the records the builder writes, the
scoring vocabularies, the OpenAPI document and docs/API.md's field tables."""

from __future__ import annotations

import re
from typing import Any, get_args

import orjson
import pytest
from pydantic import BaseModel, ValidationError

from bangscore.build.buyer import buyer_fields
from bangscore.build.openapi import DETAIL_PROPERTIES, GAME_PROPERTIES, SCHEMAS
from bangscore.build.wire import detail_record, dumps, list_item
from bangscore.contract import records
from bangscore.contract.export import ExportAnswer
from bangscore.contract.objects import INDEX_KEY
from bangscore.contract.records import (
    GameDetail,
    ListItem,
    Lookup,
    Problem,
    Tier,
    Usage,
)
from bangscore.contract.wire_form import ordered, wire_names
from bangscore.manifest import read_body, read_manifest
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.tiers import TIERS
from bangscore.shim.compose import CompactIndex
from bangscore.storage import LocalStorage, ObjectStorage
from tests.support import factories
from tests.test_api_doc import section


@pytest.mark.parametrize(
    ("words", "scoring"),
    [
        pytest.param(get_args(Tier), TIERS, id="tiers"),
        # The list item's genre is scoring's own type: its words are scoring's by construction.
        pytest.param(get_args(ListItem.model_fields["genre"].annotation), GENRES, id="genres"),
    ],
)
def test_vocabularies_are_the_scoring_ones(
    words: tuple[str, ...], scoring: tuple[str, ...]
) -> None:
    assert words == tuple(scoring)


@pytest.fixture(scope="module")
def written(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every game of the small catalogue as the builder writes it: (list item, detail)."""
    games = small_snapshot[1]
    buyer = buyer_fields(games)
    out = []
    for game, extra in zip(games, buyer, strict=True):
        item = list_item(game, factories.SITE, extra)
        out.append((item, detail_record(game, factories.SITE, factories.PRICES_AS_OF, extra, item)))
    return out


def test_the_builder_writes_what_the_models_write(
    written: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    """orjson's bytes of each record parse to the values, in the order, that the model parsing
    them serialises: the builder's fast path writes the models' records."""
    assert len(written) > 10
    for item, detail in written:
        for model, record in ((ListItem, item), (GameDetail, detail)):
            wire = orjson.loads(dumps(record))
            again = model.model_validate(wire).model_dump(mode="json", by_alias=True)
            assert list(wire) == list(again) == list(wire_names(model))
            assert wire == again


def test_verdicts_reach_the_list_items(
    written: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    for item, detail in written:
        assert (item["verdict"], item["verdict_price_usd"]) == (
            detail["verdict"],
            detail["verdict_price_usd"],
        )
    assert {item["verdict"] for item, _ in written} >= {"buy_now", "skip"}


@pytest.mark.parametrize(
    ("change", "error"),
    [
        pytest.param({"shiny": 1}, ValueError, id="unknown field"),
        pytest.param({"appid": None}, None, id="missing field"),
    ],
)
def test_ordered_refuses_fields_the_model_does_not_have(
    written: list[tuple[dict[str, Any], dict[str, Any]]],
    change: dict[str, Any],
    error: type[Exception] | None,
) -> None:
    item = dict(written[0][0])
    for name, value in change.items():
        if value is None:
            del item[name]
        else:
            item[name] = value
    with pytest.raises(error or KeyError):
        ordered(ListItem, item)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("bang_score", 101, id="score over 100"),
        pytest.param("tier", "wait_for_sale", id="retired tier"),
        pytest.param("verdict", "maybe", id="unknown verdict"),
        pytest.param("price_usd", -1.0, id="negative price"),
        pytest.param("series", {"name": "Life is Strange"}, id="series without parts"),
    ],
)
def test_a_record_breaking_its_model_is_refused(
    written: list[tuple[dict[str, Any], dict[str, Any]]], field: str, value: Any
) -> None:
    with pytest.raises(ValidationError):
        ListItem.model_validate({**written[0][0], field: value})


def test_the_openapi_schemas_are_the_models() -> None:
    assert SCHEMAS["Game"]["required"] == list(wire_names(ListItem))
    assert SCHEMAS["GameDetail"]["required"] == list(wire_names(GameDetail))
    assert SCHEMAS["Lookup"]["required"] == list(wire_names(Lookup))
    assert list(GAME_PROPERTIES) == list(wire_names(ListItem))
    assert list(DETAIL_PROPERTIES) == list(wire_names(GameDetail))
    assert all(
        s.get("additionalProperties") is False
        for name, s in SCHEMAS.items()
        if name not in {"Root", "OpenAPI"}
    )
    # Nested records are inlined in the properties the export's columns read.
    assert DETAIL_PROPERTIES["series"]["type"] == ["object", "null"]
    assert list(DETAIL_PROPERTIES["sources"]["properties"])[-1] == "review_sample"


# -- docs/API.md's field tables ----------------------------------------------------------------


def field_tables(heading: str) -> list[str]:
    """Given a heading line of docs/API.md, return the wire names of its field tables (those
    headed ``| Field |`` or ``| Member |``), in order; a cell may name several (``a``, ``b``)."""
    names: list[str] = []
    in_fields = False
    for line in section(heading).splitlines():
        if not line.startswith("|"):
            in_fields = False
            continue
        first = line.split("|")[1].strip()
        if first in {"Field", "Member"}:
            in_fields = True
        elif in_fields and first.startswith("`"):
            names.extend(re.findall(r"`([^`]+)`", first))
    return names


def _refund_expanded(names: list[str]) -> list[str]:
    refund = field_tables("### Refund signals")
    return [n for name in names for n in (refund if name == "refunded_review_*" else [name])]


LIST_FIELDS = wire_names(ListItem)
DOCUMENTED: list[tuple[str, type[BaseModel], list[str], list[str]]] = [
    (
        "list item",
        ListItem,
        _refund_expanded(field_tables("### List item")),
        list(LIST_FIELDS),
    ),
    (
        "detail record",
        GameDetail,
        field_tables("### Detail record"),
        [n for n in wire_names(GameDetail) if n not in LIST_FIELDS],
    ),
    ("lookup", Lookup, field_tables("### Lookup"), list(wire_names(Lookup))),
    ("usage", Usage, field_tables("### Usage"), list(wire_names(Usage))),
    ("problem", Problem, field_tables("### Problem details"), list(wire_names(Problem))),
    (
        "export",
        ExportAnswer,
        field_tables("### Export"),
        [f.alias or n for n, f in ExportAnswer.model_fields.items()],
    ),
]


@pytest.mark.parametrize(
    ("documented", "model_fields"),
    [pytest.param(d, m, id=name) for name, _, d, m in DOCUMENTED],
)
def test_docs_field_tables_name_exactly_the_model_fields_in_order(
    documented: list[str], model_fields: list[str]
) -> None:
    assert [n for n in documented if n not in model_fields] == [], "documented, not in the model"
    assert [n for n in model_fields if n not in documented] == [], "in the model, not documented"
    assert documented == model_fields


def test_every_model_is_documented_somewhere() -> None:
    documented = {model for _, model, _, _ in DOCUMENTED}
    assert set(records.RECORD_MODELS) - documented <= {records.GameList, records.SearchResult}


def test_real_records_are_what_their_model_writes(
    real_snapshot: tuple[LocalStorage, list[ScoredGame]],
) -> None:
    """Every 20th detail record and every list item of the real catalogue's snapshot parses
    to its model and serialises back to the same members in the same order (the builder
    checked each against its model when it wrote it)."""
    storage, _ = real_snapshot
    manifest = read_manifest(storage, "s1")
    keys = sorted(k for k in manifest.entries if k.startswith("games/"))[::20]
    assert len(keys) > 1000
    for key in keys:
        record = orjson.loads(read_body(storage, manifest.entries[key]))
        again = GameDetail.model_validate(record).model_dump(mode="json", by_alias=True)
        assert list(again) == list(record) and again == record, key
    index = CompactIndex(read_body(storage, manifest.entries[INDEX_KEY]))
    assert len(index.appids) > 10_000
    for item in (orjson.loads(index.item(n)) for n in range(len(index.appids))):
        assert ListItem.model_validate(item).model_dump(mode="json", by_alias=True) == item
