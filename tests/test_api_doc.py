"""docs/API.md, the API reference, against the code, and the repository's citations of it.

The reference lives in the repository so that a fresh clone holds every document its code
cites: each ``docs/API.md#<anchor>`` in a docstring, comment or document must name a heading of
docs/API.md, and nothing may cite the specification files that live outside the repository.
The reference must name every route, error code, wire field and vocabulary word the code has.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.build.openapi import DETAIL_PROPERTIES, SOURCE_KINDS
from bangscore.contract.api import ERROR_CODES, Route, routes
from bangscore.contract.objects import detail_key
from bangscore.manifest import read_body, read_manifest_view
from bangscore.scoring.drivers import DRIVERS
from bangscore.scoring.genres import GENRES
from bangscore.scoring.records import NOT_RATED_REASONS
from bangscore.scoring.tiers import TIERS
from bangscore.scoring.value import SCORE_VERSION
from tests.support import doc_record
from tests.support.factories import SITE
from tests.support.package_files import package_files
from tests.support.real_catalogue import SNAPSHOT_ID

ROOT = Path(__file__).resolve().parent.parent
API_MD = ROOT / "docs" / "API.md"
# Where citations live besides the package (walked whole, tests/support/package_files.py):
# tests, benchmarks, deployment files and the documents.
FOLDERS = ("tests", "bench", "infra", "docs")
SUFFIXES = frozenset({".py", ".md", ".html", ".sh", ".conf", ".service", ".txt", ".css"})
CITATION = re.compile(r"docs/API\.md#([\w-]+)")
# Citations of documents outside the repository; spelled in pieces so this file is no hit.
OUTSIDE = re.compile("|".join((r"\bCONTRACT" + r"\b", r"\bSPEC" + r"\b", r"\bthe contract\b")))


def slug(heading: str) -> str:
    """Given a Markdown heading's text, return its anchor as GitHub makes it: lowercase, every
    character but letters, digits, ``_``, ``-`` and spaces dropped, spaces as ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> list[str]:
    """Given Markdown, return the anchors of its headings (outside fenced code), in order."""
    found: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6} (.+)", line)):
            found.append(slug(match.group(1)))
    return found


def cited_files() -> Iterator[Path]:
    """Yield every source and document file that may cite docs/API.md: every file of the
    package, then those of the other folders and the READMEs."""
    yield from (p for p in package_files() if p.suffix in SUFFIXES)
    for folder in FOLDERS:
        yield from (
            p for p in sorted((ROOT / folder).rglob("*")) if p.is_file() and p.suffix in SUFFIXES
        )
    yield ROOT / "README.md"
    yield ROOT / "data" / "README.md"


MARKDOWN = API_MD.read_text()
ANCHORS = anchors(MARKDOWN)


def test_slug_follows_github() -> None:
    assert slug("Tiers and thresholds") == "tiers-and-thresholds"
    assert slug("game_not_rated") == "game_not_rated"
    assert slug("sources and provenance") == "sources-and-provenance"
    assert slug("Base URL and versioning") == "base-url-and-versioning"


def test_anchors_are_unique() -> None:
    assert len(ANCHORS) == len(set(ANCHORS))


def test_internal_links_name_headings() -> None:
    links = set(re.findall(r"\]\(#([\w-]+)\)", MARKDOWN))
    assert len(links) > 50
    assert links - set(ANCHORS) == set()


def test_every_citation_in_the_repository_names_a_heading() -> None:
    cited = {
        (str(path.relative_to(ROOT)), anchor)
        for path in cited_files()
        for anchor in CITATION.findall(path.read_text())
    }
    assert len(cited) > 40
    assert {(where, a) for where, a in cited if a not in ANCHORS} == set()


def test_nothing_cites_documents_outside_the_repository() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in cited_files()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert hits == []


@pytest.mark.parametrize("code", list(ERROR_CODES))
def test_every_error_code_has_its_section_and_row(code: str) -> None:
    assert code in ANCHORS
    status = ERROR_CODES[code].status
    assert f"| [`{code}`](#{code}) | {status} | {ERROR_CODES[code].title} |" in MARKDOWN


@pytest.mark.parametrize("reason", NOT_RATED_REASONS)
def test_every_not_rated_reason_is_explained(reason: str) -> None:
    assert f"| `{reason}` |" in section("### game_not_rated")


