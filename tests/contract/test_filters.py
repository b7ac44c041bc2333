"""bangscore/contract/filters.py: the list filters, each declared once, and what is derived from
them: the parser, the OpenAPI document, the browse form, the client's keyword arguments and the
selection over the compact index.

The last tests declare a filter of their own, ``x_min_score``, add it to the table and follow it
through all five, over the small catalogue's app and snapshot.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, get_type_hints

import httpx
import numpy as np
import orjson
import pytest
from starlette.testclient import TestClient

from bangscore import contract
from bangscore.build.openapi import openapi_document
from bangscore.client import Client
from bangscore.client_core import list_query
from bangscore.contract import filters
from bangscore.contract.api import root_listing
from bangscore.contract.compact import IndexColumns, decode_index
from bangscore.contract.facet_filters import AUDIO, CONTROLLER, LANGUAGE, MIN_REVIEWS, STEAM_DECK
from bangscore.contract.filters import (
    GENRE,
    LIST_FILTERS,
    MAX_PRICE,
    ON_SALE,
    TAG,
    YEAR_FROM,
    YEAR_TO,
    ClientFilters,
    Filters,
)
from bangscore.contract.list_filter import (
    FormField,
    ListFilter,
    bounded_integer,
    price_text,
)
from bangscore.contract.objects import INDEX_KEY
from bangscore.errors import BadRequest, FilterValueRefused
from bangscore.manifest import read_body, read_manifest
from bangscore.scoring.pipeline import ScoredGame
from bangscore.shim.params import parse_list_query
from bangscore.site.render import Listing, SiteRenderer
from bangscore.storage import ObjectStorage
from tests.support import factories
from tests.support.factories import SITE
from tests.support.filter_reference import select

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def small_index(small_snapshot: tuple[ObjectStorage, list[ScoredGame]]) -> IndexColumns:
    """The small catalogue's compact index as the builder published it, as filters read it."""
    storage = small_snapshot[0]
    raw = read_body(storage, read_manifest(storage, "s1").entries[INDEX_KEY])
    return IndexColumns.of(decode_index(raw))


def positions(filters: Filters, index: IndexColumns) -> list[int]:
    """Given filters and an index's columns, return the matching games' positions."""
    found: list[int] = np.flatnonzero(filters.mask(index)).tolist()
    return found


@pytest.mark.parametrize(
    ("cents", "text"),
    [
        pytest.param(0, "0", id="free"),
        pytest.param(1000, "10", id="whole dollars"),
        pytest.param(999, "9.99", id="cents"),
        pytest.param(1050, "10.50", id="ten cents"),
        pytest.param(100_000, "1000", id="the highest cap"),
    ],
)
def test_price_text(cents: int, text: str) -> None:
    assert price_text(cents) == text


def test_max_price_is_inclusive_uncomputed_and_canonical(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]], small_index: IndexColumns
) -> None:
    games = small_snapshot[1]
    capped = Filters.of(genre=frozenset({"rpg"}), max_price=999)
    assert capped.combo_key is None  # composed from the index, never precomputed
    assert capped.to_query() == {"genre": "rpg", "max_price": "9.99"}
    kept = positions(capped, small_index)
    assert kept == select(games, capped)
    assert kept and all(games[i].record.price_usd <= 9.99 for i in kept)
    assert any(games[i].record.price_usd == 9.99 for i in kept)  # inclusive
    assert len(positions(Filters.of(max_price=100_000), small_index)) == len(games)


