"""The API's limits (bangscore/contract/limits.py) as the parser and the OpenAPI document state
them.

For every parameter, at and just past each bound, the shim's parser (shim/params.py) and the
OpenAPI document (build/openapi.py) must give the same verdict, and docs/API.md#limits must
state the same figures. A query value is read against the document as an OpenAPI client reads
a form-style query parameter: for an ``integer`` schema, an optional minus sign and decimal
digits in base 10 (``0999`` is 999); anything else is no integer at all.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from bangscore.build.openapi import openapi_document
from bangscore.contract import limits
from bangscore.contract.filters import TAG
from bangscore.errors import BadRequest
from bangscore.shim import params
from bangscore.site.render import Listing, SiteRenderer
from tests.support.factories import SITE

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = openapi_document(SITE, SITE)
GAMES = "/api/v1/games"
GAME = "/api/v1/games/{appid}"
SEARCH = "/api/v1/search"
LOOKUP = "/api/v1/lookup"
_INTEGER = re.compile(r"-?[0-9]+")


def parameter(path: str, name: str) -> dict[str, Any]:
    """Given a route path and a parameter name, return the parameter object of the document."""
    found = [p for p in DOCUMENT["paths"][path]["get"]["parameters"] if p["name"] == name]
    assert len(found) == 1
    return found[0]  # type: ignore[no-any-return]


def schema_accepts(path: str, name: str, raw: str) -> bool:
    """Given a route, a parameter and its raw query value, return the document's verdict."""
    schema = parameter(path, name)["schema"]
    value: object = raw
    if schema.get("type") == "integer":
        if not _INTEGER.fullmatch(raw):
            return False
        value = int(raw)
    return bool(jsonschema_rs.validator_for(schema).is_valid(value))


def parser_errors(path: str, name: str, raw: str) -> list[str]:
    """Given a route, a parameter and its raw value, return the parameters the parser's 400
    names (an empty list when it accepts the request)."""
    try:
        if path == GAME:
            params.parse_appid(raw)
        elif path == LOOKUP:
            params.parse_lookup_query([(name, raw)])
        elif path == SEARCH:
            other = [] if name == "q" else [("q", "portal")]
            params.parse_search_query([*other, (name, raw)])
        else:
            params.parse_list_query([(name, raw)])
    except BadRequest as exc:
        return [e.parameter for e in exc.errors]
    return []


def _tags(count: int) -> str:
    return ",".join(f"t{i}" for i in range(count))


_X64 = "x" * limits.MAX_TAG_LENGTH
_Q100 = "q" * limits.MAX_QUERY_LENGTH
_PAGE_MAX = str(limits.MAX_PAGE)
_PAGE_PAST = str(limits.MAX_PAGE + 1)

