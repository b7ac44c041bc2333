"""A game's embeddable badge (``/badge/<appid>.svg``): its name, bang_score, tier and our name,
precomputed at build time, and the HTML snippet that embeds it with the attribution link the
terms of use require (docs/API.md#badges).

Pure: :func:`badge` returns the badge's words, sizes and colour as plain values
(:class:`Badge`); the template ``badge.svg`` lays them out (no script, no external resource, no
web font: a badge is shown inside other sites' pages; jinja2 escapes the text). Readable
without colour: every figure is written in words.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

TIER_WORDS = {
    "banger": "banger",
    "worth_it": "worth it",
    "fair": "fair",
    "wait_for_sale": "wait for sale",
    "skip": "skip",
}
# Fill of the score part per tier; white text on each is above 4.5:1 contrast.
TIER_FILL = {
    "banger": "#1a7f37",
    "worth_it": "#0b5cad",
    "fair": "#6e5a00",
    "wait_for_sale": "#8a4b00",
    "skip": "#a11d1d",
}
HEIGHT = 40
MAX_NAME = 38
_CHAR = 6.4  # mean advance of an 11 px sans-serif character
BRAND = "BangScore"


def _xml_text(text: str) -> str:
    """Given any text, return it with the characters XML 1.0 forbids (C0 controls but tab, LF
    and CR; U+FFFE, U+FFFF; lone surrogates) replaced by U+FFFD, so the badge stays
    well-formed (XML 1.0 section 2.2, "Char")."""
    return "".join(
        ch
        if ch in "\t\n\r"
        or ("\x20" <= ch <= "\ud7ff")
        or ("\ue000" <= ch <= "\ufffd")
        or ch >= "\U00010000"
        else "\ufffd"
        for ch in text
    )


def _name(name: str) -> str:
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1].rstrip() + "…"


@dataclass(frozen=True, slots=True)
class Badge:
    """A badge as plain values: its accessible ``label`` (``BangScore 88/100, banger: Name``),
    our name, the game's name as shown (at most :data:`MAX_NAME` characters), the score
    (``88/100``) and tier in words, the score part's fill colour, the widths of the two parts
    and the whole and the x of the score part's centre (SVG units); :data:`HEIGHT` high."""

    label: str
    brand: str
    name: str
    score: str
    words: str
    fill: str
    left_width: int
    right_width: int
    width: int
    centre: float
    height: int = HEIGHT


def badge(*, name: str, bang_score: int, tier: str) -> Badge:
    """Given a game's name, its bang_score (0-100) and tier wire name, return its badge's
    values (the template ``badge.svg`` draws them as a standalone SVG document): our name and
    the game's name on the left, the score and the tier on the right. Characters XML forbids
    are replaced by U+FFFD."""
    words = TIER_WORDS.get(tier, tier.replace("_", " "))
    name = _xml_text(name)
    shown = _name(name)
    left_w = round(max(len(BRAND) * 7.5, len(shown) * _CHAR) + 16)
    score_text = f"{bang_score}/100"
    right_w = round(max(len(score_text) * 8.5, len(words) * _CHAR) + 16)
    return Badge(
        label=f"BangScore {bang_score}/100, {words}: {name}",
        brand=BRAND,
        name=shown,
        score=score_text,
        words=words,
        fill=TIER_FILL.get(tier, "#444444"),
        left_width=left_w,
        right_width=right_w,
        width=left_w + right_w,
        centre=left_w + right_w / 2,
    )


def badge_snippet(*, badge_url: str, game_url: str, name: str, bang_score: int, tier: str) -> str:
    """Given the badge's and the game page's absolute URLs, the game's name, score and tier,
    return the HTML to paste: the badge image inside the attribution link to the game page."""
    words = TIER_WORDS.get(tier, tier.replace("_", " "))
    alt = f"BangScore {bang_score}/100, {words}: {name}"
    return (
        f'<a href="{escape(game_url)}" title="Rated by BangScore">'
        f'<img src="{escape(badge_url)}" alt="{escape(alt)}" height="{HEIGHT}"></a>'
    )