@pytest.mark.parametrize(
    "chosen",
    [
        pytest.param({"genre": frozenset({"rpg", "action"})}, id="genres"),
        pytest.param({"tag": frozenset({"co-op", "rpg"})}, id="tags"),
        pytest.param({"tag": frozenset({"no such tag"})}, id="unknown-tag"),
        pytest.param({"year_from": 2012, "year_to": 2018}, id="years"),
        pytest.param({"year_to": 2015}, id="year-to-only"),
        pytest.param({"on_sale": True, "max_price": 1999}, id="sale-and-cap"),
        pytest.param({"adult": False}, id="no-adult"),
        pytest.param({"steam_deck": frozenset({"verified"})}, id="deck-verified"),
        pytest.param({"steam_deck": frozenset({"verified", "playable"})}, id="deck-two"),
        pytest.param({"controller": frozenset({"full"}), "max_price": 999}, id="controller"),
        pytest.param({"controller": frozenset({"full", "partial"})}, id="controller-any"),
        pytest.param({"language": "de"}, id="language"),
        pytest.param({"language": "de", "audio": "de"}, id="language-and-audio"),
        pytest.param({"language": "ja", "genre": frozenset({"rpg"})}, id="subtitles-only"),
        pytest.param({"audio": "fr"}, id="audio-nobody-has"),
        pytest.param({"min_reviews": 1000}, id="min-reviews-inclusive"),
        pytest.param({"min_reviews": 1001}, id="min-reviews-above-all"),
    ],
)
def test_each_predicate_agrees_with_the_reference(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
    small_index: IndexColumns,
    chosen: dict[str, Any],
) -> None:
    filters = Filters.of(**chosen)
    adult = small_index.columns["adult"].tolist()
    assert positions(filters, small_index) == select(small_snapshot[1], filters, adult)


def test_equal_filters_are_one_value_however_built() -> None:
    by_name = Filters.of(on_sale=True, genre=frozenset({"rpg"}), year_to=None, tag=frozenset())
    assert by_name == Filters(((GENRE, frozenset({"rpg"})), (ON_SALE, True)))
    assert hash(by_name) == hash(parse_list_query([("on_sale", "true"), ("genre", "RPG")]).filters)
    assert Filters.of(on_sale=False) == Filters()
    with pytest.raises(TypeError, match="no list filter named colour"):
        Filters.of(colour="red")


def declared_filters() -> list[ListFilter[Any]]:
    """Return every list filter that bangscore.contract's modules declare at their top level
    (a real new filter is one more such declaration), each once."""
    found: dict[int, ListFilter[Any]] = {}
    for module in pkgutil.iter_modules(contract.__path__, f"{contract.__name__}."):
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, ListFilter):
                found[id(value)] = value
    return list(found.values())


def test_the_table_names_each_filter_once_in_the_order_links_write_them() -> None:
    # Not the table's tuple written out: a real new filter passes unchanged. These filters
    # are in it (and keep their order: links written before still read the same).
    kept = (GENRE, TAG, YEAR_FROM, YEAR_TO, ON_SALE, MAX_PRICE, STEAM_DECK, CONTROLLER)
    assert [f for f in LIST_FILTERS if f in kept] == list(kept)
    assert {LANGUAGE, AUDIO, MIN_REVIEWS} <= set(LIST_FILTERS)
    assert sorted(map(id, LIST_FILTERS)) == sorted(map(id, declared_filters()))
    names = [f.name for f in LIST_FILTERS]
    assert len(set(names)) == len(names)
    assert [p["name"] for p in openapi_parameters()] == [*names, "page", "api_key"]


def test_the_clients_keyword_arguments_are_the_tables() -> None:
    # ClientFilters types the keyword arguments for callers' mypy, so it is written out: checked.
    assert list(get_type_hints(ClientFilters)) == [f.name for f in LIST_FILTERS]


def test_every_list_filter_has_its_row_in_the_reference() -> None:
    assert undocumented(LIST_FILTERS) == []


# -- the example: year_from was spelled out in 8 production files and a template ------


def spelled(path: Path, name: str) -> bool:
    """Given a production file and a name, return whether its code (not its docstrings) spells
    the name: a string holding it as a word, or an identifier, keyword or attribute of it; in a
    template, the word anywhere."""
    text = path.read_text()
    word = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    if path.suffix != ".py":
        return word.search(text) is not None
    tree = ast.parse(text)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and word.search(node.value):
                return True
        elif name in (
            getattr(node, "id", None),  # a Name
            getattr(node, "attr", None),  # an Attribute
            getattr(node, "arg", None) if isinstance(node, ast.keyword | ast.arg) else None,
        ):
            return True
    return False


