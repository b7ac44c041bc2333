"""The words of a game's name and of a query, as name search matches them
(docs/API.md#search): case, accents, marks, apostrophes and ™ ® © folded away, roman
numerals II-XX as digits (:func:`fold`), hyphenated words joined too, number words one to
twenty and a last word ``I`` as digits too (:func:`name_words`); the alias table's keys
(:func:`alias_key`); the words of a query that are matched (:func:`query_words`) and the
typos each may hold (:func:`max_edits`). The index and its queries are
:mod:`bangscore.contract.search`'s.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

DROPPED_CHARS = dict.fromkeys(map(ord, "™®©℠'’`´"), None)
_SPLIT = re.compile(r"[^\w]+|_")
# Roman numerals by value (index 0 is no numeral): search folds II..XX into digits, and the
# builder's alias table spells a sequel's digit back as a numeral.
ROMAN_NUMERALS: tuple[str, ...] = (
    *("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"),
    *("xi", "xii", "xiii", "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx"),
)
_ROMAN = {numeral: str(value) for value, numeral in enumerate(ROMAN_NUMERALS) if value >= 2}
# Number words as digits: a name's "Two" also matches `2` (`it takes 2`), and the alias table
# abbreviates "Rainbow Six" as `r6`.
NUMBER_WORDS: dict[str, str] = {
    word: str(value)
    for value, word in enumerate(
        (
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
            *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"),
            *("seventeen", "eighteen", "nineteen", "twenty"),
        )
    )
    if value >= 1
}


def fold(text: str) -> str:
    """Given text, return it lowercased, without accents, marks or apostrophes, spaces folded."""
    text = text.translate(DROPPED_CHARS)
    # ASCII is its own NFKD form and has no marks: most names skip both per-character passes
    # (they were three quarters of the time to index 30,000 names).
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(_ROMAN.get(w, w) for w in _SPLIT.sub(" ", text.casefold()).split())


def name_words(name: str) -> list[str]:
    """Given a game name, return its searchable words, with joined forms of hyphenated words,
    number words as digits too and a last word ``i`` as ``1`` too.

    ``Half-Life 2`` gives ``["half", "life", "2", "halflife"]`` so that ``halflife`` matches
    too; ``It Takes Two`` gives ``["it", "takes", "two", "2"]`` (``it takes 2``); ``Schedule I``
    gives ``["schedule", "i", "1"]`` (a lone ``i`` elsewhere is a word, not a numeral).
    """
    words = fold(name).split()
    extra = []
    for chunk in unicodedata.normalize("NFKD", name.translate(DROPPED_CHARS)).split():
        parts = fold(chunk).split()
        if len(parts) > 1:
            extra.append("".join(parts))
    extra.extend(NUMBER_WORDS[w] for w in words if w in NUMBER_WORDS)
    if len(words) > 1 and words[-1] == "i":
        extra.append("1")
    return words + [w for w in dict.fromkeys(extra) if w not in words]


def alias_key(text: str) -> str:
    """Given a query or an alias, return its alias-table key: folded, spaces removed."""
    return "".join(fold(text).split())


MAX_QUERY_WORDS: Final = 8


def max_edits(word: str) -> int:
    """Given a query word, return the edits the typo-tolerant pass allows (0, 1 or 2)."""
    return 0 if len(word) < 4 else 1 if len(word) < 8 else 2


def query_words(folded: str) -> list[str]:
    """Given a folded query, return the words that are matched: distinct, without a word that
    is a prefix of another query word (every name matching the longer matches it), longest
    first, at most :data:`MAX_QUERY_WORDS`."""
    distinct = sorted(set(folded.split()), key=lambda w: (-len(w), w))
    kept: list[str] = []
    for word in distinct:
        if not any(k.startswith(word) for k in kept):
            kept.append(word)
    return kept[:MAX_QUERY_WORDS]
