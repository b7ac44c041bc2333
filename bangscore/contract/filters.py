"""The list filters (docs/API.md#list-games), each declared once, and which combinations the
builder precomputes (the snapshot's object keys: :mod:`bangscore.contract.objects`).

:data:`LIST_FILTERS` declares every filter of ``GET /api/v1/games`` (a
:class:`~bangscore.contract.list_filter.ListFilter`: parameter, reading, canonical text,
predicate over the compact index, OpenAPI parameter, form field, client keyword). The parser,
the route table, the browse form, the client and the selection all loop over it, so a new
filter is a declaration here (and a row in :class:`ClientFilters`), its row in docs/API.md and,
when it reads a column the compact index does not have yet, that column
(:func:`bangscore.contract.compact.encode_index`; the builder and the shim read every column
by its name).

:class:`Filters` is the canonical, validated form of a list query's filters, shared by the
builder (which writes a page set per precomputed combination) and the shim (which serves
those files or composes any other combination from the compact index).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from bangscore.contract.facet_filters import FACET_FILTERS
from bangscore.contract.limits import MAX_PRICE_USD, MAX_TAG_LENGTH, MAX_TAGS, MAX_YEAR, MIN_YEAR
from bangscore.contract.list_filter import (
    FilterColumns,
    FormField,
    FormState,
    ListFilter,
    bounded_integer,
    client_integer,
    client_list,
    price_cents,
    price_text,
    sorted_list,
    split,
)
from bangscore.contract.patterns import SOLID, WS, any_case
from bangscore.errors import FilterValueRefused
from bangscore.scoring.genres import GENRES

if TYPE_CHECKING:
    from bangscore.contract.list_filter import Mask

T = TypeVar("T")

# -- reading values -----------------------------------------------------------------------------


def _genres(values: Sequence[str]) -> frozenset[str]:
    parts = split(values)
    # ASCII first: str.lower() maps a few other letters onto ASCII ones (the Kelvin sign onto
    # k), which the documented pattern, ASCII letters in either case, refuses.
    if any(not p.isascii() or p.lower() not in GENRES for p in parts):
        raise FilterValueRefused("comma-separated, any of: " + ", ".join(GENRES))
    return frozenset(p.lower() for p in parts)


def _tags(values: Sequence[str]) -> frozenset[str]:
    parts = split(values)
    refusals = []
    if any(not p or len(p) > MAX_TAG_LENGTH for p in parts):
        refusals.append(f"comma-separated tags of 1-{MAX_TAG_LENGTH} characters")
    # Counted as sent, not after merging duplicates, so the documented pattern can state it.
    if len(parts) > MAX_TAGS:
        refusals.append(f"at most {MAX_TAGS} tags")
    if refusals:
        raise FilterValueRefused(*refusals)
    return frozenset(p.lower() for p in parts)


def _year(values: Sequence[str]) -> int:
    year = bounded_integer(values[0], MIN_YEAR, MAX_YEAR)
    if year is None:
        raise FilterValueRefused(f"a year from {MIN_YEAR} to {MAX_YEAR}, such as 2015")
    return year


def _true(values: Sequence[str]) -> bool:
    if not values[0].isascii() or values[0].lower() != "true":
        raise FilterValueRefused("only the value true (in any case)")
    return True


PRICE_ACCEPTS = (
    f"a price in US dollars from 0 to {MAX_PRICE_USD}, at most two decimals, such as 9.99"
)


def _price(values: Sequence[str]) -> int:
    cents = price_cents(values[0])
    if cents is None:
        raise FilterValueRefused(PRICE_ACCEPTS)
    return cents


# -- the games each keeps -----------------------------------------------------------------------


def _genre_mask(index: FilterColumns, genres: frozenset[str]) -> Mask:
    import numpy as np  # here: the client imports this module and needs no numpy

    # Genres are small integer codes: one table lookup per game.
    wanted = np.array([name in genres for name in index.genre_names], dtype=bool)
    return wanted[index.columns["genre"]]


def _tag_mask(index: FilterColumns, tags: frozenset[str]) -> Mask:
    import numpy as np

    count = index.columns["adult"].size
    mask = np.ones(count, dtype=bool)
    for tag in tags:
        tagged = np.zeros(count, dtype=bool)
        posting = index.tag_postings.get(tag)  # an unknown tag: no game has it
        if posting is not None:
            tagged[posting] = True
        mask &= tagged
    return mask


def _up_to_year(index: FilterColumns, year: int) -> Mask:
    years = index.columns["year"]
    return (years <= year) & (years > 0)  # 0: year unknown


# -- how the client sends them ------------------------------------------------------------------


def _client_price(value: float | None) -> str | None:
    return None if value is None else f"{value:.2f}"


# -- the declarations ---------------------------------------------------------------------------

_GENRE = "(" + "|".join(any_case(g) for g in GENRES) + ")"
GENRE_PATTERN = f"^{WS}{_GENRE}{WS}(,{WS}{_GENRE}{WS})*$"
# One tag: 1 to MAX_TAG_LENGTH characters from its first to its last non-space character.
_TAG = f"{WS}{SOLID}([^,]{{0,{MAX_TAG_LENGTH - 2}}}{SOLID})?{WS}"
TAG_PATTERN = f"^{_TAG}(,{_TAG}){{0,{MAX_TAGS - 1}}}$"
ON_SALE_PATTERN = f"^{any_case('true')}$"
# max_price: 0 to MAX_PRICE_USD (1000) dollars, 1 to 4 digits, at most two decimals.
assert MAX_PRICE_USD == 1000, "MAX_PRICE_PATTERN spells 1000 out"
MAX_PRICE_PATTERN = r"^(([0-9]{1,3}|0[0-9]{3})(\.[0-9]{1,2})?|1000(\.0{1,2})?)$"


def _year_bound(
    name: str, what: str, empty_when: str, label: str, mask: Callable[[FilterColumns, int], Mask]
) -> ListFilter[int]:
    # year_from and year_to: a year bound, told apart by what it is and the games it keeps.
    return ListFilter(
        name,
        parse=_year,
        text=str,
        mask=mask,
        wire_type="integer",
        description=f"{what}: a year from {MIN_YEAR} to {MAX_YEAR} ({empty_when}: a 400 "
        "naming both)",
        schema={"type": "integer", "minimum": MIN_YEAR, "maximum": MAX_YEAR},
        # The form offers the catalogue's years; the parser takes any four-digit year.
        form=FormField(label, "number", min=1970, max=2100, inputmode="numeric"),
        client=client_integer,
    )


GENRE: ListFilter[frozenset[str]] = ListFilter(
    "genre",
    parse=_genres,
    text=sorted_list,
    mask=_genre_mask,
    wire_type="string",
    description="Comma-separated genres, any of: " + ", ".join(GENRES) + " (case-insensitive, OR)",
    schema={"type": "string", "pattern": GENRE_PATTERN},
    form=FormField("Genre (any of)", "checkboxes", choices=GENRES),
    client=client_list,
    merged=True,
)
TAG: ListFilter[frozenset[str]] = ListFilter(
    "tag",
    parse=_tags,
    text=sorted_list,
    mask=_tag_mask,
    wire_type="string",
    description="Comma-separated storefront user tags, all required (AND, case-insensitive); "
    f"at most {MAX_TAGS} tags of at most {MAX_TAG_LENGTH} characters",
    schema={"type": "string", "pattern": TAG_PATTERN},
    form=FormField("Tags (all of them)", "text", placeholder="co-op, pixel graphics"),
    client=client_list,
    merged=True,
    form_text=lambda tags: ", ".join(sorted(tags)),
)
YEAR_FROM = _year_bound(
    "year_from",
    "Earliest release year, inclusive",
    "after year_to",
    "Released from (year)",
    lambda index, year: index.columns["year"] >= year,  # 0, an unknown year, is below any
)
YEAR_TO = _year_bound(
    "year_to",
    "Latest release year, inclusive",
    "before year_from",
    "Released to (year)",
    _up_to_year,
)
ON_SALE: ListFilter[bool] = ListFilter(
    "on_sale",
    parse=_true,
    text=lambda _: "true",
    mask=lambda index, _: index.columns["on_sale"],
    wire_type="boolean",
    description="Only the value true (in any case): keep games with discount_percent > 0",
    schema={"type": "string", "pattern": ON_SALE_PATTERN},
    form=FormField("On sale", "checkbox"),
    client=lambda on: "true" if on else None,
)
MAX_PRICE: ListFilter[int] = ListFilter(
    "max_price",
    parse=_price,
    text=price_text,
    mask=lambda index, cents: index.columns["cents"] <= cents,
    wire_type="string",
    description="Keep games whose price_usd is at most this many US dollars, from 0 to "
    f"{MAX_PRICE_USD}, with at most two decimals (9.99; 0 keeps free games)",
    schema={"type": "string", "pattern": MAX_PRICE_PATTERN, "examples": ["9.99"]},
    form=FormField(
        "Price at most (US$)",
        "text",
        inputmode="decimal",
        pattern="[0-9]{1,4}([.][0-9]{1,2})?",
        placeholder="10",
    ),
    client=_client_price,
)
"""The price cap; also a parameter of ``GET /api/v1/search``. Its value is in cents."""

LIST_FILTERS: tuple[ListFilter[Any], ...] = (
    GENRE, TAG, YEAR_FROM, YEAR_TO, ON_SALE, MAX_PRICE, *FACET_FILTERS
)  # fmt: skip
"""Every filter of ``GET /api/v1/games``, in the order the parser reports errors, canonical
links write them and the form shows them."""


class ClientFilters(TypedDict, total=False):
    """The Python client's keyword arguments for the list filters (one per entry of
    :data:`LIST_FILTERS`, same name, checked by ``tests/contract/test_filters.py``), typed for
    its callers' mypy: a list is a string or an iterable of strings, a price is US dollars."""

    genre: str | Iterable[str] | None
    tag: str | Iterable[str] | None
    year_from: int | None
    year_to: int | None
    on_sale: bool
    max_price: float | None
    steam_deck: str | Iterable[str] | None
    controller: str | Iterable[str] | None
    language: str | None
    audio: str | None
    min_reviews: int | None


