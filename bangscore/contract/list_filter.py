"""What a list filter is: one declaration from which everything that reads the filter is derived.

A :class:`ListFilter` names its query parameter and says how to read its raw values, how to
write its value back in canonical links, which games it keeps (a predicate over the compact
index's columns, :class:`FilterColumns`), how the OpenAPI document states it, how the website's
browse form shows it and how the Python client sends its keyword argument. The declarations are
:data:`bangscore.contract.filters.LIST_FILTERS`; the readers loop over them: the shim's parser
(:func:`bangscore.shim.params.parse_list_query`), the route table
(:func:`bangscore.contract.api.routes`), the browse form (``site/templates/browse.html``), the
client (:func:`bangscore.client_core.list_query`) and the selection
(:meth:`bangscore.contract.filters.Filters.mask`, which the builder and the shim's
:class:`~bangscore.shim.compose.CompactIndex` both call).

Here too are the value readers the declarations share (integers within bounds, prices in cents,
comma lists).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from bangscore.contract.limits import MAX_PRICE_USD

if TYPE_CHECKING:  # the client imports the filters, and needs no numpy
    import numpy as np
    import numpy.typing as npt

    Mask = npt.NDArray[np.bool_]
    Column = npt.NDArray[Any]

T = TypeVar("T")

FormValue = str | bool | frozenset[str]
"""What a form field shows: typed text, whether a checkbox is ticked, or the ticked choices."""

_DIGITS = re.compile(r"[0-9]+")
# A price: dollars with at most two decimals, no sign, no exponent, no spaces.
_PRICE = re.compile(r"([0-9]{1,4})(?:\.([0-9]{1,2}))?")


class FilterColumns(Protocol):
    """The catalogue's filter columns, one entry a game in list order, as the predicates read
    them: the compact index's (:mod:`bangscore.contract.compact`), which the builder selects its
    precomputed lists over (:class:`~bangscore.contract.compact.IndexColumns`) and the shim
    composes every other list from (:class:`~bangscore.shim.compose.CompactIndex`)."""

    @property
    def columns(self) -> Mapping[str, Column]:
        """Every column by its layout name: ``genre`` (a code into ``genre_names``), ``year``
        (0: unknown), ``on_sale``, ``adult``, ``bang_score``, ``cents`` (``price_usd`` in cents),
        ``steam_deck``, ``controller``, ``reviews`` (:mod:`bangscore.contract.compact`'s
        codes) and any column a build adds."""

    @property
    def genre_names(self) -> Sequence[str]:
        """Every genre's name, indexed by its code."""

    @property
    def tag_postings(self) -> Mapping[str, Column]:
        """For each lowercase tag, the positions of the games carrying it, ascending."""

    @property
    def facet_postings(self) -> Mapping[str, Mapping[str, Column]]:
        """For ``language`` (interface or subtitles) and ``audio``, each language tag's games'
        positions, ascending."""


