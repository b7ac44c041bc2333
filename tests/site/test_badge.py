"""The embeddable badge and its snippet (docs/API.md#badges)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from bangscore.site.badge import MAX_NAME, badge_snippet, badge_svg

SVG = "{http://www.w3.org/2000/svg}"


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


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
    shown = texts(badge_svg(name=name, bang_score=5, tier="skip"))[1]
    assert len(shown) == MAX_NAME and shown.startswith("<b>") and shown.endswith("…")


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
