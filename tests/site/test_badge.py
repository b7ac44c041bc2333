"""The embeddable badge and its snippet (docs/API.md#badges): its values, and the SVG the
template ``badge.svg`` draws from them."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from bangscore.site.badge import MAX_NAME, Badge, badge, badge_snippet
from bangscore.site.render import SiteRenderer

SVG = "{http://www.w3.org/2000/svg}"
SITE = SiteRenderer(site_url="https://bangscore.test", base_url="https://bangscore.test")


def badge_svg(*, name: str, bang_score: int, tier: str) -> str:
    return SITE.badge_svg(badge(name=name, bang_score=bang_score, tier=tier)).decode()


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


@pytest.mark.parametrize(
    ("name", "score", "tier", "expected"),
    [
        pytest.param(
            "Baldur's Gate 3",
            88,
            "banger",
            Badge(
                "BangScore 88/100, banger: Baldur's Gate 3",
                "BangScore",
                "Baldur's Gate 3",
                "88/100",
                "banger",
                "#1a7f37",
                112,
                67,
                179,
                145.5,
            ),
            id="banger",
        ),
        pytest.param(
            "x" * 50,
            5,
            "wait_for_sale",
            Badge(
                "BangScore 5/100, wait for sale: " + "x" * 50,
                "BangScore",
                "x" * 37 + "…",
                "5/100",
                "wait for sale",
                "#8a4b00",
                259,
                99,
                358,
                308.5,
            ),
            id="long-name-cut",
        ),
        pytest.param(
            "Bad\x01Name",
            50,
            "new_tier",
            Badge(
                "BangScore 50/100, new tier: Bad\ufffdName",
                "BangScore",
                "Bad\ufffdName",
                "50/100",
                "new tier",
                "#444444",
                84,
                67,
                151,
                117.5,
            ),
            id="control-character-unknown-tier",
        ),
    ],
)
def test_badge_values_size_each_part_to_its_words(
    name: str, score: int, tier: str, expected: Badge
) -> None:
    assert badge(name=name, bang_score=score, tier=tier) == expected


@pytest.mark.parametrize(
    ("tier", "words"),
    [
        pytest.param("banger", "banger", id="banger"),
        pytest.param("worth_it", "worth it", id="worth-it"),
        pytest.param("wait_for_sale", "wait for sale", id="wait"),
    ],
)
def test_badge_names_game_score_tier_and_us(tier: str, words: str) -> None:
    svg = badge_svg(name="Baldur's Gate 3", bang_score=88, tier=tier)
    assert texts(svg) == ["BangScore", "Baldur's Gate 3", "88/100", words]
    root = ET.fromstring(svg)
    assert root.get("aria-label") == f"BangScore 88/100, {words}: Baldur's Gate 3"
    assert "<script" not in svg and "href" not in svg


def test_badge_escapes_and_shortens_long_names() -> None:
    name = "<b>" + "x" * 80
    svg = badge_svg(name=name, bang_score=5, tier="skip")
    shown = texts(svg)[1]  # well-formed: jinja2 escaped the name
    assert len(shown) == MAX_NAME and shown.startswith("<b>") and shown.endswith("…")
    assert "\n" not in svg and svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="')


def test_every_text_of_the_badge_is_escaped() -> None:
    # The template writes numbers as they are (autoescape off) and escapes each text by name:
    # a text field added to Badge and left unescaped by the template fails here.
    hostile = "<x&\"'>"
    values = badge(name="Game", bang_score=70, tier="worth_it")
    texts_of: dict[str, Any] = {
        f.name: hostile for f in dataclasses.fields(values) if f.type == "str"
    }
    svg = SITE.badge_svg(dataclasses.replace(values, **texts_of)).decode()
    root = ET.fromstring(svg)  # well-formed: no text broke out of its element or attribute
    assert hostile not in svg and "<x" not in svg
    assert texts(svg) == [hostile] * 4 and root.get("aria-label") == hostile
    assert len(texts_of) == 6  # label, brand, name, score, words, fill


def test_snippet_links_the_game_page() -> None:
    html = badge_snippet(
        badge_url="https://b.example/badge/1.svg",
        game_url="https://b.example/game/1/a-b",
        name='A "B"',
        bang_score=70,
        tier="worth_it",
    )
    assert html == (
        '<a href="https://b.example/game/1/a-b" title="Rated by BangScore">'
        '<img src="https://b.example/badge/1.svg" alt="BangScore 70/100, worth it: A &quot;B&quot;"'
        ' height="40"></a>'
    )


def test_badge_is_the_document_the_f_string_drawing_wrote() -> None:
    """The bytes bangscore/site/badge.py wrote with f-strings at 2da1fa1, for this input."""
    assert badge_svg(name="Tom & Jerry <3", bang_score=72, tier="worth_it") == (
        '<svg xmlns="http://www.w3.org/2000/svg" width="173" height="40" viewBox="0 0 173 40" '
        'role="img" aria-label="BangScore 72/100, worth it: Tom &amp; Jerry &lt;3">'
        "<title>BangScore 72/100, worth it: Tom &amp; Jerry &lt;3</title>"
        '<rect width="173" height="40" rx="4" fill="#222222"/>'
        '<rect x="106" width="67" height="40" rx="4" fill="#0b5cad"/>'
        '<rect x="106" width="6" height="40" fill="#0b5cad"/>'
        '<g fill="#ffffff" font-family="Verdana,DejaVu Sans,sans-serif">'
        '<text x="8" y="16" font-size="12" font-weight="bold">BangScore</text>'
        '<text x="8" y="32" font-size="11">Tom &amp; Jerry &lt;3</text>'
        '<text x="140" y="17" font-size="14" font-weight="bold" text-anchor="middle">72/100</text>'
        '<text x="140" y="32" font-size="11" text-anchor="middle">worth it</text></g></svg>'
    )
