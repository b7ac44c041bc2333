"""Live refresh as layered sources: a previous record and each adapter's answer become
observations, and one game is re-resolved by :func:`ingest.catalog.assemble`.

So a live refresh and the bundled dumps produce the same kind of record: the same precedence
(:mod:`ingest.resolve.observations`), the same cross-checks (:mod:`ingest.resolve.checks`), the
same provenance.

- :func:`record_observations`: a catalog record back into layers. Each distinct provenance entry
  (source, kind, date) is one layer, ``TRUST_KEYED`` except the bundled sources registered as
  ``TRUST_MATCHED`` (:data:`MATCHED_SOURCES`). Each resolved value is observed on the layer its
  provenance names. Values that carry no provenance (owners, player counts, reviewers' playtime,
  the review sample...) sit on a ``previous catalog <kind>`` layer dated by the record's
  ``sources``; a record written before provenance existed puts every value there.
- :func:`patch_observations`: an adapter's patch (field -> fresh value) into observations, on
  the layer :func:`live_layer` gives the adapter (keyed, dated today), so live values win.
- :func:`resolve_game`: a previous record plus live layers, resolved into a rated record or a
  :class:`NotRated` app.

What a record cannot say is lost on the way back: the main-story candidates that were set
aside (their ``checks`` are carried over while the chosen length stays the same), the other
sources' values that lost, and a release year without a full release date.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from bangscore.ingest.dumps.registry import BUNDLED
from bangscore.ingest.resolve.observations import (
    TRUST_KEYED,
    TRUST_MATCHED,
    Layer,
    Observation,
    Observations,
)
from bangscore.ingest.resolve.prices import Price, Seen, at_midnight
from bangscore.ingest.resolve.resolution import IngestReport, assemble
from bangscore.scoring.records import GameRecord, NotRated, SourceName

__all__ = [
    "MATCHED_SOURCES",
    "RECORD_FIELDS",
    "LayerObservations",
    "combine",
    "live_layer",
    "patch_observations",
    "record_observations",
    "resolve_game",
]

LayerObservations = tuple[Layer, list[Observation]]

# Bundled sources that join by title or only sample (ingest.dumps.registry.BUNDLED): a provenance
# entry naming one of them keeps its TRUST_MATCHED rank when the record is read back.
MATCHED_SOURCES: Final = frozenset(s.layer.name for s in BUNDLED if s.layer.trust == TRUST_MATCHED)
# The only bundled source of reviewers' playtime, used when a record's provenance does not name
# the layer its positive reviewers' hours came from.
REVIEWER_PLAYTIME_SOURCE: Final = "steam_review_playtime_2026"
_BUNDLED_LAYERS: Final = {s.layer.name: s.layer for s in BUNDLED}
# A value with no provenance and no date for its kind: older than any dated layer.
UNDATED: Final = dt.date.min

# (observation field, provenance key, kind of the fallback layer, value of the record).
_Getter = Callable[[GameRecord], Any]
_PUBLIC: Final[tuple[tuple[str, str, SourceName, _Getter], ...]] = (
    ("name", "name", "storefront", lambda r: r.name),
    ("developer", "developer", "storefront", lambda r: r.developer),
    ("publisher", "publisher", "storefront", lambda r: r.publisher),
    (
        "price",
        "price_usd",
        "storefront",
        lambda r: (r.price_usd, r.list_price_usd, r.discount_percent),
    ),
    ("review_score", "review_score", "storefront", lambda r: r.review_score),
    ("review_count", "review_count", "storefront", lambda r: r.review_count),
    ("release_date", "release_year", "storefront", lambda r: r.release_date),
    ("tags", "tags", "storefront", lambda r: r.tags),
    ("storefront_genres", "genre", "storefront", lambda r: r.storefront_genres),
    ("completionist_hours", "completionist_hours", "play_length", lambda r: r.completionist_hours),
    ("metacritic", "metacritic", "storefront", lambda r: r.metacritic),
    ("steam_deck", "steam_deck", "storefront", lambda r: r.steam_deck),
    ("steam_deck_tested_at", "steam_deck", "storefront", lambda r: r.steam_deck_tested_at),
    ("controller_support", "controller_support", "storefront", lambda r: r.controller_support),
    ("languages", "languages", "storefront", lambda r: r.languages),
    ("ai_content", "ai_content", "storefront", lambda r: r.ai_content),
    ("early_window", "early_window_reviews", "player_stats", lambda r: r.early_window),
    ("finish_rate", "finish_rate", "player_stats", lambda r: r.finish_rate),
    (
        "median_playtime_hours",
        "median_playtime_hours",
        "player_stats",
        lambda r: r.median_playtime_hours,
    ),
)
# Values no provenance entry covers: observed on the ``previous catalog player_stats`` layer.
_UNSOURCED: Final[tuple[tuple[str, _Getter], ...]] = (
    ("rarest_achievement_percent", lambda r: r.rarest_achievement_percent),
    ("players_estimate", lambda r: r.players_estimate),
    ("owners_range", lambda r: r.owners_range),
    ("reviews", lambda r: r.reviews),
    ("content_descriptors", lambda r: r.content_descriptors),
)


def _is_set(value: Any) -> bool:
    return value is not None and value != ()


class _Layers:
    """The layers of one record, by provenance entry, and what each observes."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.observed: dict[Layer, list[Observation]] = {}
        self.by_key: dict[str, Layer] = {}
        taken: dict[str, Layer] = {}
        # finish_rate's entry is dated as player statistics whatever its layer's kind, so it
        # goes last and reuses the layer of the same source and date when there is one.
        for key in sorted(record.provenance, key=lambda key: key == "finish_rate"):
            entry = record.provenance[key]
            trust = TRUST_MATCHED if entry.source in MATCHED_SOURCES else TRUST_KEYED
            layer = Layer(entry.source, entry.kind, entry.date, trust)
            known = taken.get(entry.source)
            if known is not None and key == "finish_rate" and known.date == entry.date:
                layer = known
            elif known is not None and known != layer:
                # Two entries of one name that disagree (not written by assemble): both kept.
                name = f"{entry.source} ({entry.kind}, {entry.date.isoformat()})"
                layer = dataclasses.replace(layer, name=name)
            taken.setdefault(layer.name, layer)
            self.by_key[key] = layer

    @property
    def legacy(self) -> bool:
        """Return True for a record written before provenance existed (it has none)."""
        return not self.record.provenance

    def keyed(self, key: str, kind: SourceName) -> Layer:
        """Given a provenance key and a kind, return the layer of that entry, else the record's
        ``previous catalog`` layer of that kind."""
        return self.by_key.get(key) or self.fallback(kind)

    def fallback(self, kind: SourceName) -> Layer:
        """Given a kind, return the record's ``previous catalog`` layer of that kind."""
        date: dt.date | None = getattr(self.record.sources, kind)
        return Layer(f"previous catalog {kind}", kind, date or UNDATED, TRUST_KEYED)

    def observe(self, layer: Layer, field: str, value: Any) -> None:
        """Given a layer, a field and a value, record that the layer observed it."""
        self.observed.setdefault(layer, []).append(Observation(self.record.appid, field, value))

    def named(self, name: str) -> Layer | None:
        """Given a source name, return the record's layer of that name, or None."""
        return next((layer for layer in self.by_key.values() if layer.name == name), None)


