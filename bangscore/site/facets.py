"""The platform facets as the website shows them (docs/API.md#platform-facets): badges on rows
and game pages (Steam Deck rating with its test date, controller support, full audio in the
language a visitor filters by) and the game page's languages and AI disclosure lines.

Every function reads a wire record (list item or detail record, as a mapping) and says nothing
where the record is silent: a game the storefront has not rated gets no Deck badge, never an
"unsupported" one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from bangscore.scoring.languages import LANGUAGE_LABELS
from bangscore.scoring.verdict import day

DECK_WORDS = {"verified": "Deck verified", "playable": "Deck playable"}
DECK_WORDS["unsupported"] = "Deck unsupported"
CONTROLLER_WORDS = {"full": "Full controller support", "partial": "Partial controller support"}


def language_label(tag: str) -> str:
    """Given a language tag, return its English name (``de``: German), else the tag."""
    return LANGUAGE_LABELS.get(tag, tag)


def facet_badges(record: Mapping[str, Any], audio: str | None = None) -> list[tuple[str, str]]:
    """Given a list item or detail record and the language a visitor filters by (None: none),
    return its facet badges as (css name, words), in the order Steam Deck (with the test day
    when the record carries it: "Deck verified, tested 1 Sep 2023"), controller, full audio in
    that language (when the record's ``languages`` or the caller says so); [] for none."""
    out = []
    deck = record.get("steam_deck")
    if deck in DECK_WORDS:
        words = DECK_WORDS[deck]
        tested = record.get("steam_deck_tested_at")
        if tested:
            words += f", tested {day(dt.date.fromisoformat(str(tested)))}"
        out.append((f"deck-{deck}", words))
    controller = record.get("controller_support")
    if controller in CONTROLLER_WORDS:
        out.append((f"controller-{controller}", CONTROLLER_WORDS[controller]))
    if audio:
        out.append(("audio", f"Audio in {language_label(audio)}"))
    return out


def languages_view(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Given a detail record, return each of its languages as (name, what is in it: "interface,
    audio, subtitles"), in the record's order; [] when it lists none."""
    out = []
    for lang in record.get("languages") or ():
        parts = [name for name in ("interface", "audio", "subtitles") if lang.get(name)]
        out.append((language_label(str(lang["code"])), ", ".join(parts)))
    return out