# (route, parameter, raw value, valid), one row per bound and side, and the edge forms.
CASES = [
    # page: 1..MAX_PAGE on both paginated routes
    pytest.param(GAMES, "page", "1", True, id="page-1"),
    pytest.param(GAMES, "page", "0", False, id="page-0"),
    pytest.param(GAMES, "page", _PAGE_MAX, True, id="page-max"),
    pytest.param(GAMES, "page", _PAGE_PAST, False, id="page-max+1"),
    pytest.param(GAMES, "page", "0" + _PAGE_MAX, True, id="page-max-zero-padded"),
    pytest.param(GAMES, "page", "0001", True, id="page-1-zero-padded"),
    pytest.param(GAMES, "page", "-1", False, id="page-negative"),
    pytest.param(GAMES, "page", "+1", False, id="page-plus-sign"),
    pytest.param(GAMES, "page", " 1", False, id="page-space"),
    pytest.param(GAMES, "page", "", False, id="page-empty"),
    pytest.param(SEARCH, "page", "1", True, id="search-page-1"),
    pytest.param(SEARCH, "page", "0", False, id="search-page-0"),
    pytest.param(SEARCH, "page", _PAGE_MAX, True, id="search-page-max"),
    pytest.param(SEARCH, "page", _PAGE_PAST, False, id="search-page-max+1"),
    # year_from, year_to: MIN_YEAR..MAX_YEAR
    *(
        pytest.param(GAMES, name, raw, valid, id=f"{name}-{label}")
        for name in ("year_from", "year_to")
        for raw, valid, label in (
            ("1000", True, "1000"),
            ("0999", False, "0999"),
            ("999", False, "999"),
            ("9999", True, "9999"),
            ("10000", False, "10000"),
            ("02015", True, "2015-zero-padded"),
            (" 2015", False, "space"),
            ("-2015", False, "negative"),
            ("2015.0", False, "decimal"),
        )
    ),
    # tag: at most MAX_TAGS tags of 1..MAX_TAG_LENGTH characters after trimming
    pytest.param(GAMES, "tag", _X64, True, id="tag-64-chars"),
    pytest.param(GAMES, "tag", _X64 + "x", False, id="tag-65-chars"),
    pytest.param(GAMES, "tag", f"  {_X64}\t", True, id="tag-64-chars-padded"),
    pytest.param(GAMES, "tag", "x", True, id="tag-1-char"),
    pytest.param(GAMES, "tag", "", False, id="tag-empty"),
    pytest.param(GAMES, "tag", " ", False, id="tag-blank"),
    pytest.param(GAMES, "tag", "co-op,,rpg", False, id="tag-empty-between"),
    pytest.param(GAMES, "tag", "co-op,", False, id="tag-trailing-comma"),
    pytest.param(GAMES, "tag", _tags(limits.MAX_TAGS), True, id="tags-20"),
    pytest.param(GAMES, "tag", _tags(limits.MAX_TAGS + 1), False, id="tags-21"),
    pytest.param(GAMES, "tag", ",".join(["co-op"] * 21), False, id="tags-21-duplicates"),
    # q: MIN_QUERY_LENGTH..MAX_QUERY_LENGTH characters after trimming
    pytest.param(SEARCH, "q", "q", True, id="q-1-char"),
    pytest.param(SEARCH, "q", "", False, id="q-empty"),
    pytest.param(SEARCH, "q", "   ", False, id="q-blank"),
    pytest.param(SEARCH, "q", _Q100, True, id="q-100-chars"),
    pytest.param(SEARCH, "q", _Q100 + "q", False, id="q-101-chars"),
    pytest.param(SEARCH, "q", f"  {_Q100}\n", True, id="q-100-chars-padded"),
    pytest.param(SEARCH, "q", f"\u3000{_Q100}", True, id="q-100-chars-ideographic-space"),
    pytest.param(SEARCH, "q", "a" + " " * 98 + "b", True, id="q-100-with-inner-spaces"),
    pytest.param(SEARCH, "q", "a" + " " * 99 + "b", False, id="q-101-with-inner-spaces"),
    pytest.param(SEARCH, "q", "portal\nii", True, id="q-inner-line-break"),
    # appid: 1..MAX_APPID_DIGITS ASCII digits
    pytest.param(GAME, "appid", "620", True, id="appid-620"),
    pytest.param(GAME, "appid", "9" * limits.MAX_APPID_DIGITS, True, id="appid-12-digits"),
    pytest.param(GAME, "appid", "9" * 13, False, id="appid-13-digits"),
    pytest.param(GAME, "appid", "0" * 9 + "620", True, id="appid-12-digits-zero-padded"),
    pytest.param(GAME, "appid", "62a", False, id="appid-letter"),
    pytest.param(GAME, "appid", "\u00b2", False, id="appid-superscript-two"),
    pytest.param(GAME, "appid", "-5", False, id="appid-negative"),
    # genre and on_sale have no numeric bound: their value sets, case and spacing
    pytest.param(GAMES, "genre", "rpg", True, id="genre-rpg"),
    pytest.param(GAMES, "genre", " RPG , Shooter ", True, id="genre-any-case-spaced"),
    pytest.param(GAMES, "genre", "platformer", False, id="genre-unknown"),
    pytest.param(GAMES, "genre", "rpg,", False, id="genre-trailing-comma"),
    pytest.param(GAMES, "genre", "", False, id="genre-empty"),
    pytest.param(GAMES, "genre", "ROGUELI\u212aE", False, id="genre-kelvin-sign"),
    pytest.param(GAMES, "on_sale", "true", True, id="on_sale-true"),
    pytest.param(GAMES, "on_sale", "TRUE", True, id="on_sale-TRUE"),
    pytest.param(GAMES, "on_sale", "false", False, id="on_sale-false"),
    pytest.param(GAMES, "on_sale", " true", False, id="on_sale-space"),
    pytest.param(GAMES, "on_sale", "", False, id="on_sale-empty"),
    # the platform facets: their vocabularies, case and spacing; min_reviews' bounds
    pytest.param(GAMES, "steam_deck", "verified", True, id="steam_deck-verified"),
    pytest.param(GAMES, "steam_deck", " Verified , PLAYABLE ", True, id="steam_deck-two-spaced"),
    pytest.param(GAMES, "steam_deck", "great", False, id="steam_deck-unknown"),
    pytest.param(GAMES, "steam_deck", "verified,", False, id="steam_deck-trailing-comma"),
    pytest.param(GAMES, "steam_deck", "", False, id="steam_deck-empty"),
    pytest.param(GAMES, "controller", "full,partial", True, id="controller-both"),
    pytest.param(GAMES, "controller", "none", False, id="controller-none"),
    *(
        pytest.param(GAMES, name, raw, valid, id=f"{name}-{label}")
        for name in ("language", "audio")
        for raw, valid, label in (
            ("de", True, "de"),
            ("DE", True, "DE"),
            (" zh-hans ", True, "zh-hans-spaced"),
            ("pt-BR", True, "pt-BR"),
            ("xx", False, "unknown"),
            ("de,fr", False, "two"),
            ("german", False, "storefront-name"),
            ("\u3000de", True, "ideographic-space"),
            ("", False, "empty"),
        )
    ),
    *(
        pytest.param(GAMES, "min_reviews", raw, valid, id=f"min_reviews-{label}")
        for raw, valid, label in (
            ("0", True, "0"),
            ("10000", True, "10000"),
            (str(limits.MAX_MIN_REVIEWS), True, "max"),
            (str(limits.MAX_MIN_REVIEWS + 1), False, "past-max"),
            ("-1", False, "negative"),
            ("1e4", False, "exponent"),
            ("", False, "empty"),
        )
    ),
    # max_price: 0..MAX_PRICE_USD dollars, at most two decimals, on the list and search
    *(
        pytest.param(path, "max_price", raw, valid, id=f"{where}-max_price-{label}")
        for path, where in ((GAMES, "games"), (SEARCH, "search"))
        for raw, valid, label in (
            ("0", True, "0"),
            ("9.99", True, "9.99"),
            ("10.5", True, "10.5"),
            ("1000", True, "1000"),
            ("1000.00", True, "1000.00"),
            ("1000.01", False, "1000.01"),
            ("1001", False, "1001"),
            ("0999", True, "0999-zero-padded"),
            ("9.999", False, "three-decimals"),
            ("10.", False, "trailing-dot"),
            (".5", False, "no-dollars"),
            ("-1", False, "negative"),
            ("1e3", False, "exponent"),
            (" 10", False, "space"),
            ("", False, "empty"),
        )
    ),
    # appids: 1..MAX_LOOKUP_APPIDS items of 1..MAX_APPID_DIGITS digits
    pytest.param(LOOKUP, "appids", "620", True, id="appids-1"),
    pytest.param(LOOKUP, "appids", " 620 , 10 ", True, id="appids-spaced"),
    pytest.param(LOOKUP, "appids", ",".join(["620"] * 100), True, id="appids-100"),
    pytest.param(LOOKUP, "appids", ",".join(["620"] * 101), False, id="appids-101"),
    pytest.param(LOOKUP, "appids", "9" * 12, True, id="appids-12-digits"),
    pytest.param(LOOKUP, "appids", "9" * 13, False, id="appids-13-digits"),
    pytest.param(LOOKUP, "appids", "620,,10", False, id="appids-empty-item"),
    pytest.param(LOOKUP, "appids", "620,", False, id="appids-trailing-comma"),
    pytest.param(LOOKUP, "appids", "", False, id="appids-empty"),
    pytest.param(LOOKUP, "appids", "62a", False, id="appids-letter"),
]