def section(heading: str) -> str:
    """Given a heading line, return its section of docs/API.md, up to the next heading."""
    start = MARKDOWN.index(f"\n{heading}\n")
    return MARKDOWN[start : MARKDOWN.find("\n#", start + len(heading) + 2)]


@pytest.mark.parametrize("route", routes(), ids=[r.name for r in routes()])
def test_every_route_is_in_the_endpoint_table(route: Route) -> None:
    assert f"| `GET {route.path}" in section("## Endpoints")


@pytest.mark.parametrize("field", list(DETAIL_PROPERTIES))
def test_every_wire_field_is_documented(field: str) -> None:
    start = MARKDOWN.index("\n## Wire records\n")
    records = MARKDOWN[start : MARKDOWN.index("\n## ", start + 1)]
    assert f"`{field}`" in records


@pytest.mark.parametrize(
    ("heading", "words"),
    [
        pytest.param("#### drivers", [f"| `{d}` |" for d in DRIVERS], id="drivers"),
        pytest.param("## Tiers and thresholds", [f"| `{t}` |" for t in TIERS], id="tiers"),
        pytest.param("## Genres", [f"`{g}`" for g in GENRES], id="genres"),
        pytest.param("#### sources and provenance", [f"`{k}`" for k in SOURCE_KINDS], id="sources"),
    ],
)
def test_every_vocabulary_word_is_in_its_section(heading: str, words: list[str]) -> None:
    text = section(heading)
    assert [w for w in words if w not in text] == []


def test_the_formula_stays_out_of_the_reference() -> None:
    # Names of the private scoring model's parts (scoring/value.py): none may be published.
    private = ("FAIR_PRICE", "VALUE_EXPONENT", "LENGTH_EXPONENT", "Bayesian", "quality *")
    assert [word for word in private if word in MARKDOWN] == []


def test_the_reference_names_todays_score_version() -> None:
    assert f'(`"{SCORE_VERSION}"` today)' in section("#### score_version")
    assert f'"score_version": "{SCORE_VERSION}"' in MARKDOWN


def test_the_real_record_example_renders_back_as_the_docs_lay_it_out() -> None:
    text = (ROOT / "docs" / "API.md").read_text()
    shown = doc_record.documented(text)
    start, end = doc_record.doc_block(text)
    assert doc_record.render(shown) == text[start:end]


def test_the_shortened_record_keeps_the_shape_and_cuts_lists_and_the_site() -> None:
    record = {"appid": 10, "url": "http://x/game/10/a", "tags": ["A", "B", "C"], "more": 1,
              "sources": {"storefront": "2026-07-13", "wiki": None}}  # fmt: skip
    shape = {"appid": 0, "url": "", "tags": ["A", "..."], "...": "...", "sources": {"wiki": 0}}
    assert doc_record.shortened(record, shape, "http://x") == {
        "appid": 10,
        "url": "{site}/game/10/a",
        "tags": ["A", "..."],
        "...": "...",
        "sources": {"wiki": None},
    }


@pytest.mark.slow
def test_the_real_record_example_is_the_real_builds_record(real_snapshot: Any) -> None:
    # Issue 48: the example for appid 10 no longer matched the server. After a change of the
    # model or the data, `make docs` writes it again (python -m tests.support.doc_record).
    storage, _ = real_snapshot
    entry = read_manifest_view(storage, SNAPSHOT_ID).entries[detail_key(doc_record.APPID)]
    record = orjson.loads(read_body(storage, entry))
    shown = doc_record.documented((ROOT / "docs" / "API.md").read_text())
    assert doc_record.shortened(record, shown, SITE) == shown


def test_the_docs_and_the_models_agree_on_which_day_a_date_field_names() -> None:
    # Issue 48: recent_low_at was documented as the latest day; the builder gives the first.
    from bangscore.contract.records import GameDetail

    rows = {
        m[1]: m[2]
        for m in re.finditer(
            r"^\| `([a-z_]+)` \| [^|]+ \| (.+) \|$", API_MD.read_text(), re.MULTILINE
        )
    }
    checked = 0
    for name, field in GameDetail.model_fields.items():
        said = (field.description or "").lower()
        for word, other in (("first", "latest"), ("latest", "first")):
            if name.endswith("_at") and re.search(rf"\b{word}\b", said) and name in rows:
                assert re.search(rf"\b{word}\b", rows[name]), (name, rows[name])
                assert not re.search(rf"\b{other}\b", rows[name]), (name, rows[name])
                checked += 1
    assert checked >= 2  # recent_low_at, verdict_price_seen_at at least
