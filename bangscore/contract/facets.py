"""The platform facets' wire fields (docs/API.md#platform-facets):
their types and descriptions, declared once, for :class:`bangscore.contract.records.ListItem`
(``steam_deck``, ``controller_support``) and :class:`~bangscore.contract.records.GameDetail`
(``steam_deck_tested_at``, ``languages``, ``ai_content``).

Every value comes from the 2026 storefront record (Steam PICS, July 2026), dated in the detail
record's ``provenance`` under the field's name (``steam_deck_tested_at`` under ``steam_deck``);
null (or, for ``languages``, an empty list) where that record is silent: absence is never
"unsupported".
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field

from bangscore.contract.records_base import Record
from bangscore.scoring.records import ControllerSupport, DeckStatus, GameRecord

# The facets' codes in the compact index's columns (contract.compact): 0 is null (the storefront
# is silent). Here, not there, so the filters (and the client, which reads them) need no numpy.
DECK_CODES = {"unsupported": 1, "playable": 2, "verified": 3}
CONTROLLER_CODES = {"partial": 1, "full": 2}


class LanguageSupport(Record):
    """One language the storefront lists for the game."""

    code: str = Field(
        description="ISO 639-1 (de, ja), or a BCP 47 tag: zh-Hans, zh-Hant, pt-BR, es-419 and "
        "the few languages without an ISO 639-1 code (fil, sco...)."
    )
    interface: bool = Field(description="The interface is in this language.")
    audio: bool = Field(description="Full audio in this language.")
    subtitles: bool = Field(description="Subtitles in this language.")


SteamDeckField = Annotated[
    DeckStatus | None,
    Field(
        description="Valve's Steam Deck compatibility rating: verified, playable or "
        "unsupported; null when the storefront has not rated the game."
    ),
]
ControllerField = Annotated[
    ControllerSupport | None,
    Field(
        description="Controller support the storefront states: full or partial; null when it "
        "states none."
    ),
]
DeckTestedField = Annotated[
    dt.date | None,
    Field(description="The day Valve tested the game on the Steam Deck; null with no rating."),
]
LanguagesField = Annotated[
    list[LanguageSupport],
    Field(
        description="The languages the storefront lists, in its order, each with whether the "
        "interface, full audio and subtitles are in it; empty when it lists none."
    ),
]
AiContentField = Annotated[
    str | None,
    Field(
        description="The developer's AI content disclosure as the storefront files it "
        '("Pre-generated: ..." or "Live-generated: ..."); null when there is none.'
    ),
]


def language_tags(record: GameRecord, *, audio: bool) -> list[str]:
    """Given a game record, return the tags of its languages that the ``language`` filter
    (``audio`` False: the interface or subtitles are in it) or the ``audio`` filter (True:
    full audio) keeps it for, in the record's order."""
    return [
        lang.code
        for lang in record.languages
        if (lang.audio if audio else lang.interface or lang.subtitles)
    ]