def crossed_years(chosen: Mapping[str, object]) -> list[tuple[str, str]]:
    """Given each list filter's parsed value by parameter name, return (parameter, reason)
    for both ends of a year range whose start is after its end (a 400 naming both:
    docs/API.md#list-games, issue 55 item 9), else []."""
    first, last = chosen.get(YEAR_FROM.name), chosen.get(YEAR_TO.name)
    if isinstance(first, int) and isinstance(last, int) and first > last:
        return [
            (YEAR_FROM.name, f"{first} is after {YEAR_TO.name} ({last})"),
            (YEAR_TO.name, f"{last} is before {YEAR_FROM.name} ({first})"),
        ]
    return []


def list_filters() -> tuple[ListFilter[Any], ...]:
    """Return :data:`LIST_FILTERS`, read when called (the readers call this, so a test may add
    a filter by replacing the module's tuple)."""
    return LIST_FILTERS


def _unset(value: object) -> bool:
    return value is None or value is False or value == frozenset()


@dataclass(frozen=True, slots=True)
class Filters:
    """Canonical list filters: the filters set (each with its value as ``parse`` reads it: a
    frozenset of lowercase genres or tags, a year, True, a price cap in cents), in
    :data:`LIST_FILTERS` order, and whether adult games are listed.

    ``adult`` is the website's toggle (``adult=true``, docs/API.md#website): the website lists
    adult games only when the visitor turns them on; the API never filters on it and always
    lists them (with their ``adult`` flag), so every API query has ``adult=True``.
    """

    chosen: tuple[tuple[ListFilter[Any], Any], ...] = ()
    adult: bool = True

    def __post_init__(self) -> None:
        # One form per set of filters (table order, unset values left out): equal filters hash
        # alike, so a composed page is cached once.
        order = {id(f): i for i, f in enumerate(list_filters())}
        chosen = sorted(
            ((f, v) for f, v in self.chosen if not _unset(v)), key=lambda c: order[id(c[0])]
        )
        object.__setattr__(self, "chosen", tuple(chosen))

    @classmethod
    def of(cls, *, adult: bool = True, **values: Any) -> Filters:
        """Given values by filter name (``genre=frozenset({"rpg"})``, ``max_price=999``: values
        as the parser gives them) and the adult toggle, return the Filters; TypeError for a
        name no filter has."""
        by_name = {f.name: f for f in list_filters()}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise TypeError(f"no list filter named {', '.join(unknown)}")
        return cls(tuple((by_name[name], value) for name, value in values.items()), adult)

    def get(self, spec: ListFilter[T]) -> T | None:
        """Given a filter, return its value here, or None when it is not set."""
        return next((value for f, value in self.chosen if f is spec), None)

    @property
    def combo_key(self) -> str | None:
        """Return the folder name of this combination if the builder precomputes it, else None.

        Precomputed: no filter (``all``), one genre (``genre-rpg``), ``on_sale``, and one genre
        with on_sale (``genre-rpg+on_sale``), each also without adult games (the website's
        default: ``no_adult``, ``genre-rpg+on_sale+no_adult``).
        """
        genres: frozenset[str] = self.get(GENRE) or frozenset()
        if any(f not in (GENRE, ON_SALE) for f, _ in self.chosen) or len(genres) > 1:
            return None
        parts = [f"genre-{g}" for g in genres] + (["on_sale"] if self.get(ON_SALE) else [])
        parts += [] if self.adult else ["no_adult"]
        return "+".join(parts) or "all"

    def to_query(self) -> dict[str, str]:
        """Return the filters as canonical query parameters (sorted lists, only those set): what
        ``Link`` headers and the website's paging links carry."""
        return {f.name: f.text(value) for f, value in self.chosen}

    def mask(self, index: FilterColumns) -> Mask:
        """Given the catalogue's filter columns, return the boolean mask of the games matching
        every filter (and the adult toggle), in list order: a few vectorised comparisons, tens
        of microseconds over ten thousand games."""
        import numpy as np

        adult = index.columns["adult"]
        mask = np.ones(adult.size, dtype=bool) if self.adult else ~adult
        for spec, value in self.chosen:
            mask &= spec.mask(index, value)
        return mask

    def form(self) -> FormState:
        """Return what the browse form shows for these filters: each filter with its field's
        value, in :data:`LIST_FILTERS` order."""
        return tuple((f, f.form_shown(self.get(f))) for f in list_filters())


def raw_form(values: Mapping[str, Sequence[str]]) -> FormState:
    """Given a query's raw values by name (possibly invalid), return what the browse form shows:
    each filter with its field's value, in :data:`LIST_FILTERS` order."""
    return tuple((f, f.form_raw(values.get(f.name, ()))) for f in list_filters())


def precomputed_combos() -> Iterator[Filters]:
    """Yield every precomputed combination: none, each genre, on_sale, each genre + on_sale;
    each with adult games (the API's lists) and without (the website's default)."""
    for adult in (True, False):
        for on_sale in (False, True):
            yield Filters(((ON_SALE, on_sale),), adult)
            for genre in GENRES:
                yield Filters(((GENRE, frozenset({genre})), (ON_SALE, on_sale)), adult)