@dataclass(frozen=True, slots=True)
class FormField:
    """How the website's browse form shows a filter: its label and control, and the control's
    HTML attributes, written in this order (those left empty or None are left out).

    ``control``: ``checkboxes`` (one per choice, labelled as genres are: a word's own label, else
    the word capitalised with spaces), ``checkbox`` (the value ``true``, shown beside the
    form's buttons), ``select`` (one of the choices or none, in their order, each shown as its
    entry of ``labels``), or an ``<input>`` of type ``text`` or ``number``.
    """

    label: str
    control: Literal["checkboxes", "checkbox", "select", "text", "number"]
    choices: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None
    inputmode: str = ""
    pattern: str = ""
    placeholder: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class ListFilter(Generic[T]):
    """One list filter, declared once (compared by identity: one object per filter).

    * ``name``: the query parameter, the form field's name and the client's keyword argument;
    * ``parse``: given the raw values sent (one unless ``merged``: then every one, in order),
      return the value or raise :class:`~bangscore.errors.FilterValueRefused`;
    * ``text``: given a value, return its canonical text (``Link`` headers, paging links);
    * ``mask``: given the catalogue's columns and a value, return the boolean mask of the games
      the filter keeps;
    * ``wire_type``, ``description``, ``schema``: the parameter in the root listing and the
      OpenAPI document (the schema states exactly what ``parse`` accepts);
    * ``form``: the browse form's field; ``form_text`` writes a value into a text field when
      that is not ``text`` (None: ``text``);
    * ``client``: given the Python client's keyword argument, return the text it sends, or None
      to send nothing;
    * ``merged``: the parameter may be repeated, its values read as one comma list.
    """

    name: str
    parse: Callable[[Sequence[str]], T]
    text: Callable[[T], str]
    mask: Callable[[FilterColumns, T], Mask]
    wire_type: str
    description: str
    schema: Mapping[str, Any]
    form: FormField
    client: Callable[[Any], str | None]
    merged: bool = False
    form_text: Callable[[T], str] | None = None

    def form_raw(self, values: Sequence[str]) -> FormValue:
        """Given the raw values sent for this filter (possibly none, possibly invalid), return
        what its form field shows: the typed text (a merged list's values joined by ", "),
        whether the checkbox is ticked, or the ticked choices (lowercased)."""
        control = self.form.control
        if control == "checkboxes":
            return frozenset(part.strip().lower() for v in values for part in v.split(","))
        first = values[0] if values else ""
        if control == "checkbox":
            return first.lower() == "true"
        return ", ".join(values) if self.merged else first

    def form_shown(self, value: T | None) -> FormValue:
        """Given this filter's valid value (None: not set), return what its form field shows."""
        control = self.form.control
        if control == "checkbox":
            return bool(value)
        if value is None:
            return frozenset() if control == "checkboxes" else ""
        if control == "checkboxes" and isinstance(value, frozenset):
            return value
        return (self.form_text or self.text)(value)


FormState = tuple[tuple[ListFilter[Any], FormValue], ...]
"""What the browse form shows: every list filter, in the table's order, with its field's value."""


def split(values: Sequence[str]) -> list[str]:
    """Given raw values of comma lists, return every item, trimmed, in order (empty ones too)."""
    return [part.strip() for value in values for part in value.split(",")]


def bounded_integer(raw: str, low: int, high: int) -> int | None:
    """Given a raw query value and inclusive bounds (0 <= low <= high), return its value, or
    None unless it is ASCII decimal digits (no sign, no spaces) whose value is within bounds.

    Leading zeros are allowed and read in base 10 (``0999`` is 999), as an OpenAPI client reads
    an integer parameter; the digit count is checked before ``int()``, which would raise on
    (and spend time over) a 4,301-digit string.
    """
    if not _DIGITS.fullmatch(raw):
        return None
    significant = raw.lstrip("0") or "0"
    if len(significant) > len(str(high)):
        return None
    value = int(significant)
    return value if low <= value <= high else None


def price_cents(raw: str) -> int | None:
    """Given a raw price value, return it in cents, or None unless it is 1 to 4 ASCII digits
    with at most two decimals after a dot, from 0 to MAX_PRICE_USD (``9.99``, ``10``, ``10.5``
    is 1050 cents; ``1e3``, ``-1``, ``10.`` and ``1000.01`` are None)."""
    match = _PRICE.fullmatch(raw)
    if match is None:
        return None
    cents = int(match.group(1)) * 100 + int((match.group(2) or "0").ljust(2, "0"))
    return cents if cents <= MAX_PRICE_USD * 100 else None


def price_text(cents: int) -> str:
    """Given a price in cents, return it as a price is written in links: whole dollars without
    decimals (``10``), else two decimals (``9.99``)."""
    dollars, rest = divmod(cents, 100)
    return str(dollars) if rest == 0 else f"{dollars}.{rest:02d}"


def sorted_list(words: frozenset[str]) -> str:
    """Given a set of words, return them sorted, comma-separated (a list's canonical text)."""
    return ",".join(sorted(words))


def client_list(value: str | Iterable[str] | None) -> str | None:
    """Given the client's list argument (a comma string or an iterable), return its text, or
    None when empty."""
    if not value:
        return None
    return value if isinstance(value, str) else ",".join(value)


def client_integer(value: int | None) -> str | None:
    """Given the client's integer argument, return its text, or None when not given."""
    return None if value is None else str(value)
