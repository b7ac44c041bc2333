"""Name normalisation and *sound* title matching across sources that share no id.

Some dumps (the IsThereAnyDeal price history, HLTB rows without a Steam appid) only carry a
game's title. Joining them by title is only safe when the match cannot be confused with another
game, so a match here is *sound* when:

1. the normalised titles are equal (see :func:`normalise_name`),
2. the normalised title occurs exactly once on each side (duplicates on either side, e.g. two
   storefront apps both called "Tetris", are dropped rather than guessed), and
3. optionally, when both sides know a release year, the years agree within a tolerance
   (1 year: a storefront release often lags or leads another source's date by a few weeks).
   Callers choose per source: a source whose dates are noisy gains nothing from the check.

Nothing here does I/O; the functions are pure and cheap enough for 100k names.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

L = TypeVar("L", bound=Hashable)
R = TypeVar("R", bound=Hashable)

# Characters an upstream name must not bring into pages, logs or mail: the C0 and C1 controls
# (NUL, ESC, BEL...) and the bidirectional overrides, embeddings and isolates (U+202E can
# show a name backwards). Removed at ingest (issue 36).
_UNSAFE_IN_NAMES = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile(r"\s+")


def display_name(text: str) -> str:
    """Given a name as an upstream sent it, return it fit to show: control and bidirectional
    formatting characters removed, runs of white space made one space, trimmed."""
    # Most names are already fit (a million a build): a printable str holds no control or
    # formatting character (Unicode's Cc and Cf are not printable) and no white space but
    # the ASCII space, so it is unchanged unless two spaces meet or one ends it.
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return _SPACES.sub(" ", _UNSAFE_IN_NAMES.sub("", text)).strip()


def display_cell(value: object) -> str | None:
    """Given a name cell as a dump or a source holds it (a game's, a developer's, a
    publisher's), return it fit to show (:func:`display_name`), or None if it is not a string
    or that leaves it empty."""
    return display_name(value) or None if isinstance(value, str) else None


# Marks that titles carry inconsistently between stores; they never tell two games apart.
_DROPPED_MARKS = str.maketrans("", "", "™®©℠'’`´")
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_AMPERSAND = re.compile(r"\s*&\s*")


@functools.lru_cache(maxsize=1 << 18)
def normalise_name(name: str) -> str:
    """Given a game title, return its matching key: lower-case words separated by one space.

    Accents are removed (``Pokémon`` -> ``pokemon``), ``™ ® © ℠`` and apostrophes are dropped
    (``Garry's Mod`` -> ``garrys mod``), ``&`` reads as ``and``, and every other run of
    punctuation or whitespace becomes one space. Letters of other scripts are kept as they are,
    so CJK titles still have a non-empty key. Returns ``""`` for a title with no letters or digits.
    """
    # Marks go before NFKD, which would otherwise spell ™ as "TM".
    text = name.translate(_DROPPED_MARKS)
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    text = text.casefold()
    text = _AMPERSAND.sub(" and ", text)
    return _NON_WORD.sub(" ", text).strip()


def years_agree(a: int | None, b: int | None, tolerance: int | None = 1) -> bool:
    """Given two release years (None when unknown), return False only if both are known and
    differ by more than ``tolerance`` years; a None tolerance accepts any years."""
    return tolerance is None or a is None or b is None or abs(a - b) <= tolerance


@dataclass
class MatchResult(Generic[L, R]):
    """Result of :func:`sound_matches`: the matches and why other candidates were refused.

    ``matches`` maps a left key to its right key. ``ambiguous_left`` / ``ambiguous_right``
    count left items whose title is shared on that side, ``unmatched`` left items with no equal
    title on the right, and ``year_mismatch`` equal-title pairs refused for their years.
    """

    matches: dict[L, R] = field(default_factory=dict)
    ambiguous_left: int = 0
    ambiguous_right: int = 0
    unmatched: int = 0
    year_mismatch: int = 0


def sound_matches(
    left: Mapping[L, tuple[str, int | None]],
    right: Mapping[R, tuple[str, int | None]],
    *,
    year_tolerance: int | None = 1,
    require_years: bool = False,
) -> MatchResult[L, R]:
    """Given two mappings ``key -> (title, release year or None)``, return the sound matches.

    A left key matches a right key when their normalised titles are equal and unique on both
    sides and :func:`years_agree` within ``year_tolerance`` (None: years are not compared).
    With ``require_years`` both years
    must also be known (used where a title alone is too weak, e.g. HLTB's cross-platform list).
    """
    left_norm = {key: normalise_name(title) for key, (title, _) in left.items()}
    right_norm = {key: normalise_name(title) for key, (title, _) in right.items()}
    left_count = Counter(left_norm.values())
    right_count = Counter(right_norm.values())
    right_index = {norm: key for key, norm in right_norm.items() if right_count[norm] == 1}
    result: MatchResult[L, R] = MatchResult()
    for key, (_, year) in left.items():
        norm = left_norm[key]
        if not norm or left_count[norm] > 1:
            result.ambiguous_left += 1
            continue
        right_key = right_index.get(norm)
        if right_key is None:
            if right_count[norm] > 1:
                result.ambiguous_right += 1
            else:
                result.unmatched += 1
            continue
        right_year = right[right_key][1]
        known = year is not None and right_year is not None
        if not years_agree(year, right_year, year_tolerance) or (require_years and not known):
            result.year_mismatch += 1
            continue
        result.matches[key] = right_key
    return result
