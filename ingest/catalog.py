"""The catalog of the bundled dumps: read every layer (:data:`BUNDLED`), resolve each field
by precedence (:mod:`ingest.observations`), cross-check (:mod:`ingest.checks`), and split the
known apps into rated :class:`GameRecord` s and :class:`NotRated` apps with their reason. Also
Catalog file I/O. Provenance of every file: ``data/README.md``.

Adding a source is one reader and one line in :data:`BUNDLED`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import gzip
import os
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError
from tqdm import tqdm

from bangscore.ingest import dumps, early_window, legacy, readers
from bangscore.ingest.checks import (
    MIN_REVIEWERS,
    MIN_REVIEWS,
    Listing,
    choose_length,
    current_price,
    delisted,
    finish_rate_estimate,
    non_game,
    not_rated_reason,
    regional_copies,
    zero_is_no_price,
)
from bangscore.ingest.observations import TRUST_MATCHED, Layer, Observation, Observations
from bangscore.ingest.tags import TagPositions, order_tag_set, typical_positions
from bangscore.scoring.play import is_replayable
from bangscore.scoring.records import Catalog, GameRecord, NotRated, Provenance, Sources

__all__ = [
    "BUNDLED",
    "CatalogError",
    "IngestReport",
    "assemble",
    "load_bundled_catalog",
    "read_catalog",
    "read_observations",
    "write_catalog",
]

Reader = Callable[[Path, Observations], Iterable[Observation]]


@dataclass(frozen=True)
class Source:
    """One bundled dump: its layer, its path under ``data/raw`` and its reader."""

    layer: Layer
    path: str
    read: Reader


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


# Freshest first within a trust rank is the resolver's rule; the order here only breaks ties.
BUNDLED: tuple[Source, ...] = (
    Source(
        Layer("steam_pics_2026", "storefront", _d("2026-07-24")),
        "steam_pics_2026",
        lambda p, _: readers.observe_pics(p),
    ),
    Source(
        Layer("steam_prices_usd_2026", "storefront", _d("2026-07-13")),
        "steam_prices_usd_2026/prices.json.gz",
        lambda p, _: readers.observe_prices_usd(p),
    ),
    Source(
        Layer("steam_delisted_2026-08", "storefront", _d("2026-08-22")),
        "steam_delisted_2026-08/delisted_first_last_seen.csv.gz",
        lambda p, _: readers.observe_delisted(p),
    ),
    # A recent sample of up to 3,000 reviews: its count is a lower bound, so it only counts
    # where no full review total exists.
    Source(
        Layer("steam_review_playtime_2026", "player_stats", _d("2026-07-24"), TRUST_MATCHED),
        "steam_review_playtime_2026/playtime.json.gz",
        lambda p, _: readers.observe_review_playtime(p),
    ),
    Source(
        Layer("steamspy_2025-01-01", "player_stats", _d("2025-01-01")),
        "steamspy_all_2025-01-01",
        lambda p, _: legacy.observe_steamspy(dumps.read_steamspy(p).rows, current=True),
    ),
    Source(
        Layer("steam_insights_2024", "storefront", _d("2024-10-31")),
        "steam_insights_2024",
        lambda p, _: readers.observe_insights(p),
    ),
    Source(
        Layer("steamspy_2023-02-04", "player_stats", _d("2023-02-04")),
        "steamspy_all_2023-02-04",
        lambda p, _: legacy.observe_steamspy(dumps.read_steamspy(p).rows, current=False),
    ),
    Source(
        Layer("steam_store_2019", "storefront", _d("2019-05-01")),
        "steam_store_games_2019/steam.csv.gz",
        lambda p, _: legacy.observe_store_2019(dumps.read_store_games_2019(p).rows),
    ),
    Source(
        Layer("hltb_steam_2025-12", "play_length", _d("2025-12-27")),
        "hltb_steam_2025-12/howlongtobeat_games.csv.gz",
        lambda p, _: readers.observe_hltb_2025(p),
    ),
    # HLTB by title similarity (June 2026): fresher, but a title match can pick the wrong game.
    Source(
        Layer("hltb_steam_2026", "play_length", _d("2026-06-30"), TRUST_MATCHED),
        "hltb_steam_2026/hltb.json.gz",
        lambda p, _: readers.observe_hltb_2026(p),
    ),
    Source(
        Layer("hltb_2023", "play_length", _d("2023-12-31")),
        "hltb_2023/hltb_clean.csv",
        lambda p, known: legacy.observe_hltb_2023_by_appid(dumps.read_hltb(p).rows, known),
    ),
    Source(
        Layer("hltb_2023 by title", "play_length", _d("2023-12-31"), TRUST_MATCHED),
        "hltb_2023/hltb_clean.csv",
        lambda p, known: legacy.observe_hltb_2023_by_title(dumps.read_hltb(p).rows, known),
    ),
    Source(
        Layer("steam_rarest_achievement_2024-12", "player_stats", _d("2024-12-17")),
        "steam_rarest_achievement_2024-12/steam_hltb_map.json.gz",
        lambda p, _: readers.observe_rarest_achievement(p),
    ),
    Source(
        Layer("steam_players_2018", "player_stats", _d("2018-07-01")),
        "steam_players_2018/games_achievements_players_2018-07-01.csv",
        lambda p, _: legacy.observe_players_2018(dumps.read_players_2018(p).rows),
    ),
    Source(
        Layer("itad_2025", "price_history", _d("2025-10-16"), TRUST_MATCHED),
        "itad_price_history_2025/steam_games_analysis.csv.gz",
        lambda p, known: legacy.observe_itad(dumps.read_itad_games(p).rows, known),
    ),
    Source(
        Layer("steam_reviews_window_2025-01", "player_stats", _d("2025-01-20")),
        "steam_reviews_window_2025-01/reviews_playtime_at_review.csv.gz",
        lambda p, _: early_window.observe_early_window(p, "steam_reviews_window_2025-01"),
    ),
    Source(
        Layer("steam_reviews_popular_2024-04", "player_stats", _d("2024-04-22")),
        "steam_reviews_popular_2024-04/reviews_playtime_at_review.csv.gz",
        lambda p, _: early_window.observe_early_window(p, "steam_reviews_popular_2024-04"),
    ),
    Source(
        Layer("steam_reviews_indie_2023-11", "player_stats", _d("2023-11-27")),
        "steam_reviews_indie_2023-11/reviews_playtime_at_review.csv.gz",
        lambda p, _: early_window.observe_early_window(p, "steam_reviews_indie_2023-11"),
    ),
)


class CatalogError(ValueError):
    """A catalog file or the raw dumps are missing or unreadable."""


@dataclass
class IngestReport:
    """Counts of one catalog build: ``observations`` per layer, known ``apps``, ``dropped`` apps
    per not-rated reason, ``checks`` fired per name, ``rated`` games, rated games per release
    ``years``, ``length_sources`` of the rated games, how many apps were refused as
    ``regional_copies`` of another listing and how many for a ``zero_not_free`` price (a $0
    the storefront says is not free to play), both within ``no_usd_price``, how many of the
    latter have enough reviews to be rated (``zero_not_free_reviewed``), and wall
    ``seconds``."""

    observations: Counter[str] = field(default_factory=Counter)
    apps: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=Counter)
    rated: int = 0
    years: Counter[int | None] = field(default_factory=Counter)
    length_sources: Counter[str] = field(default_factory=Counter)
    early_window: int = 0
    regional_copies: int = 0
    zero_not_free: int = 0
    zero_not_free_reviewed: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """Given the report, return it as aligned human-readable lines."""
        lines = ["observations per source:"]
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.observations.items()]
        lines.append(f"known apps: {self.apps:,}")
        lines.append("not rated, per reason:")
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.dropped.most_common()]
        lines.append(f"  of which regional copies of another listing {self.regional_copies:>9,}")
        lines.append(f"  of which $0 but not free to play {self.zero_not_free:>19,}")
        lines.append("cross-checks fired on rated games:")
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.checks.most_common()]
        lines.append("length source of rated games:")
        lines += [f"  {k:<36} {v:>9,}" for k, v in self.length_sources.most_common()]
        lines.append(f"rated games with early-window reviews: {self.early_window:,}")
        lines.append("rated games per release year:")
        years = sorted(self.years.items(), key=lambda kv: kv[0] or 0)
        lines += [f"  {k if k else 'unknown':<36} {v:>9,}" for k, v in years]
        lines.append(f"rated games: {self.rated:,}")
        lines.append(f"wall time: {self.seconds:.1f} s")
        return "\n".join(lines)


def read_observations(
    raw_dir: Path, sources: Iterable[Source] = BUNDLED, *, progress: bool = False
) -> tuple[Observations, Counter[str]]:
    """Given the ``data/raw`` folder, return (every source's observations, count per layer).

    Raises CatalogError if a file or folder is missing or unreadable.
    """
    known = Observations()
    counts: Counter[str] = Counter()
    for source in tqdm(list(sources), desc="reading sources", unit="source", disable=not progress):
        path = raw_dir / source.path
        if not path.exists():
            raise CatalogError(f"missing raw dump {path}")
        try:
            counts[source.layer.name] = known.add(source.layer, source.read(path, known))
        except (OSError, EOFError, zlib.error) as err:
            raise CatalogError(f"cannot read raw dump {path}: {err}") from err
    return known, counts


# Public inputs and the wire field each one's provenance is reported under.
_PUBLIC = {
    "name": "name",
    "developer": "developer",
    "publisher": "publisher",
    "price": "price_usd",
    "review_score": "review_score",
    "review_count": "review_count",
    "release_date": "release_year",
    "tags": "tags",
    "storefront_genres": "genre",
    "completionist_hours": "completionist_hours",
    "metacritic": "metacritic",
    "early_window": "early_window_reviews",
    "median_playtime_hours": "median_playtime_hours",
}


def _historical_low(known: Observations, appid: int, price: float, list_price: float) -> Any:
    """Return (lowest USD price seen, its layer or None for today's price, from ITAD?)."""
    low, layer, estimated = price, None, False
    for seen in known.candidates(appid, "usd_price_seen"):
        # A $0 next to a paid list price was "not sold then", not "free".
        if seen.value < low and (seen.value > 0 or list_price == 0):
            low, layer = seen.value, seen.layer
    deepest = known.get(appid, "deepest_discount_percent")
    if deepest is not None and list_price > 0:
        # Rounded down to the cent, as Steam's sale prices are (19.99 at -75% sells at 4.99).
        from_itad = int(round(list_price * 100) * (100 - deepest.value) // 100) / 100
        if from_itad < low:
            low, layer, estimated = from_itad, deepest.layer, True
    return low, layer, estimated


def _finish_rate(known: Observations, appid: int, hours: float) -> tuple[float, Layer] | None:
    """Estimate the share of players who play the main story's length, from owners' playtime
    (SteamSpy, the 2019 dump) or, failing that, from reviewers' playtime (2026)."""
    owners = known.get(appid, "owner_playtime")
    if owners is not None:
        median, mean = owners.value
        return finish_rate_estimate(median, mean, hours), owners.layer
    reviewers = known.get(appid, "reviewer_playtime")
    if reviewers is None:
        return None
    up, down, n_up, n_down = reviewers.value
    parts = [(n, h) for n, h in ((n_up, up), (n_down, down)) if h and n]
    if sum(n for n, _ in parts) < MIN_REVIEWERS:
        return None
    rate = sum(n * finish_rate_estimate(h * 60, h * 60, hours) for n, h in parts)
    return rate / sum(n for n, _ in parts), reviewers.layer


def _tags_marked(known: Observations, appid: int, mark: str) -> bool:
    """Return True when the layer of an appid's winning tags also observed ``mark`` for it:
    ``tags_unranked`` (a set without vote order) or ``tags_reconstructed`` (a previous
    record's tags, already put in typical order)."""
    winner = known.get(appid, "tags")
    return winner is not None and any(
        c.layer == winner.layer for c in known.candidates(appid, mark)
    )


def _tags_unranked(known: Observations, appid: int) -> bool:
    return _tags_marked(known, appid, "tags_unranked")


def _tag_order_estimated(known: Observations, appid: int) -> bool:
    return _tags_unranked(known, appid) or _tags_marked(known, appid, "tags_reconstructed")


def tag_positions(known: Observations) -> TagPositions:
    """Given every observation, return the typical tag positions over the apps whose winning
    tags are ranked (:func:`ingest.tags.typical_positions`)."""
    return typical_positions(
        (known.value(appid, "tags", ()), known.value(appid, "storefront_genres", ()))
        for appid in known.appids
        if not _tag_order_estimated(known, appid)
    )


def _tags(known: Observations, appid: int, typical: TagPositions) -> tuple[str, ...]:
    """Return an appid's tags, most-voted first: the winning ranked tags, or an unranked set in
    typical order (:mod:`ingest.tags`)."""
    tags = tuple(known.value(appid, "tags", ()))
    if not _tags_unranked(known, appid):
        return tags
    return order_tag_set(tags, known.value(appid, "storefront_genres", ()), typical)


def assemble(
    known: Observations, report: IngestReport, *, progress: bool = False
) -> tuple[list[GameRecord], list[NotRated]]:
    """Given every observation, return (rated records, not-rated apps), both sorted by appid,
    counting reasons, checks, years and length sources in ``report``. Never raises on data."""
    rated: list[GameRecord] = []
    refused: list[NotRated] = []
    appids = sorted(known.appids)
    report.apps = len(appids)
    newest = max(
        (layer.date for layer in known.layers if layer.kind == "storefront"),
        default=dt.date.today(),
    )
    typical = tag_positions(known)
    copies = regional_copies(
        Listing(
            appid,
            known.value(appid, "name") or "",
            known.value(appid, "developer"),
            known.value(appid, "publisher"),
            int(known.value(appid, "review_count", 0)),
            known.get(appid, "app_type") is not None,
        )
        for appid in appids
    )
    for appid in tqdm(appids, desc="resolving", unit="app", disable=not progress):
        name = known.value(appid, "name") or ""
        price = known.get(appid, "price")
        review_count = int(known.value(appid, "review_count", 0))
        is_non_game = not name or non_game(
            name, known.value(appid, "app_type"), known.value(appid, "storefront_genres", ())
        )
        is_delisted = delisted(
            known.get(appid, "delisted") is not None,
            price.value[0] if price else None,
            known.get(appid, "paid_before") is not None,
            bool(known.value(appid, "free", False)),
        )
        zero_not_free = False
        if appid in copies:
            price = None  # a regional copy's only price repeats its twin's: none of its own
        elif price and zero_is_no_price(price.value[0], price.value[1], known.value(appid, "free")):
            price, zero_not_free = None, True
        length = None
        # The length check needs the tags and the reviewers' playtime: only for apps that
        # pass every other check, which keeps the walk over 180k apps fast.
        if not (is_non_game or is_delisted or price is None or review_count < MIN_REVIEWS):
            reviewer = known.value(appid, "reviewer_playtime")
            length = choose_length(
                list(known.candidates(appid, "main_story_hours")),
                reviewer[0] if reviewer else None,
                reviewer[2] if reviewer else 0,
                replayable=is_replayable(_tags(known, appid, typical)),
            )
        reason = not_rated_reason(
            is_non_game=is_non_game,
            is_delisted=is_delisted,
            has_price=price is not None,
            review_count=review_count,
            has_length=length is not None,
        )
        if reason is not None or price is None or length is None:
            reason = reason or "no_length"
            report.dropped[reason] += 1
            report.regional_copies += reason == "no_usd_price" and appid in copies
            if reason == "no_usd_price" and zero_not_free:
                report.zero_not_free += 1
                report.zero_not_free_reviewed += review_count >= MIN_REVIEWS
            # Values come from the resolver and the reason list: no need to re-validate.
            refused.append(
                NotRated.model_construct(
                    appid=appid, name=name, reason=reason, review_count=review_count or None
                )
            )
            continue
        try:
            record = _record(
                known,
                appid,
                name,
                price.value,
                price.layer,
                length,
                review_count,
                newest,
                _tags(known, appid, typical),
            )
        except ValidationError as err:
            report.dropped[f"invalid record ({err.errors()[0]['loc']})"] += 1
            continue
        rated.append(record)
        report.checks.update(record.checks)
        report.years[record.release_year] += 1
        report.length_sources[record.length_source or "none"] += 1
        report.early_window += record.early_window is not None
    report.rated = len(rated)
    return rated, refused


@functools.lru_cache(maxsize=256)
def _provenance(layer: Layer) -> Provenance:
    """Return the (frozen, shared) provenance entry of one layer."""
    return Provenance(source=layer.name, kind=layer.kind, date=layer.date)


def _record(
    known: Observations,
    appid: int,
    name: str,
    price: tuple[float, float, int],
    price_layer: Layer,
    length: Any,
    review_count: int,
    newest: dt.date,
    tags: tuple[str, ...],
) -> GameRecord:
    """Build one rated record from the winners of every field (see :func:`assemble`) and its
    tags, most-voted first (:func:`_tags`)."""
    observed_price = price[0]
    price = current_price(price, price_layer.date, newest)
    provenance: dict[str, Layer] = {}
    for field_name, wire in _PUBLIC.items():
        found = known.get(appid, field_name)
        if found is not None:
            provenance[wire] = found.layer
    provenance["price_usd"] = price_layer
    estimated: list[str] = []
    checks = list(length.checks)
    reviewer = known.get(appid, "reviewer_playtime")
    if length.resolved is not None:
        provenance["length_hours"] = length.resolved.layer
    else:
        assert reviewer is not None
        provenance["length_hours"] = reviewer.layer
        estimated.append("length_hours")
    # A finish rate a source observed directly (the live achievements adapter) wins over one
    # estimated here from playtime; an estimated length gets no estimated finish rate.
    observed_finish = known.get(appid, "finish_rate")
    if observed_finish is not None:
        finish: tuple[float, Layer] | None = (observed_finish.value, observed_finish.layer)
    elif length.source == "hltb":
        finish = _finish_rate(known, appid, length.hours)
    else:
        finish = None
    if finish is not None:
        # Whatever dump the playtime came from, a finish rate is player statistics.
        provenance["finish_rate"] = dataclasses.replace(finish[1], kind="player_stats")
        estimated.append("finish_rate")
    low, low_layer, low_estimated = _historical_low(known, appid, price[0], price[1])
    if observed_price < low:  # a sale long over still is a price the game was sold at
        low, low_layer, low_estimated = observed_price, price_layer, False
    provenance["historical_low_usd"] = low_layer or price_layer
    if low_estimated:
        estimated.append("historical_low_usd")
    if _tag_order_estimated(known, appid):
        estimated.append("tags")  # their order is reconstructed (ingest.tags)
    released = known.value(appid, "release_date")
    window = known.value(appid, "early_window")
    trusted = reviewer is not None and reviewer.value[2] >= MIN_REVIEWERS
    up_hours = reviewer.value[0] if reviewer is not None and trusted else None
    counted = known.get(appid, "review_count")
    if counted is not None and counted.layer.trust >= TRUST_MATCHED:
        # Only a recent sample's count is known: a lower bound on the real total.
        estimated.append("review_count")
    dates: dict[str, dt.date] = {}
    for layer in provenance.values():
        current = dates.get(layer.kind)
        dates[layer.kind] = layer.date if current is None else min(current, layer.date)
    return GameRecord(
        appid=appid,
        name=name,
        developer=known.value(appid, "developer"),
        publisher=known.value(appid, "publisher"),
        price_usd=round(price[0], 2),
        list_price_usd=round(price[1], 2),
        discount_percent=int(price[2]),
        review_score=float(known.value(appid, "review_score", 0.0)),
        review_count=review_count,
        release_date=released,
        release_year=released.year if released else None,
        storefront_genres=tuple(known.value(appid, "storefront_genres", ())),
        tags=tags[:20],
        play_length_genres=tuple(known.value(appid, "play_length_genres", ())),
        main_story_hours=length.hours,
        length_source=length.source,
        completionist_hours=known.value(appid, "completionist_hours"),
        finish_rate=finish[0] if finish else None,
        positive_reviewer_hours=up_hours,
        positive_reviewers=reviewer.value[2] if reviewer is not None and trusted else None,
        rarest_achievement_percent=known.value(appid, "rarest_achievement_percent"),
        players_estimate=known.value(appid, "players_estimate"),
        owners_range=known.value(appid, "owners_range"),
        historical_low_usd=round(low, 2),
        metacritic=known.value(appid, "metacritic"),
        median_playtime_hours=known.value(appid, "median_playtime_hours"),
        reviews=known.value(appid, "reviews"),
        early_window=window,
        sources=Sources(**dates, review_sample=window.window.to if window is not None else None),
        provenance={wire: _provenance(layer) for wire, layer in sorted(provenance.items())},
        estimated=tuple(estimated),
        checks=tuple(checks),
    )


def load_bundled_catalog(
    data_dir: Path, *, progress: bool = False, created_at: dt.datetime | None = None
) -> tuple[Catalog, IngestReport]:
    """Given the repo's ``data`` folder (with ``raw/`` inside), return (the catalog of the
    bundled dumps: rated games and not-rated apps sorted by appid, origin ``"bundled dumps"``;
    the report). ``created_at`` defaults to now (UTC). Raises CatalogError if a dump is
    missing or unreadable."""
    started = time.perf_counter()
    report = IngestReport()
    known, report.observations = read_observations(data_dir / "raw", progress=progress)
    games, not_rated = assemble(known, report, progress=progress)
    catalog = Catalog(
        created_at=created_at or dt.datetime.now(dt.UTC),
        origin="bundled dumps",
        games=tuple(games),
        not_rated=tuple(not_rated),
    )
    report.seconds = time.perf_counter() - started
    return catalog, report


def write_catalog(catalog: Catalog, path: Path) -> None:
    """Given a catalog and a target path, write it as gzip JSON atomically (a temporary file in
    the same folder, then rename), so readers never see a half-written file."""
    body = orjson.dumps(catalog.model_dump(mode="json", by_alias=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(gzip.compress(body, mtime=0))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_catalog(path: Path) -> Catalog:
    """Given a path written by :func:`write_catalog`, return the Catalog.

    Raises CatalogError naming the path if it is missing, not gzip, not JSON or not a catalog.
    """
    try:
        raw = gzip.decompress(path.read_bytes())
    except FileNotFoundError:
        raise CatalogError(f"catalog file {path} does not exist") from None
    except (OSError, EOFError, zlib.error) as err:
        raise CatalogError(f"catalog file {path} is not readable gzip: {err}") from None
    try:
        data = orjson.loads(raw)
        del raw
        return _validate_catalog(data)
    except orjson.JSONDecodeError as err:
        raise CatalogError(f"catalog file {path} is not valid JSON: {err}") from None
    except ValidationError as err:
        raise CatalogError(
            f"catalog file {path} is not a valid catalog ({err.error_count()} errors)"
        ) from None


def _validate_catalog(data: Any) -> Catalog:
    """Validate a parsed catalog one game at a time, dropping each parsed dict as soon as its
    record exists and sharing equal provenance entries, so a large catalog never holds its
    JSON and its records whole at once (the builder's peak memory)."""
    if not isinstance(data, dict) or not isinstance(data.get("games"), list):
        return Catalog.model_validate(data)  # raises the ValidationError that says why
    parsed: list[Any] = data.pop("games")
    shared: dict[Provenance, Provenance] = {}
    games: list[GameRecord] = []
    for i, item in enumerate(parsed):
        parsed[i] = None
        record = GameRecord.model_validate(item)
        for name, entry in record.provenance.items():
            record.provenance[name] = shared.setdefault(entry, entry)
        games.append(record)
    del parsed
    return Catalog.model_validate({**data, "games": ()}).model_copy(update={"games": tuple(games)})