@pytest.mark.parametrize(("path", "name", "raw", "valid"), CASES)
def test_parser_and_openapi_agree_at_and_past_each_bound(
    path: str, name: str, raw: str, valid: bool
) -> None:
    assert schema_accepts(path, name, raw) is valid
    # Refused: a 400 naming this parameter and no other.
    assert parser_errors(path, name, raw) == ([] if valid else [name])


def test_a_zero_padded_year_below_1000_is_a_400_naming_it() -> None:
    with pytest.raises(BadRequest) as refused:
        params.parse_list_query([("year_from", "0999"), ("year_to", "2020")])
    assert [(e.parameter, e.message) for e in refused.value.errors] == [
        ("year_from", "a year from 1000 to 9999, such as 2015")
    ]


@pytest.mark.parametrize(
    ("values", "valid"),
    [
        pytest.param([_tags(10), _tags(10)], True, id="10+10"),
        pytest.param([_tags(10), _tags(11)], False, id="10+11"),
        pytest.param(["co-op"] * 21, False, id="21-repeated-parameters"),
    ],
)
def test_repeated_tag_parameters_count_together(values: list[str], valid: bool) -> None:
    items = [("tag", v) for v in values]
    if valid:
        assert (params.parse_list_query(items).filters.get(TAG) or set()) >= {"t0", "t9"}
    else:
        with pytest.raises(BadRequest) as refused:
            params.parse_list_query(items)
        assert [e.message for e in refused.value.errors] == ["at most 20 tags"]