def production_files() -> list[Path]:
    """Return every module and template of the package (its layer folders' links followed)."""
    package = ROOT / "bangscore"
    return sorted(
        Path(folder) / name
        for folder, _, names in os.walk(package, followlinks=True)
        if "__pycache__" not in folder
        for name in names
        if name.endswith((".py", ".html", ".txt", ".svg"))
    )


@pytest.mark.parametrize("spec", [YEAR_FROM, YEAR_TO], ids=lambda f: f.name)
def test_a_year_filter_is_spelled_in_its_declaration_only(spec: ListFilter[Any]) -> None:
    # Names that mean nothing but the filter (genre, tag, on_sale and max_price are also
    # fields, columns, the search's price cap or words of a page). limits.py's bounds name the
    # parameters they bound in their docstrings, which are attribute strings to the parser.
    files = [p.relative_to(ROOT).as_posix() for p in production_files() if spelled(p, spec.name)]
    assert files == ["bangscore/contract/filters.py", "bangscore/contract/limits.py"]


# -- a new filter, declared here ---------------------------------------------------------------


def _score(values: Sequence[str]) -> int:
    score = bounded_integer(values[0], 0, 100)
    if score is None:
        raise FilterValueRefused("a score from 0 to 100, such as 80")
    return score


MIN_SCORE: ListFilter[int] = ListFilter(
    "x_min_score",
    parse=_score,
    text=str,
    mask=lambda index, score: index.columns["bang_score"] >= score,
    wire_type="integer",
    description="Keep games whose bang_score is at least this, from 0 to 100",
    schema={"type": "integer", "minimum": 0, "maximum": 100},
    form=FormField("Score at least", "number", min=0, max=100, inputmode="numeric"),
    client=lambda score: None if score is None else str(score),
)
# Its name is the test's own (x_: no real filter is spelled so), so a real filter, min_score
# included, lands beside it without a change here; the fixture refuses a name the table holds.
# What a real min_score changes: the declaration above and a row of ClientFilters (the client's
# typed keyword), both in bangscore/contract/filters.py, and its row in docs/API.md#list-games:
# 2 files. It reads bang_score, a column the compact index has; a filter over a column the index
# lacks also needs the builder to write it (bangscore/contract/compact.py encode_index; and
# build/snapshot.py compact_index when the value is not in the list item): the shim and the
# builder read every column by its name.
FILES_A_NEW_FILTER_TOUCHES = ("bangscore/contract/filters.py", "docs/API.md")


@pytest.fixture
def with_min_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table with x_min_score added, as its declaration in filters.py would add it."""
    assert MIN_SCORE.name not in {f.name for f in LIST_FILTERS}
    monkeypatch.setattr(filters, "LIST_FILTERS", (*LIST_FILTERS, MIN_SCORE))


def openapi_parameters() -> list[dict[str, Any]]:
    """Return the parameters of ``GET /api/v1/games`` in the OpenAPI document, as built now."""
    document = openapi_document(SITE, SITE)
    parameters: list[dict[str, Any]] = document["paths"]["/api/v1/games"]["get"]["parameters"]
    return parameters


def undocumented(table: Sequence[ListFilter[Any]]) -> list[str]:
    """Given list filters, return the names without a row in docs/API.md#list-games."""
    text = (ROOT / "docs" / "API.md").read_text()
    start = text.index("\n### List games\n")
    section = text[start : text.index("\n### ", start + 1)]
    return [f.name for f in table if f"\n| `{f.name}` |" not in section]


@pytest.mark.usefixtures("with_min_score")
def test_a_new_filter_is_one_declaration_and_a_row_of_the_reference() -> None:
    assert undocumented(filters.list_filters()) == ["x_min_score"]  # the reference's row is due
    assert len(FILES_A_NEW_FILTER_TOUCHES) <= 3
    assert all((ROOT / path).is_file() for path in FILES_A_NEW_FILTER_TOUCHES)


