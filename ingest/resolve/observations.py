"""Layered sources: what each source observes about an appid, and which observation wins.

Every source (a bundled dump or a live adapter) is a :class:`Layer`: a name, the public-input
kind it dates in a detail record's ``sources`` (storefront, player_stats, play_length,
price_history, wiki), the date of its data and a trust rank. A reader yields
:class:`Observation` s: (appid, field, value) seen by its layer. :class:`Observations` collects
them and :meth:`Observations.resolve` picks, for every field of an appid, one winner by the
documented precedence:

1. the most trusted rank first: ``TRUST_KEYED`` (the source keys the value by Steam appid and
   states it directly) before ``TRUST_MATCHED`` (joined by title, or estimated by the source);
2. within a rank, the freshest data date;
3. on an equal date, the layer registered first.

So adding a source is one reader and one :class:`Layer` line; no join changes. Cross-checks that
compare fields (a length against reviewers' playtime, a $0 price against an earlier paid one)
run after resolution, in :mod:`ingest.resolve.checks`, and may set a candidate aside with
:meth:`Observations.candidates`.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from bangscore.scoring.records import SourceName

TRUST_KEYED = 0
TRUST_MATCHED = 1


@dataclass(frozen=True, slots=True)
class Layer:
    """One source of observations.

    ``name`` identifies it in provenance (``"steam_pics_2026"``, ``"live storefront"``);
    ``kind`` is the ``sources`` key it dates; ``date`` is when its data was collected;
    ``trust`` is :data:`TRUST_KEYED` or :data:`TRUST_MATCHED` (see the module docstring).
    """

    name: str
    kind: SourceName
    date: dt.date
    trust: int = TRUST_KEYED

    def precedence(self, order: int) -> tuple[int, int, int]:
        """Given the layer's registration order, return its sort key (smaller wins)."""
        return (self.trust, -self.date.toordinal(), order)


class Observation(NamedTuple):
    """One value a source observed: ``field`` of ``appid`` is ``value``."""

    appid: int
    field: str
    value: Any


class Resolved(NamedTuple):
    """The winning value of one field and the layer it came from."""

    value: Any
    layer: Layer


@dataclass
class Observations:
    """Every observation of every registered layer, stored per field and layer.

    Storage is ``field -> [(layer, {appid: value})]`` in precedence order, so resolving a
    field of one appid is a walk over a handful of dicts. Observations of one layer for the
    same (appid, field) overwrite each other: the last one read wins within a layer.
    """

    _layers: list[Layer] = field(default_factory=list)
    _by_field: dict[str, list[tuple[Layer, dict[int, Any]]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    appids: set[int] = field(default_factory=set)
    # field -> (appid -> winning value, appid -> its layer); built on first read of a field
    # and dropped whenever a layer observing it is added, so lookups are one dict access each.
    _winners: dict[str, tuple[dict[int, Any], dict[int, Layer]]] = field(default_factory=dict)

    def add(self, layer: Layer, observations: Iterable[Observation]) -> int:
        """Given a layer and what it observed, store them; return how many were stored.

        Raises ValueError when a layer of the same name was added before.
        """
        if any(known.name == layer.name for known in self._layers):
            raise ValueError(f"layer {layer.name!r} added twice")
        return self.add_tables(layer, *tabulate(observations))

    def add_tables(self, layer: Layer, tables: dict[str, dict[int, Any]], count: int) -> int:
        """Given a layer and what it observed as :func:`tabulate` lays it out (its tables by
        field and how many observations they came from), store them; return the count.

        Raises ValueError when a layer of the same name was added before.
        """
        if any(known.name == layer.name for known in self._layers):
            raise ValueError(f"layer {layer.name!r} added twice")
        self._layers.append(layer)
        for name, table in tables.items():
            ranked = self._by_field[name]
            ranked.append((layer, table))
            positions = {lay.name: i for i, lay in enumerate(self._layers)}
            ranked.sort(key=lambda pair: pair[0].precedence(positions[pair[0].name]))
            self.appids.update(table)
            # Only this field's winners can change: the others' maps stay (the sources
            # matched by title read the names of 180,000 apps between adds: their map was
            # built again after every add).
            self._winners.pop(name, None)
        return count

    @property
    def layers(self) -> tuple[Layer, ...]:
        """Return the registered layers in registration order."""
        return tuple(self._layers)

    def fields(self) -> tuple[str, ...]:
        """Return every field name any layer observed, sorted."""
        return tuple(sorted(self._by_field))

    def tables(self, name: str) -> tuple[tuple[Layer, dict[int, Any]], ...]:
        """Given a field, return every layer that observed it with its ``{appid: value}``
        table, best first (read-only: callers must not change the tables)."""
        return tuple(self._by_field.get(name, ()))

    def candidates(self, appid: int, name: str) -> Iterator[Resolved]:
        """Given an appid and a field, yield every layer's value for it, best first."""
        for layer, table in self._by_field.get(name, ()):
            if appid in table:
                yield _resolved((table[appid], layer))

    def _winner_maps(self, name: str) -> tuple[dict[int, Any], dict[int, Layer]]:
        maps = self._winners.get(name)
        if maps is None:
            values: dict[int, Any] = {}
            layers: dict[int, Layer] = {}
            # Least preferred first, so every better layer overwrites it.
            for layer, table in reversed(self._by_field.get(name, [])):
                values.update(table)
                layers.update(dict.fromkeys(table, layer))
            maps = self._winners[name] = (values, layers)
        return maps

    # get and value are called millions of times a build (every field of 180,000 apps): each
    # reads the winners' maps itself, and a Resolved is made without its Python __new__.
    def get(self, appid: int, name: str) -> Resolved | None:
        """Given an appid and a field, return the winning value and its layer, or None."""
        maps = self._winners.get(name) or self._winner_maps(name)
        value = maps[0].get(appid, _MISSING)
        return None if value is _MISSING else _resolved((value, maps[1][appid]))

    def value(self, appid: int, name: str, default: Any = None) -> Any:
        """Given an appid and a field, return the winning value, or ``default``."""
        return (self._winners.get(name) or self._winner_maps(name))[0].get(appid, default)

    def resolve(self, appid: int) -> dict[str, Resolved]:
        """Given an appid, return the winner of every field observed for it."""
        out: dict[str, Resolved] = {}
        for name in self._by_field:
            found = self.get(appid, name)
            if found is not None:
                out[name] = found
        return out


_MISSING = object()
# Resolved((value, layer)) as its NamedTuple __new__ makes it, without a Python call.
_resolved: Callable[[tuple[Any, Layer]], Resolved] = functools.partial(tuple.__new__, Resolved)


def tabulate(observations: Iterable[Observation]) -> tuple[dict[str, dict[int, Any]], int]:
    """Given one layer's observations, return them as ``{field: {appid: value}}`` (the last of
    several for one appid and field wins) and how many there were."""
    tables: dict[str, dict[int, Any]] = {}
    count = 0
    for appid, name, value in observations:
        table = tables.get(name)
        if table is None:
            table = tables[name] = {}
        table[appid] = value
        count += 1
    return tables, count
