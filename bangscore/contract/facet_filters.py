"""The platform facets' list filters (docs/API.md#platform-facets, docs/API.md#list-games):
``steam_deck``, ``controller``, ``language``, ``audio`` and ``min_reviews``, declared as every
list filter is (:class:`~bangscore.contract.list_filter.ListFilter`) and listed in
:data:`bangscore.contract.filters.LIST_FILTERS`, so the parser, the OpenAPI parameters, the
browse form, the client's keywords and the selection follow.

Each keeps games by the compact index's facet columns (:mod:`bangscore.contract.compact`:
``steam_deck`` and ``controller`` codes, ``reviews``, the ``language`` and ``audio``
postings); none is precomputed by the builder (docs/API.md#list-games says why): a composed
list over them costs one comparison or one posting read per filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from bangscore.contract.facets import CONTROLLER_CODES, DECK_CODES
from bangscore.contract.limits import MAX_MIN_REVIEWS
from bangscore.contract.list_filter import (
    FilterColumns,
    FormField,
    ListFilter,
    bounded_integer,
    client_integer,
    client_list,
    sorted_list,
    split,
)
from bangscore.contract.patterns import WS, any_case
from bangscore.errors import FilterValueRefused
from bangscore.scoring.languages import LANGUAGE_LABELS, LANGUAGE_TAGS

if TYPE_CHECKING:
    from bangscore.contract.list_filter import Mask

DECK_STATUSES: Final = ("verified", "playable", "unsupported")
CONTROLLER_LEVELS: Final = ("full", "partial")
_BY_LOWER: Final = {tag.lower(): tag for tag in LANGUAGE_TAGS}
# The browse form's choices: every tag, by its English name.
_BY_LABEL: Final = tuple(sorted(LANGUAGE_TAGS, key=lambda tag: LANGUAGE_LABELS[tag]))
_LABELS: Final = tuple(f"{LANGUAGE_LABELS[tag]} ({tag})" for tag in _BY_LABEL)


def _words_pattern(words: Sequence[str]) -> str:
    # A comma list of the words, any case, whitespace around each.
    one = "(" + "|".join(any_case(w) for w in words) + ")"
    return f"^{WS}{one}{WS}(,{WS}{one}{WS})*$"


def _parse_deck(values: Sequence[str]) -> frozenset[str]:
    return _any_of(values, DECK_STATUSES)


def _parse_controller(values: Sequence[str]) -> frozenset[str]:
    return _any_of(values, CONTROLLER_LEVELS)


def _any_of(values: Sequence[str], words: Sequence[str]) -> frozenset[str]:
    parts = split(values)
    # ASCII first: str.lower() maps a few other letters onto ASCII ones (the Kelvin sign).
    if any(not p.isascii() or p.lower() not in words for p in parts):
        raise FilterValueRefused("comma-separated, any of: " + ", ".join(words))
    return frozenset(p.lower() for p in parts)


def _parse_language(values: Sequence[str]) -> str:
    word = values[0].strip()
    # ASCII first: str.lower() maps a few other letters onto ASCII ones (the Kelvin sign).
    tag = _BY_LOWER.get(word.lower()) if word.isascii() else None
    if tag is None:
        raise FilterValueRefused(
            "one language tag (ISO 639-1 such as de, or zh-Hans, zh-Hant, pt-BR, es-419...): "
            + ", ".join(LANGUAGE_TAGS)
        )
    return tag


def _parse_min_reviews(values: Sequence[str]) -> int:
    count = bounded_integer(values[0], 0, MAX_MIN_REVIEWS)
    if count is None:
        raise FilterValueRefused(f"a whole number of reviews from 0 to {MAX_MIN_REVIEWS:,}")
    return count


def _coded_mask(
    column: str, codes: dict[str, int], index: FilterColumns, words: frozenset[str]
) -> Mask:
    import numpy as np  # here: the client imports this module and needs no numpy

    # One table lookup per game, as genres are (np.isin sorts: three times slower here).
    wanted = np.zeros(256, dtype=bool)
    wanted[[codes[w] for w in words]] = True
    return wanted[index.columns[column]]


def _deck_mask(index: FilterColumns, words: frozenset[str]) -> Mask:
    return _coded_mask("steam_deck", DECK_CODES, index, words)


def _controller_mask(index: FilterColumns, words: frozenset[str]) -> Mask:
    return _coded_mask("controller", CONTROLLER_CODES, index, words)


def _posting_mask(name: str, index: FilterColumns, tag: str) -> Mask:
    import numpy as np

    mask = np.zeros(index.columns["adult"].size, dtype=bool)
    posting = index.facet_postings[name].get(tag)  # a tag no game has: nothing kept
    if posting is not None:
        mask[posting] = True
    return mask


_LANGUAGE_PATTERN = f"^{WS}(" + "|".join(any_case(t) for t in LANGUAGE_TAGS) + f"){WS}$"
_LANGUAGE_ACCEPTS = "One language tag, case-insensitive: ISO 639-1 (de, ja) or BCP 47 (zh-Hans)"


def _language_filter(name: str, what: str, label: str) -> ListFilter[str]:
    # language and audio: one tag, told apart by the postings they read.
    return ListFilter(
        name,
        parse=_parse_language,
        text=str,
        mask=lambda index, tag: _posting_mask(name, index, tag),
        wire_type="string",
        description=f"{_LANGUAGE_ACCEPTS}: keep games {what}",
        schema={"type": "string", "pattern": _LANGUAGE_PATTERN, "examples": ["de"]},
        form=FormField(label, "select", choices=_BY_LABEL, labels=_LABELS),
        client=lambda tag: tag or None,
    )


STEAM_DECK: ListFilter[frozenset[str]] = ListFilter(
    "steam_deck",
    parse=_parse_deck,
    text=sorted_list,
    mask=_deck_mask,
    wire_type="string",
    description="Comma-separated Steam Deck ratings, any of: verified, playable, unsupported "
    "(case-insensitive, OR); a game the storefront has not rated never matches",
    schema={"type": "string", "pattern": _words_pattern(DECK_STATUSES)},
    form=FormField("Steam Deck (any of)", "checkboxes", choices=DECK_STATUSES),
    client=client_list,
    merged=True,
)
CONTROLLER: ListFilter[frozenset[str]] = ListFilter(
    "controller",
    parse=_parse_controller,
    text=sorted_list,
    mask=_controller_mask,
    wire_type="string",
    description="Comma-separated controller support, any of: full, partial (case-insensitive, "
    "OR); a game the storefront states no support for never matches",
    schema={"type": "string", "pattern": _words_pattern(CONTROLLER_LEVELS)},
    form=FormField("Controller (any of)", "checkboxes", choices=CONTROLLER_LEVELS),
    client=client_list,
    merged=True,
)
LANGUAGE = _language_filter(
    "language", "whose interface or subtitles are in it", "Interface or subtitles in"
)
AUDIO = _language_filter("audio", "with full audio in it", "Full audio in")
MIN_REVIEWS: ListFilter[int] = ListFilter(
    "min_reviews",
    parse=_parse_min_reviews,
    text=str,
    mask=lambda index, count: index.columns["reviews"] >= count,
    wire_type="integer",
    description=f"Keep games with at least this many storefront reviews (review_count), from 0 "
    f"to {MAX_MIN_REVIEWS:,}",
    schema={"type": "integer", "minimum": 0, "maximum": MAX_MIN_REVIEWS},
    form=FormField("At least (reviews)", "number", min=0, max=MAX_MIN_REVIEWS, inputmode="numeric"),
    client=client_integer,
)

FACET_FILTERS: tuple[ListFilter[Any], ...] = (
    STEAM_DECK,
    CONTROLLER,
    LANGUAGE,
    AUDIO,
    MIN_REVIEWS,
)
"""The facets' filters, in the order they follow the others in LIST_FILTERS."""