def _deepest_discount(list_price: float, low: float) -> int | None:
    """Given a list price and an estimated historical low, return the deepest discount (percent)
    that :func:`ingest.catalog.assemble` turns back into that low, or None if none does."""
    cents = round(list_price * 100)
    for percent in range(101):
        if round(int(cents * (100 - percent) // 100) / 100, 2) == round(low, 2):
            return percent
    return None


def _points(record: GameRecord) -> tuple[Seen, ...]:
    """Return a record's price history as observations, oldest first; the newest observed at
    ``price_observed_at`` when that falls on its day, the others at midnight UTC. An estimated
    point (the historical low from a non-USD discount depth) is no observation: its depth is
    read back as ``deepest_discount_percent`` and makes the point again; likewise the low of a
    layer other than the price's."""
    observed = record.price_observed_at
    price_layer = record.provenance.get("price_usd")
    low_layer = record.provenance.get("historical_low_usd")
    low = (
        (record.historical_low_at, round(record.historical_low_usd * 100), low_layer.source)
        if record.historical_low_usd is not None and low_layer is not None
        else None
    )
    out = []
    for point in record.price_history:
        if point.estimated:
            continue
        # The low another layer saw (ingest.resolve.prices.with_low made it a point): read back as
        # that layer's ``usd_price_seen``, which makes the point again.
        # Only a dated low of the price-history source is made that way: a low another layer
        # saw as a price (SteamSpy's, a storefront dump's) is an observation of its own.
        here = (point.date, round(point.price_usd * 100), point.source)
        dated_low = low_layer is not None and low_layer.kind == "price_history"
        foreign = price_layer is None or point.source != price_layer.source
        if here == low and dated_low and foreign:
            continue
        at = at_midnight(point.date)
        if observed is not None and observed.date() == point.date:
            at = observed
        price = Price(point.price_usd, point.list_price_usd, point.discount_percent)
        out.append(Seen(at, price, point.source, point.discount_end))
    return tuple(out)


# One value a record's layers observe: (layer, observation field, value).
_Observed = tuple[Layer, str, Any]


def _public_values(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # Each public value on its provenance entry's layer; a record written before provenance
    # existed puts its set values on the ``previous catalog <kind>`` layers instead.
    for field, key, kind, get in _PUBLIC:
        value = get(record)
        layer = layers.by_key.get(key)
        if layer is not None:
            yield layer, _keyed_field(record, field), value
        elif layers.legacy and _legacy_value(field, value):
            yield layers.fallback(kind), field, value


def _keyed_field(record: GameRecord, field: str) -> str:
    """Given a record and a public observation field, return the field its provenance entry's
    layer observes: a review count the record marks as estimated is a lower bound
    (``review_count_floor``: a capped sample's size or a review summary's band)."""
    if field == "review_count" and "review_count" in record.estimated:
        return "review_count_floor"
    return field


def _legacy_value(field: str, value: Any) -> bool:
    """Given a field and a record's value of it, return True when a record without provenance
    holds it: set, and no review score of 0 (the record's default, not an observation)."""
    return _is_set(value) and not (field == "review_score" and value == 0)


def _categories(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # Store categories have no provenance entry of their own: they ride on the genres'.
    if record.categories:
        yield layers.keyed("genre", "storefront"), "categories", record.categories


def _price_points(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # The whole history rides on the price's layer: each point names its own source.
    if record.price_history and "price_usd" in layers.by_key:
        yield layers.by_key["price_usd"], "price_points", _points(record)


def _year_without_date(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # A year only the play-length source knows (the storefront has no date for the app).
    if record.release_date is None and record.release_year is not None:
        layer = layers.keyed("release_year", "play_length")
        yield layer, "play_length_release_year", record.release_year
    # The year first sold, earlier than today's storefront date (an Early Access start, a
    # re-release): read back as that, or the year would follow the date.
    elif (
        record.release_date is not None
        and record.release_year is not None
        and record.release_year < record.release_date.year
    ):
        layer = layers.keyed("release_year", "storefront")
        yield layer, "first_sold_year", record.release_year


def _reconstructed_tags(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # Already in typical order (ingest.resolve.tags): kept as it is, still an estimate.
    if "tags" in record.estimated and "tags" in layers.by_key:
        yield layers.by_key["tags"], "tags_reconstructed", True


def _main_story(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # A playtime estimate is no source's length: resolving the reviewers' playtime makes it.
    if record.main_story_hours is not None and record.length_source != "playtime_estimate":
        yield (
            layers.keyed("length_hours", "play_length"),
            "main_story_hours",
            record.main_story_hours,
        )


def _play_length_genres(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # HowLongToBeat's genres share its length's layer; otherwise their source is not recorded.
    if record.play_length_genres:
        layer = (
            layers.keyed("length_hours", "play_length")
            if record.length_source == "hltb"
            else layers.fallback("play_length")
        )
        yield layer, "play_length_genres", record.play_length_genres


def _reviewer_playtime(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # Only what the record holds: the positive reviewers' hours and count, and the negative
    # reviewers' count as the recent sample's size less the positive ones (issue 53).
    if record.positive_reviewer_hours is not None or record.recent_review_count is not None:
        n_up = record.positive_reviewers
        if n_up is None:  # only the recent sample's share and size: its positives from them
            n_up = round((record.recent_review_score or 0) * (record.recent_review_count or 0))
        n_down = max(0, (record.recent_review_count or n_up) - n_up)
        playtime = (record.positive_reviewer_hours, None, n_up, n_down)
        yield _reviewer_layer(record, layers), "reviewer_playtime", playtime


def _reviewer_layer(record: GameRecord, layers: _Layers) -> Layer:
    """Given a record with positive reviewers' hours and its layers, return the layer they are
    observed on: the length's, for a length estimated from them; else the layer of
    :data:`REVIEWER_PLAYTIME_SOURCE` (the record's, or the bundled one), else the
    ``previous catalog player_stats`` layer."""
    if record.length_source == "playtime_estimate" and "length_hours" in layers.by_key:
        return layers.by_key["length_hours"]
    return (
        layers.named(REVIEWER_PLAYTIME_SOURCE)
        or _BUNDLED_LAYERS.get(REVIEWER_PLAYTIME_SOURCE)
        or layers.fallback("player_stats")
    )


def _historical_low(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    # An estimated low goes back as the deepest discount it came from, when one gives it back.
    low = record.historical_low_usd
    layer = layers.by_key.get("historical_low_usd")
    if layer is None and layers.legacy:
        layer = layers.fallback("price_history")
    if low is None or layer is None:
        return
    deepest = None
    if "historical_low_usd" in record.estimated:
        deepest = _deepest_discount(record.list_price_usd, low)
    if deepest is not None:
        yield layer, "deepest_discount_percent", deepest
    else:
        yield layer, "usd_price_seen", low


def _unsourced(record: GameRecord, layers: _Layers) -> Iterator[_Observed]:
    for field, get in _UNSOURCED:
        value = get(record)
        if _is_set(value):
            yield layers.fallback("player_stats"), field, value


# What a record observes, value by value, in this order (the order of each layer's batch).
RECORD_FIELDS: tuple[Callable[[GameRecord, _Layers], Iterator[_Observed]], ...] = (
    _public_values,
    _categories,
    _price_points,
    _year_without_date,
    _reconstructed_tags,
    _main_story,
    _play_length_genres,
    _reviewer_playtime,
    _historical_low,
    _unsourced,
)


def record_observations(record: GameRecord) -> list[LayerObservations]:
    """Given a catalog record, return its resolved values as (layer, observations) pairs, one
    layer per distinct provenance entry plus ``previous catalog <kind>`` layers for values with
    no provenance (see the module docstring; one reader per value: :data:`RECORD_FIELDS`);
    resolving them gives the record back."""
    layers = _Layers(record)
    for read in RECORD_FIELDS:
        for layer, field, value in read(record, layers):
            layers.observe(layer, field, value)
    return list(layers.observed.items())


def live_layer(adapter: str, source: SourceName | None, today: dt.date) -> Layer:
    """Given an adapter's name and the kind it dates (None: it dates its own values, as the
    review sampler does), return the layer of its answers today: keyed by appid, so it wins."""
    return Layer(f"live {adapter}", source or "player_stats", today, TRUST_KEYED)


# Patch keys that are not observation fields, and the one each becomes.
_RENAMED: Final = {"historical_low_usd": "usd_price_seen"}
_PRICE_KEYS: Final = ("price_usd", "list_price_usd", "discount_percent")
# Dropped: the year is the release date's (a bare year is no date), and ``estimated`` is the
# resolver's to decide.
_DROPPED: Final = frozenset({"release_year", "estimated"})


def patch_observations(appid: int, patch: Mapping[str, object]) -> list[Observation]:
    """Given an appid and an adapter's patch (field -> fresh value), return its observations.

    ``price_usd``/``list_price_usd``/``discount_percent`` become one ``price`` triple (only when
    both prices are there; a missing discount is 0); ``historical_low_usd`` becomes
    ``usd_price_seen``; ``release_year`` and ``estimated`` are dropped; a None value is not an
    observation. Every other key already names an observation field.
    """
    observations: list[Observation] = []
    price, list_price = patch.get("price_usd"), patch.get("list_price_usd")
    if price is not None and list_price is not None:
        discount = patch.get("discount_percent") or 0
        observations.append(Observation(appid, "price", (price, list_price, discount)))
    for key, value in patch.items():
        if value is None or key in _DROPPED or key in _PRICE_KEYS:
            continue
        observations.append(Observation(appid, _RENAMED.get(key, key), value))
    return observations


def combine(record: Iterable[LayerObservations], live: Iterable[LayerObservations]) -> Observations:
    """Given a record's layers and live layers, return them registered in one
    :class:`Observations`, live layers first (so they win a tie of trust and date).

    A record layer equal to a live layer (a game refreshed twice the same day) is merged into
    it, the live values last; one that only shares its name (an earlier live refresh) is kept
    under ``"<name> <date>"``.
    """
    known = Observations()
    previous = list(record)
    live_names: set[str] = set()
    for layer, observations in live:
        earlier = [obs for same, batch in previous if same == layer for obs in batch]
        known.add(layer, [*earlier, *observations])
        live_names.add(layer.name)
    for layer, observations in previous:
        if layer.name not in live_names:
            known.add(layer, observations)
        elif layer not in known.layers:
            renamed = dataclasses.replace(layer, name=f"{layer.name} {layer.date.isoformat()}")
            known.add(renamed, observations)
    return known


def resolve_game(
    record: GameRecord,
    live: Sequence[LayerObservations] = (),
    as_of: dt.datetime | None = None,
) -> GameRecord | NotRated:
    """Given a previous record, live layers and the catalog's ``prices_as_of`` (UTC; None: the
    newest price observation of the game), return the game resolved over both by
    :func:`ingest.resolve.resolution.assemble`: a rated record, or the :class:`NotRated` app a
    cross-check refused. While the chosen length stays the same, the previous record's
    ``checks`` carry over (the candidates they set aside are not in a record). Raises
    ValueError when a value breaks the record's constraints."""
    report = IngestReport()
    rated, refused = assemble(combine(record_observations(record), live), report, as_of=as_of)
    if refused:
        return refused[0]
    if not rated:
        raise ValueError(f"appid {record.appid}: {', '.join(report.dropped) or 'no record'}")
    fresh = rated[0]
    same_length = (fresh.main_story_hours, fresh.length_source) == (
        record.main_story_hours,
        record.length_source,
    ) and fresh.provenance.get("length_hours") == record.provenance.get("length_hours")
    if same_length and record.checks:
        checks = tuple(dict.fromkeys((*record.checks, *fresh.checks)))
        fresh = fresh.model_copy(update={"checks": checks})
    # An older source's share corrected by the catalogue's measured offset (issue 53) comes
    # back as the corrected value; one game cannot measure the offset again, so its mark stays.
    # Likewise an edition's prior, the superseded listing's share, which one game cannot see.
    if "review_score" in record.estimated and fresh.review_score == record.review_score:
        estimated = tuple(dict.fromkeys((*fresh.estimated, "review_score")))
        fresh = fresh.model_copy(update={"estimated": estimated})
    if fresh.review_prior_score is None and record.review_prior_score is not None:
        fresh = fresh.model_copy(update={"review_prior_score": record.review_prior_score})
    return fresh