def test_page_defaults_to_the_first() -> None:
    assert params.parse_list_query([]).page == limits.MIN_PAGE == 1
    assert params.parse_search_query([("q", "portal")]).page == 1


# The published figures: changing one changes the API, so it changes here and in /docs.
PUBLISHED = [
    ("PAGE_SIZE", 10),
    ("MIN_PAGE", 1),
    ("MAX_PAGE", 1_000_000_000),
    ("MIN_YEAR", 1000),
    ("MAX_YEAR", 9999),
    ("MAX_TAGS", 20),
    ("MAX_TAG_LENGTH", 64),
    ("MIN_QUERY_LENGTH", 1),
    ("MAX_QUERY_LENGTH", 100),
    ("MAX_APPID_DIGITS", 12),
    ("MAX_LINK_EXPIRES_DIGITS", 12),
    ("MAX_LOOKUP_APPIDS", 100),
    ("MAX_PRICE_USD", 1000),
    ("MAX_MIN_REVIEWS", 10_000_000),
]


def test_every_limit_is_published_here() -> None:
    names = {n for n in vars(limits) if n.isupper()}
    assert names == {name for name, _ in PUBLISHED}


@pytest.mark.parametrize(("name", "value"), PUBLISHED, ids=[n for n, _ in PUBLISHED])
def test_published_figures(name: str, value: int) -> None:
    assert getattr(limits, name) == value