@pytest.mark.usefixtures("with_min_score")
def test_a_new_filter_is_parsed_listed_and_sent() -> None:
    query = parse_list_query([("x_min_score", "080"), ("genre", "rpg"), ("page", "2")])
    assert query.filters.get(MIN_SCORE) == 80 and query.page == 2
    assert query.filters.to_query() == {"genre": "rpg", "x_min_score": "80"}  # table order
    assert query.filters.combo_key is None  # composed per request, never precomputed
    with pytest.raises(BadRequest) as refused:
        parse_list_query([("x_min_score", "101"), ("year_from", "99")])
    assert [(e.parameter, e.message) for e in refused.value.errors] == [
        ("year_from", "a year from 1000 to 9999, such as 2015"),
        ("x_min_score", "a score from 0 to 100, such as 80"),
    ]
    listed = openapi_parameters()[len(LIST_FILTERS)]
    assert listed == {
        "name": "x_min_score",
        "in": "query",
        "required": False,
        "description": MIN_SCORE.description,
        "schema": {"type": "integer", "minimum": 0, "maximum": 100},
    }
    games = next(e for e in root_listing(SITE, SITE)["endpoints"] if e["path"] == "/api/v1/games")
    assert "x_min_score" in [p["name"] for p in games["parameters"]]
    sent = list_query({"x_min_score": 75, "on_sale": True}, 1)
    assert sent == {"on_sale": "true", "x_min_score": "75"}


@pytest.mark.usefixtures("with_min_score")
def test_the_client_takes_a_new_filter() -> None:
    asked: list[httpx.Request] = []

    async def empty() -> AsyncIterator[bytes]:  # streamed, as the client reads every answer
        yield b'{"page": 1, "pages": 0, "total": 0, "prices_as_of": null, "games": []}'

    def reply(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        return httpx.Response(200, content=empty())

    with Client("bsk_x", base_url="http://api.test", transport=httpx.MockTransport(reply)) as api:
        # A real filter's ClientFilters row types the keyword; this one is the test's own.
        assert api.games(x_min_score=90, genre=["rpg", "action"]).total == 0  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="unexpected keyword argument 'x_min_scor'"):
            api.games(x_min_scor=90)  # type: ignore[call-arg]
    assert str(asked[0].url) == "http://api.test/api/v1/games?genre=rpg%2Caction&x_min_score=90"


@pytest.mark.usefixtures("with_min_score")
def test_a_new_filter_selects_over_the_builders_and_the_shims_index(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
    small_index: IndexColumns,
    client_factory: Any,
) -> None:
    games = small_snapshot[1]
    kept = positions(Filters(((MIN_SCORE, 60),)), small_index)
    assert 0 < len(kept) < len(games)
    assert [i for i, g in enumerate(games) if g.bang_score >= 60] == kept
    client, store = client_factory(small_snapshot[0])
    assert isinstance(client, TestClient)
    auth = {"Authorization": f"Bearer {factories.add_key(store)}"}
    served = client.get("/api/v1/games?x_min_score=60", headers=auth)
    assert served.status_code == 200, served.text
    assert orjson.loads(served.content)["total"] == len(kept)
    assert "x_min_score=60" in served.headers["link"]
    page = client.get("/games?x_min_score=60").text
    field = (
        '<input id="f-x-min-score" type="number" name="x_min_score" min="0" max="100" value="60"'
    )
    assert field in page
    refused = client.get("/games?x_min_score=high")
    assert refused.status_code == 400
    assert "<strong>x_min_score</strong>: a score from 0 to 100, such as 80" in refused.text


@pytest.mark.usefixtures("with_min_score")
def test_the_form_renders_a_new_filter_empty_and_as_typed() -> None:
    site = SiteRenderer(site_url=SITE, base_url=SITE)
    empty = site.browse_page(Listing([], 1, 0, 0), form=Filters().form(), api_url="").decode()
    assert 'name="x_min_score" min="0" max="100" value="" inputmode="numeric"' in empty
    typed = filters.raw_form({"x_min_score": ["7x"], "tag": ["co-op", "indie"]})
    assert dict((f.name, v) for f, v in typed)["x_min_score"] == "7x"
    assert dict((f.name, v) for f, v in typed)["tag"] == "co-op, indie"
