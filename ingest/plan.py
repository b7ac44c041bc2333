"""``bangscore ingest --dry-run``: the requests a full refresh of a catalogue needs, per host,
and the least wall time the configured rate limits allow, with nothing sent.

Pure arithmetic over the catalogue's size and each adapter's calls (its module docstring
names the endpoints): the nightly refresh (prices and review summaries, batched) and the
slower per-game cycle (review samples, player statistics, achievements, play lengths, wiki).
The least wall time of ``n`` requests to a host limited to ``r`` requests per ``s`` seconds
with a full bucket of ``r`` is ``max(0, n - r) * s / r``: the burst goes at once, the rest at
the refill rate (:class:`ingest.http.TokenBucket`); hosts are asked in turn (one client, one
thread), so a plan's time is the sum over its hosts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

from bangscore.ingest.http import RateLimit
from bangscore.ingest.itad import ITAD_BATCH
from bangscore.ingest.store_items import BATCH_SIZE

__all__ = ["Cycle", "HostPlan", "Plan", "least_seconds", "plan_refresh"]

Cycle = Literal["nightly", "slow"]

# Requests per game of each per-game adapter in a full pass (the fewest: one page of reviews,
# one achievements call; a game with more pages or a fallback call takes more).
_PER_GAME: Final[Mapping[str, tuple[str, int]]] = {
    "reviews": ("store", 1),
    "steamspy": ("steamspy", 1),
    "achievements": ("steam_api", 1),
    "hltb": ("hltb", 1),
    "pcgw": ("pcgw", 1),
}


_TITLES: Final[tuple[tuple[Cycle, str], ...]] = (
    ("nightly", "nightly (prices and review summaries, batched)"),
    ("slow", "slow cycle (per game: review samples, player stats, lengths, wiki)"),
)


def least_seconds(requests: int, limit: RateLimit) -> float:
    """Given a number of requests and a host's limit, return the least seconds they take:
    the burst at once, the rest at the refill rate."""
    return max(0, requests - limit.requests) / limit.rate


@dataclass(frozen=True)
class HostPlan:
    """One adapter's requests to one host in a plan, and the least seconds they take."""

    cycle: Cycle
    adapter: str
    host: str
    requests: int
    limit: RateLimit

    @property
    def seconds(self) -> float:
        """Given the plan, return the least seconds at its host's limit."""
        return least_seconds(self.requests, self.limit)


@dataclass(frozen=True)
class Plan:
    """A refresh plan: the games it covers and every (adapter, host) line."""

    games: int
    lines: tuple[HostPlan, ...]

    def seconds(self, cycle: Cycle) -> float:
        """Given a cycle, return its least wall time in seconds: per host, the time of all its
        requests of that cycle at its limit (adapters share a host's bucket), summed."""
        by_host: dict[str, tuple[int, RateLimit]] = {}
        for line in self.lines:
            if line.cycle == cycle:
                count, _ = by_host.get(line.host, (0, line.limit))
                by_host[line.host] = (count + line.requests, line.limit)
        return sum(least_seconds(count, limit) for count, limit in by_host.values())

    def render(self) -> str:
        """Given the plan, return the lines ``bangscore ingest --dry-run`` prints."""
        out = [f"dry run: nothing sent; a full refresh of {self.games:,} rated games"]
        for cycle, title in _TITLES:
            out.append(f"{title}:")
            for line in (line for line in self.lines if line.cycle == cycle):
                limit = f"{line.limit.requests}/{line.limit.per_seconds:g} s"
                out.append(
                    f"  {line.host:<26} {line.adapter:<12} {line.requests:>8,} requests"
                    f"  limit {limit:<10} least {_duration(line.seconds)}"
                )
            out.append(f"  least wall time: {_duration(self.seconds(cycle))}")
        out.append(
            "  (plus 3 per-game requests for each app the batch flags as changed: "
            "appdetails, appreviews, GetItems)"
        )
        return "\n".join(out)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(math.ceil(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min {secs:02d} s" if hours else f"{minutes} min {secs:02d} s"


def plan_refresh(
    games: int,
    hosts: Mapping[str, str],
    rate_limits: Mapping[str, RateLimit],
    default_limit: RateLimit,
    *,
    itad: bool,
    app_list: bool = False,
) -> Plan:
    """Given a number of rated games, each source's base URL by role (``store``,
    ``steam_api``, ``steamspy``, ``hltb``, ``itad``, ``pcgw``), the per-host limits and the
    default one, and whether IsThereAnyDeal is configured, return the plan of a full refresh.

    Nightly: ``ceil(games / 100)`` GetItems calls and one tag list on the Web API host; with
    ITAD, two calls (id lookup, historical lows) per 200 games; with a Steam Web API key, one
    page of the store's changed apps (50,000 a page). Slow cycle: the per-game adapters' fewest
    calls per game (:data:`_PER_GAME`)."""

    def line(cycle: Cycle, adapter: str, role: str, requests: int) -> HostPlan:
        host = urlsplit(hosts[role]).netloc or hosts[role]
        return HostPlan(
            cycle, adapter, host, requests, rate_limits.get(host.split(":")[0], default_limit)
        )

    lines = [line("nightly", "store_items", "steam_api", math.ceil(games / BATCH_SIZE) + 1)]
    if app_list:
        lines.append(line("nightly", "app_list", "steam_api", 1))
    if itad:
        lines.append(line("nightly", "itad", "itad", 2 * math.ceil(games / ITAD_BATCH)))
    lines += [
        line("slow", adapter, role, per_game * games)
        for adapter, (role, per_game) in _PER_GAME.items()
    ]
    return Plan(games, tuple(lines))
