"""The search's alias table: what people type for a game that is not a prefix of its name
(``bg3``, ``gta v``, ``rdr2``, ``cs2``), built at build time (docs/API.md#search).

Two sources, one table:

* **from the catalogue**: the initials of a well-known game's name, its numbers kept whole and
  written both in digits and in roman numerals (``Baldur's Gate 3`` gives ``bg3`` and
  ``bgiii``; ``Grand Theft Auto V`` gives ``gta5`` and ``gtav``; ``Hollow Knight`` gives
  ``hk``), for the whole name, for the part before a subtitle (``The Witcher 3: Wild Hunt``
  gives ``tw3``) and for a subtitle with a number (``Clair Obscur: Expedition 33`` gives
  ``e33``). Well known means at least :data:`MIN_ALIAS_REVIEWS` reviews; or, for a game newer
  than the review dump (its count a lower bound, "1,000+"), critics' acclaim
  (:data:`ACCLAIMED_METASCORE`: Clair Obscur, 91) or being a numbered sequel of a well-known
  game (``Slay the Spire 2`` gives ``sts2``). When several
  games share initials, the most reviewed one owns them; initials that are a word of some
  game's name (``war``) are left out, so that a plain word never jumps to one game;
* **curated** (:data:`CURATED`): the few that initials get wrong or miss, by appid.

A key is the query folded as search folds it (:func:`bangscore.contract.search.fold`:
lowercase, accents and punctuation dropped, roman numeral words as digits) with the spaces
removed, so ``GTA V``, ``gta 5`` and ``GTA5`` all look up ``gta5``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from bangscore.contract.search import ROMAN_NUMERALS, alias_key, fold

# Games need this many storefront reviews before their initials become an alias: people
# abbreviate the games everyone knows, and a rare game must not capture common initials.
MIN_ALIAS_REVIEWS: Final = 5_000
# A game whose review count is only a lower bound is well known with a Metacritic score of at
# least this (34 games of the 2026 data: Hollow Knight: Silksong, Kingdom Come:
# Deliverance II, Blue Prince, DOOM: The Dark Ages...; any score would admit 248).
ACCLAIMED_METASCORE: Final = 85
# Two letters: `hk` for Hollow Knight. A pair that is a word of some name (`go`) is left out.
MIN_KEY_LENGTH: Final = 2
_SUBTITLE = re.compile(r"\s*(?::|\s-\s|\s–\s|\s—\s)")
_SEQUEL = re.compile(r"^(.*\S)\s+\d{1,2}$")

# What people type -> the storefront appid it means. Checked against the catalogue by the
# tests; an entry whose game is not rated is skipped at build time.
CURATED: Final[Mapping[str, int]] = {
    # Grand Theft Auto V Enhanced, not a mod or a clone: the 2015 listing (271590) is
    # superseded by it (no 2026 source sees the old one).
    "gta v": 3240220,
    "gta 5": 3240220,
    "gtav": 3240220,
    "gta": 3240220,
    "bg3": 1086940,  # Baldur's Gate 3
    "rdr2": 1174180,  # Red Dead Redemption 2
    "rdr 2": 1174180,
    "cs2": 730,  # Counter-Strike 2, not CS2D
    "csgo": 730,
    "kcd2": 1771300,  # Kingdom Come: Deliverance II (known, not rated in the 2026 data)
    "kcd": 379430,  # Kingdom Come: Deliverance
    "pubg": 578080,  # PUBG: BATTLEGROUNDS
    "tw3": 292030,  # The Witcher 3: Wild Hunt
    "witcher 3": 292030,
    "ds3": 374320,  # DARK SOULS III
    "mhw": 582010,  # Monster Hunter: World
    "poe": 238960,  # Path of Exile
    "ff7": 1462040,  # FINAL FANTASY VII REMAKE INTERGRADE
    "hl2": 220,  # Half-Life 2
    "tf2": 440,  # Team Fortress 2
    "l4d2": 550,  # Left 4 Dead 2
}


key_of = alias_key


def _initials(words: list[str]) -> list[str]:
    """Given folded words, return their initials, numbers whole in digits then in roman
    numerals ([] for fewer than 2 words, a key under 3 characters, or a word not in ASCII
    letters and digits, which people do not abbreviate this way)."""
    if len(words) < 2 or not all(w.isascii() and w.isalnum() for w in words):
        return []
    digits = "".join(w if w.isdigit() else w[0] for w in words)
    if len(digits) < MIN_KEY_LENGTH:
        return []
    forms = [digits]
    if any(w.isdigit() for w in words) and all(
        not w.isdigit() or 0 < int(w) < len(ROMAN_NUMERALS) for w in words
    ):
        forms.append("".join(ROMAN_NUMERALS[int(w)] if w.isdigit() else w[0] for w in words))
    return forms


def initials_of(name: str) -> list[str]:
    """Given a game name, return its alias keys: the initials of the whole name, of the part
    before its subtitle and of a subtitle holding a number, in digits and in roman numerals,
    without repeats."""
    keys: list[str] = []
    head, *rest = _SUBTITLE.split(name, maxsplit=1)
    parts = [name, head]
    if rest and any(w.isdigit() for w in fold(rest[0]).split()):
        parts.append(rest[0])  # "Expedition 33": what players call Clair Obscur
    for part in parts:
        for key in _initials(fold(part).split()):
            if key not in keys:
                keys.append(key)
    return keys


def curated_for(appids: Iterable[int]) -> dict[str, int]:
    """Given the appids a search index holds, return the curated ``{key: appid}`` among them
    (so the index of known apps that are not rated resolves ``kcd2`` too)."""
    held = frozenset(appids)
    return {key_of(alias): appid for alias, appid in CURATED.items() if appid in held}


def build_aliases(
    games: Iterable[tuple[int, str, int]],
    vocabulary: Iterable[str],
    acclaimed: Iterable[int] = (),
) -> dict[str, int]:
    """Given (appid, name, review_count) of every rated game and the words of every name
    (folded), return ``{key: appid}``: initials of games with at least
    :data:`MIN_ALIAS_REVIEWS` reviews and of numbered sequels of such games (the most
    reviewed wins a shared key; keys that are a name word are left out) and of the
    ``acclaimed`` appids (see :data:`ACCLAIMED_METASCORE`), then :data:`CURATED` over them
    (skipping games not given)."""
    words = frozenset(vocabulary)
    praised = frozenset(acclaimed)
    listed = list(games)
    known = {fold(name) for _, name, reviews in listed if reviews >= MIN_ALIAS_REVIEWS}
    rated: dict[int, int] = {}
    owner: dict[str, tuple[int, int]] = {}  # key -> (review_count, appid)
    for appid, name, reviews in listed:
        rated[appid] = reviews
        sequel = _SEQUEL.match(fold(name))
        if (
            reviews < MIN_ALIAS_REVIEWS
            and appid not in praised
            and not (sequel and sequel[1] in known)
        ):
            continue
        for key in initials_of(name):
            if key in words:
                continue
            best = owner.get(key)
            if best is None or (reviews, -appid) > (best[0], -best[1]):
                owner[key] = (reviews, appid)
    out = {key: appid for key, (_, appid) in owner.items()}
    out.update(curated_for(rated))
    return dict(sorted(out.items()))
