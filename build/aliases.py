"""The search's alias table: what people type for a game that is not a prefix of its name
(``bg3``, ``gta v``, ``rdr2``, ``ff14``, ``r6``, ``ac valhalla``), built at build time
(docs/API.md#search).

Two sources, one table:

* **from the catalogue**: initials of a well-known game's words (:func:`initials_of`), numbers
  kept whole and written both in digits and in roman numerals, number words as digits
  (``Rainbow Six`` gives ``r6``), a short word written in capitals kept whole (``Bloons TD 6``
  gives ``btd6``) and a compound of two name words split (``Cyberpunk 2077`` gives
  ``cp2077``, ``Fallout 4`` ``fo4``, ``Overwatch 2`` ``ow2``). Initials are taken of the
  name's first words (``The Witcher 3: Wild Hunt`` gives ``tw3``, ``FINAL FANTASY XIV
  Online`` ``ff14``), of its last words (``Halo: The Master Chief Collection`` gives ``mcc``,
  ``The Elder Scrolls Online`` ``eso``), of any run of words ending in a number (``Clair
  Obscur: Expedition 33`` gives ``e33``), and of the first words followed by the rest spelled
  out (``Assassin's Creed Valhalla`` gives ``acvalhalla``, what ``ac valhalla`` looks up).
  Well known means at least :data:`MIN_ALIAS_REVIEWS` reviews; or, for a game newer than the
  review dump (its count a lower bound, "1,000+"), critics' acclaim
  (:data:`ACCLAIMED_METASCORE`: Clair Obscur, 91) or being a numbered sequel of a well-known
  game (``Slay the Spire 2`` gives ``sts2``). A key from a name's first words beats one from
  other words; among those, the most reviewed game owns it; keys that are a word of some
  game's name (``war``) or all digits are left out, so that a plain word never jumps to one
  game;
* **curated** (:data:`CURATED`): the few that initials get wrong or miss, by appid.

A key is the query folded as search folds it (:func:`bangscore.contract.search.fold`:
lowercase, accents and punctuation dropped, roman numeral words as digits) with the spaces
removed, so ``GTA V``, ``gta 5`` and ``GTA5`` all look up ``gta5``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Final

from bangscore.contract.search_words import (
    NUMBER_WORDS,
    ROMAN_NUMERALS,
    alias_key,
    fold,
    name_words,
)

# Games need this many storefront reviews before their initials become an alias: people
# abbreviate the games everyone knows, and a rare game must not capture common initials.
MIN_ALIAS_REVIEWS: Final = 5_000
# A game whose review count is only a lower bound is well known with a Metacritic score of at
# least this (34 games of the 2026 data: Hollow Knight: Silksong, Kingdom Come:
# Deliverance II, Blue Prince, DOOM: The Dark Ages...; any score would admit 248).
ACCLAIMED_METASCORE: Final = 85
# Two letters: `hk` for Hollow Knight. A pair that is a word of some name (`go`) is left out.
MIN_KEY_LENGTH: Final = 2
# Keys from other than a name's first words need 3 characters or a number (`r6`): two letters
# from the middle of a name (`cc` of "Master Chief Collection") are too easily meant otherwise.
MIN_INNER_KEY_LENGTH: Final = 3
# Only a name's first words are abbreviated (editions and bundles trail on at length).
MAX_NAME_WORDS: Final = 8
# Spelled-out endings: `ac` + at most this many words (`acblackflag`).
MAX_SPELLED_WORDS: Final = 3
# A key that is a word of this many names is a plain word, never an abbreviation.
COMMON_WORD_NAMES: Final = 3
# Each half of a split compound (`fall`+`out`) is a name word of at least this many letters.
MIN_COMPOUND_PART: Final = 3
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
    # Issue 56: what players type that no rule derives from the 2026 names.
    "hitman 3": 1659040,  # HITMAN World of Assassination, HITMAN 3 renamed
    "ow2": 2357570,  # Overwatch®, Overwatch 2 renamed
    "overwatch 2": 2357570,
    "黑神话": 2358720,  # Black Myth: Wukong's Chinese name (黑神话：悟空)
    "gmod": 4000,  # Garry's Mod
    "re8": 1196590,  # Resident Evil Village, the eighth
    "sdv": 413150,  # Stardew Valley
    "skyrim se": 489830,  # The Elder Scrolls V: Skyrim Special Edition
    "kotor": 32370,  # STAR WARS™ Knights of the Old Republic™
    "kotor 2": 208580,  # ... II: The Sith Lords™
    "tlou2": 2531310,  # The Last of Us™ Part II Remastered (1,000+ reviews: too new to count)
}


key_of = alias_key
Splitter = Callable[[str], tuple[str, str] | None]


def compound_splitter(names_with: Mapping[str, int]) -> Splitter:
    """Given how many names hold each word, return a function that splits a word into two
    words each held by :data:`COMMON_WORD_NAMES` names or more and of at least
    :data:`MIN_COMPOUND_PART` letters (``fallout`` into ``fall`` and ``out``; not
    ``survive``: ``vive`` is a word of one name), or returns None."""

    def common(part: str) -> bool:
        return len(part) >= MIN_COMPOUND_PART and names_with.get(part, 0) >= COMMON_WORD_NAMES

    def split(word: str) -> tuple[str, str] | None:
        if not word.isalpha():
            return None
        for at in range(MIN_COMPOUND_PART, len(word) - MIN_COMPOUND_PART + 1):
            if common(word[:at]) and common(word[at:]):
                return word[:at], word[at:]
        return None

    return split


def _tokens(part: str) -> list[tuple[str, bool]]:
    """Given a name or part of one, return its folded words, each with whether it was written
    as a short word in capitals among lowercase ones (``TD`` in ``Bloons TD 6``)."""
    shouting = part.upper() == part  # a name all in capitals: no word stands out
    out: list[tuple[str, bool]] = []
    for chunk in part.split():
        words = fold(chunk).split()
        bare = chunk.strip(".,:;!?()[]")
        capital = not shouting and len(words) == 1 and 2 <= len(bare) <= 3 and bare.isupper()
        out.extend((w, capital and bare.isalpha()) for w in words)
    return out


def _number(word: str) -> str | None:
    """Given a folded word, return it as digits when it is a number (``6``, ``six``)."""
    return word if word.isdigit() else NUMBER_WORDS.get(word)


def _forms(tokens: list[tuple[str, bool]], split: Splitter) -> list[str]:
    """Given folded words with their capitals flag, return their initials: plain, then with
    capitals kept and compounds split (when that differs), each then in roman numerals when
    it holds a number up to 20 ([] for a word not in ASCII letters and digits)."""
    if not all(w.isascii() and w.isalnum() for w, _ in tokens):
        return []
    plain: list[str] = []
    rich: list[str] = []
    for word, capital in tokens:
        number = _number(word)
        halves = None if number or capital else split(word)
        plain.append(word if word.isdigit() else word[0])  # `fnaf`: Five Nights at Freddy's
        if number:
            rich.append(number)
        elif capital:
            rich.append(word)
        else:
            rich.append(halves[0][0] + halves[1][0] if halves else word[0])
    forms: list[str] = []
    for letters in (plain, rich):
        for form in (letters, _roman(letters)):
            key = "".join(form) if form else ""
            if key and key not in forms:
                forms.append(key)
    return forms


def _roman(letters: list[str]) -> list[str]:
    """Given initials, return them with numbers as roman numerals ([] when none is a number
    from 1 to 20)."""
    numbers = [x for x in letters if x.isdigit()]
    if not numbers or not all(0 < int(x) < len(ROMAN_NUMERALS) for x in numbers):
        return []
    return [ROMAN_NUMERALS[int(x)] if x.isdigit() else x for x in letters]


def _parts(name: str) -> list[tuple[bool, str]]:
    """Given a name, return what players abbreviate, each with whether it is the name itself:
    the whole name and the name without a leading ``the`` (True); the name after a two-word
    possessive brand (``Tom Clancy's``, ``Sid Meier's``) and the subtitle, also without a
    leading ``the`` (False)."""
    head, *rest = (p.strip() for p in _SUBTITLE.split(name, maxsplit=1))
    parts = [(True, " ".join([head, *rest]))]
    words = head.split()
    if len(words) > 3 and words[1].endswith(("'s", "’s")):
        parts.append((False, " ".join(words[2:] + rest)))
    if rest:
        parts.append((False, rest[0]))
    for whole, part in list(parts):
        first, _, after = part.partition(" ")
        if first.lower() == "the" and after:
            parts.append((whole, after))
    return parts


def _keys(name: str, split: Splitter) -> list[tuple[int, str]]:
    """Given a name, return its alias keys, each with its rank: 0 for the initials of the
    whole name or of the part before its subtitle (``l4d`` is Left 4 Dead's before Left 4
    Dead 2's; ``tboi`` The Binding of Isaac: Rebirth's as much as The Binding of Isaac's), 1
    for those of its other first words, 2 for the rest (a key claimed at a lower rank beats
    one claimed at a higher)."""
    head_words = len(_tokens(_SUBTITLE.split(name, maxsplit=1)[0]))
    out: list[tuple[int, str]] = []
    for whole, part in _parts(name):
        tokens = _tokens(part)[:MAX_NAME_WORDS]
        for j in range(2, len(tokens) + 1):
            rank = (0 if j in (len(tokens), head_words) else 1) if whole else 2
            for key in _forms(tokens[:j], split):
                numbered = any(c.isdigit() for c in key)
                shortest = MIN_KEY_LENGTH if rank < 2 or numbered else MIN_INNER_KEY_LENGTH
                if len(key) >= shortest:
                    out.append((rank, key))
    out.extend((2, key) for key in _spelled(name, split))
    best: dict[str, int] = {}
    for rank, key in sorted(out):
        best.setdefault(key, rank)
    return [(rank, key) for key, rank in best.items()]


def _spelled(name: str, split: Splitter) -> list[str]:
    """Given a name, return the initials of its first 2 or 3 words followed by the next words
    spelled out (1 to :data:`MAX_SPELLED_WORDS`, with and without their numbers):
    ``acvalhalla``, ``gtasanandreas``, ``ff7remake``, ``acblackflag``."""
    tokens = _tokens(" ".join(_SUBTITLE.split(name)))[:MAX_NAME_WORDS]
    words = [w for w, _ in tokens]
    keys: list[str] = []
    for head in (2, 3):
        initials = _forms(tokens[:head], split)[:1] if len(words) > head else []
        rest = words[head : head + MAX_SPELLED_WORDS]
        if not initials or not all(w.isascii() and w.isalnum() for w in rest):
            continue
        for end in range(1, len(rest) + 1):
            for spelled in ("".join(rest[:end]), "".join(w for w in rest[:end] if not w.isdigit())):
                if spelled and initials[0] + spelled not in keys:
                    keys.append(initials[0] + spelled)
    return keys


def initials_of(name: str, vocabulary: Iterable[str] = ()) -> list[str]:
    """Given a game name and the words of every name, once per name holding it (for
    compounds), return its alias keys (see the module's docstring), by rank, without
    repeats."""
    return [key for _, key in _keys(name, compound_splitter(Counter(vocabulary)))]


def _is_word(key: str, reviews: int, names_with: Counter[str], reach: Mapping[str, int]) -> bool:
    """Given a key, its claimant's review count, how many names hold each word and the review
    count of the most reviewed game holding it, return whether the key is a plain word to
    leave alone: a word of :data:`COMMON_WORD_NAMES` names or more (``war``), or of a game at
    least as reviewed (``lop`` is a word of Lop Nor Zombie VR, 57 reviews: Lies of P's)."""
    return names_with[key] >= COMMON_WORD_NAMES or (
        key in names_with and reach.get(key, 0) >= reviews
    )


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
    (folded), return ``{key: appid}``: the keys of :func:`initials_of` for games with at
    least :data:`MIN_ALIAS_REVIEWS` reviews, for numbered sequels of such games and for the
    ``acclaimed`` appids (see :data:`ACCLAIMED_METASCORE`); a key from a name's first words
    beats others, then the most reviewed game wins; keys that are a name word or all digits
    are left out; then :data:`CURATED` over them (skipping games not given)."""
    names_with = Counter(vocabulary)
    split = compound_splitter(names_with)
    praised = frozenset(acclaimed)
    listed = list(games)
    known = {fold(name) for _, name, reviews in listed if reviews >= MIN_ALIAS_REVIEWS}
    # The most reviewed game holding each word: a key that is a word of a game at least as
    # reviewed as its claimant is that word's, not an abbreviation.
    reach: dict[str, int] = {}
    for _, name, reviews in listed:
        for word in name_words(name):
            reach[word] = max(reach.get(word, 0), reviews)
    rated: dict[int, int] = {}
    owner: dict[str, tuple[int, int, int]] = {}  # key -> (rank, -review_count, appid)
    for appid, name, reviews in listed:
        rated[appid] = reviews
        sequel = _SEQUEL.match(fold(name))
        if (
            reviews < MIN_ALIAS_REVIEWS
            and appid not in praised
            and not (sequel and sequel[1] in known)
        ):
            continue
        for rank, key in _keys(name, split):
            if key.isdigit() or _is_word(key, reviews, names_with, reach):
                continue
            claim = (rank, -reviews, appid)
            best = owner.get(key)
            if best is None or claim < best:
                owner[key] = claim
    out = {key: appid for key, (_, _, appid) in owner.items()}
    out.update(curated_for(rated))
    return dict(sorted(out.items()))
