"""The one registry of live sources: every adapter as one row (its name, the endpoint it asks,
the per-host rate limit, the cycle it runs in, its batch size, the fields it observes and how
it is made), read by the refresh (:mod:`ingest.live.refresh`), the dry-run plan
(:mod:`ingest.live.plan`) and the command line. A new source is one adapter module and one row of
:data:`ADAPTERS`.

The rate limits are the hosts' published or observed tolerances: ``appdetails`` about 200
requests per 5 minutes (``appreviews`` shares that host), the Steam Web API 60 a minute,
SteamSpy at most one request a second, HowLongToBeat and PCGamingWiki asked politely at one
per 2 s and 1 s, IsThereAnyDeal 60 a minute.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol
from urllib.parse import urlsplit

from bangscore.ingest.live.achievements import AchievementsAdapter
from bangscore.ingest.live.hltb import HltbAdapter
from bangscore.ingest.live.http import PoliteClient, RateLimit
from bangscore.ingest.live.itad import ITAD_BATCH, ItadAdapter
from bangscore.ingest.live.pcgw import PcgwAdapter
from bangscore.ingest.live.reviews import ReviewsAdapter
from bangscore.ingest.live.steamspy import SteamSpyAdapter
from bangscore.ingest.live.store_items import BATCH_SIZE, BatchAnswer, StoreItemsAdapter
from bangscore.ingest.live.storefront import StorefrontAdapter
from bangscore.scoring.records import GameRecord, SourceName

__all__ = [
    "ADAPTERS",
    "ADAPTER_NAMES",
    "DEFAULT_HOST_LIMIT",
    "DEFAULT_RATE_LIMITS",
    "Adapter",
    "AdapterContext",
    "AdapterName",
    "AdapterRow",
    "BatchAdapter",
    "Cycle",
    "Endpoints",
    "Role",
    "host_of",
]

AdapterName = Literal[
    "store_items", "storefront", "reviews", "steamspy", "achievements", "hltb", "itad", "pcgw"
]
# The endpoint a source is reached at: a field of :class:`Endpoints`.
Role = Literal["store", "steam_api", "steamspy", "hltb", "itad", "pcgw"]
# ``nightly``: prices and review summaries, batched; ``slow``: the per-game cycle.
Cycle = Literal["nightly", "slow"]


class Adapter(Protocol):
    """What every per-game source adapter offers: a name, the source it dates in ``sources``
    (None when its values carry their own date, as review samples do), and a per-game fetch."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> SourceName | None: ...

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return fresh values by field (the observation fields of
        :mod:`ingest.live.layers`), or None if the source lacks the game. Raises
        SourceUnreachableError/SourceError from the client, ValueError or KeyError on a
        malformed answer."""
        ...


class BatchAdapter(Protocol):
    """A source that answers many games a call: a name, the source it dates, the most games a
    call takes, and a batched fetch."""

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> SourceName | None: ...

    @property
    def batch_size(self) -> int: ...

    def answer_batch(
        self, client: PoliteClient, records: Sequence[GameRecord], seen_at: dt.datetime
    ) -> BatchAnswer:
        """Given a client, at most ``batch_size`` records and the fetch time, return fresh
        values by appid and the apps that need a per-game call. Raises as the client does,
        ValueError/KeyError/TypeError on a malformed answer."""
        ...


@dataclass(frozen=True)
class Endpoints:
    """Base URLs of the live sources by :data:`Role` (tests point them at a local server)."""

    store: str = "https://store.steampowered.com"
    steam_api: str = "https://api.steampowered.com"
    steamspy: str = "https://steamspy.com"
    hltb: str = "https://howlongtobeat.com"
    itad: str = "https://api.isthereanydeal.com"
    pcgw: str = "https://www.pcgamingwiki.com"
    hltb_search_path: str = "/api/search"

    def url(self, role: Role) -> str:
        """Given a role, return its base URL."""
        url: str = getattr(self, role)
        return url


# Requests per window each host tolerates, by the role that reaches it (see the module's
# docstring for where each figure comes from).
ROLE_LIMITS: Final[Mapping[Role, RateLimit]] = {
    "store": RateLimit(200, 300.0),
    "steam_api": RateLimit(60, 60.0),
    "steamspy": RateLimit(1, 1.0),
    "hltb": RateLimit(1, 2.0),
    "itad": RateLimit(60, 60.0),
    "pcgw": RateLimit(1, 1.0),
}
DEFAULT_HOST_LIMIT: Final = RateLimit(60, 60.0)


def host_of(url: str) -> str:
    """Given a base URL, return its host name without the port (``store.steampowered.com``)."""
    return (urlsplit(url).hostname or url).lower()


# The limits by host of the default endpoints: what the HTTP client's buckets are keyed by.
DEFAULT_RATE_LIMITS: Final[Mapping[str, RateLimit]] = {
    host_of(Endpoints().url(role)): limit for role, limit in ROLE_LIMITS.items()
}


@dataclass(frozen=True)
class AdapterContext:
    """What making an adapter may need: the endpoints, today (review samples are dated), the
    reviews sampled per paid game, and the IsThereAnyDeal key (None: that source is skipped)."""

    endpoints: Endpoints
    today: dt.date
    review_depth: int = 500
    itad_api_key: str | None = None


@dataclass(frozen=True)
class AdapterRow:
    """One live source in the registry.

    ``role``: the endpoint it asks (its host's rate limit is :data:`ROLE_LIMITS` of that role).
    ``batch_size``: games per call of a batched adapter, None for a per-game one.
    ``calls_per_pass``: the fewest requests a full pass over ``games`` games takes (the plan's
    figure). ``observes``: the record fields its answers fill. ``make``: the adapter, or None
    when it is not configured.
    """

    name: AdapterName
    role: Role
    cycle: Cycle
    batch_size: int | None
    calls_per_pass: Callable[[int], int]
    observes: tuple[str, ...]
    make: Callable[[AdapterContext], Adapter | BatchAdapter | None]


def _batches(size: int, calls: int = 1, extra: int = 0) -> Callable[[int], int]:
    # ``calls`` requests per batch of ``size`` games, plus ``extra`` once a pass.
    return lambda games: calls * -(-games // size) + extra


def _per_game(games: int) -> int:
    return games


def _itad(context: AdapterContext) -> ItadAdapter | None:
    key = context.itad_api_key
    return ItadAdapter(context.endpoints.itad, key) if key else None


ADAPTERS: Final[tuple[AdapterRow, ...]] = (
    # GetItems: prices, review summaries, tags, release and content data, 100 apps a call, and
    # one tag-name list a pass.
    AdapterRow(
        "store_items",
        "steam_api",
        "nightly",
        BATCH_SIZE,
        _batches(BATCH_SIZE, extra=1),
        (
            "name",
            "price_usd",
            "list_price_usd",
            "discount_percent",
            "review_score",
            "review_count",
            "tags",
            "release_date",
        ),
        lambda c: StoreItemsAdapter(c.endpoints.steam_api),
    ),
    # appdetails, only for the apps the batch leaves out or flags as changed.
    AdapterRow(
        "storefront",
        "store",
        "nightly",
        None,
        lambda games: 0,
        (
            "name",
            "app_type",
            "price_usd",
            "list_price_usd",
            "discount_percent",
            "developer",
            "publisher",
            "metacritic",
            "release_date",
            "storefront_genres",
            "categories",
            "review_score",
            "review_count",
            "tags",
        ),
        lambda c: StorefrontAdapter(c.endpoints.store, c.endpoints.steam_api),
    ),
    AdapterRow(
        "reviews",
        "store",
        "slow",
        None,
        _per_game,
        ("reviews",),
        lambda c: ReviewsAdapter(c.endpoints.store, c.review_depth, c.today),
    ),
    AdapterRow(
        "steamspy",
        "steamspy",
        "slow",
        None,
        _per_game,
        ("owners_range", "median_playtime_hours"),
        lambda c: SteamSpyAdapter(c.endpoints.steamspy),
    ),
    AdapterRow(
        "achievements",
        "steam_api",
        "slow",
        None,
        _per_game,
        ("finish_rate",),
        lambda c: AchievementsAdapter(c.endpoints.steam_api),
    ),
    AdapterRow(
        "hltb",
        "hltb",
        "slow",
        None,
        _per_game,
        ("main_story_hours", "completionist_hours"),
        lambda c: HltbAdapter(c.endpoints.hltb, c.endpoints.hltb_search_path),
    ),
    # The id lookup and the historical lows: two calls per 200 games.
    AdapterRow(
        "itad",
        "itad",
        "nightly",
        ITAD_BATCH,
        _batches(ITAD_BATCH, calls=2),
        ("historical_low_usd",),
        _itad,
    ),
    AdapterRow(
        "pcgw",
        "pcgw",
        "slow",
        None,
        _per_game,
        ("developer", "publisher", "release_date"),
        lambda c: PcgwAdapter(c.endpoints.pcgw),
    ),
)

# Every adapter's name, in the order a refresh runs them.
ADAPTER_NAMES: Final[tuple[AdapterName, ...]] = tuple(row.name for row in ADAPTERS)