@pytest.mark.parametrize(
    ("path", "name", "key", "value"),
    [
        pytest.param(GAMES, "page", "minimum", limits.MIN_PAGE, id="page-minimum"),
        pytest.param(GAMES, "page", "maximum", limits.MAX_PAGE, id="page-maximum"),
        pytest.param(GAMES, "page", "default", limits.MIN_PAGE, id="page-default"),
        pytest.param(SEARCH, "page", "maximum", limits.MAX_PAGE, id="search-page-maximum"),
        pytest.param(GAMES, "year_from", "minimum", limits.MIN_YEAR, id="year_from-minimum"),
        pytest.param(GAMES, "year_from", "maximum", limits.MAX_YEAR, id="year_from-maximum"),
        pytest.param(GAMES, "year_to", "minimum", limits.MIN_YEAR, id="year_to-minimum"),
        pytest.param(GAMES, "year_to", "maximum", limits.MAX_YEAR, id="year_to-maximum"),
        pytest.param(GAME, "appid", "maxLength", limits.MAX_APPID_DIGITS, id="appid-maxLength"),
        pytest.param(GAMES, "min_reviews", "maximum", limits.MAX_MIN_REVIEWS, id="min_reviews-max"),
    ],
)
def test_openapi_schema_states_the_figure(path: str, name: str, key: str, value: int) -> None:
    assert parameter(path, name)["schema"][key] == value


@pytest.mark.parametrize(
    ("path", "name", "words"),
    [
        pytest.param(GAMES, "page", "from 1 to 1,000,000,000", id="page"),
        pytest.param(GAMES, "year_from", "from 1000 to 9999", id="year_from"),
        pytest.param(GAMES, "year_to", "from 1000 to 9999", id="year_to"),
        pytest.param(GAMES, "tag", "at most 20 tags of at most 64 characters", id="tag"),
        pytest.param(SEARCH, "q", "1-100 characters after trimming", id="q"),
        pytest.param(GAME, "appid", "1 to 12 decimal digits", id="appid"),
    ],
)
def test_openapi_descriptions_state_the_figures(path: str, name: str, words: str) -> None:
    assert words in parameter(path, name)["description"]


def test_a_page_holds_at_most_page_size_games() -> None:
    envelope = DOCUMENT["components"]["schemas"]["GameList"]["properties"]["games"]
    assert envelope["maxItems"] == limits.PAGE_SIZE == 10


def test_the_sites_search_boxes_take_what_the_api_takes() -> None:
    page = SiteRenderer(site_url=SITE, base_url=SITE).search_page("", Listing([], 1, 0, 0))
    assert b'name="q"' in page
    assert b'maxlength="100"' in page


def _limits_table() -> dict[str, list[str]]:
    """Return docs/API.md#limits's table: first cell (the limit's constant) to its row's cells."""
    markdown = (ROOT / "docs" / "API.md").read_text()
    start = markdown.index("\n## Limits\n")
    section = markdown[start : markdown.index("\n## ", start + 1)]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith("`") and cells[0].endswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


@pytest.mark.parametrize(("name", "value"), PUBLISHED, ids=[n for n, _ in PUBLISHED])
def test_docs_api_md_states_the_same_figure(name: str, value: int) -> None:
    assert _limits_table()[name][1].replace(",", "") == str(value)


@pytest.mark.parametrize(
    ("heading", "words"),
    [
        pytest.param("### List games", "integer 1000-9999", id="list-years"),
        pytest.param("### List games", "integer 1-1,000,000,000", id="list-page"),
        pytest.param("### List games", "at most 20 tags of 1-64 characters", id="list-tags"),
        pytest.param("### Search", "1-100 characters after trimming", id="search-q"),
        pytest.param("### Search", "integer 1-1,000,000,000", id="search-page"),
        pytest.param("### Game detail", "1 to 12 ASCII decimal digits", id="detail-appid"),
        pytest.param("## Pagination", "at most 10 items", id="page-size"),
    ],
)
def test_docs_api_md_restates_the_figures_where_the_parameters_are(
    heading: str, words: str
) -> None:
    markdown = (ROOT / "docs" / "API.md").read_text()
    start = markdown.index(f"\n{heading}\n")
    end = markdown.find("\n#", start + len(heading) + 2)
    assert words in markdown[start:end]
