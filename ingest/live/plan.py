"""``bangscore ingest --dry-run``: the requests a full refresh of a catalogue needs, per host,
and the least wall time the configured rate limits allow, with nothing sent.

Pure arithmetic over the catalogue's size and each adapter's calls (its module docstring
names the endpoints): the nightly refresh (prices and review summaries, batched) and the
slower per-game cycle (review samples, player statistics, achievements, play lengths, wiki).
The least wall time of ``n`` requests to a host limited to ``r`` requests per ``s`` seconds
with a full bucket of ``r`` is ``max(0, n - r) * s / r``: the burst goes at once, the rest at
the refill rate (:class:`ingest.live.http.TokenBucket`); hosts are asked in turn (one client, one
thread), so a plan's time is the sum over its hosts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bangscore.ingest.live.adapters import ADAPTERS, Cycle, Endpoints, Role, host_of
from bangscore.ingest.live.http import RateLimit

__all__ = ["HostPlan", "Plan", "least_seconds", "plan_refresh"]


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
    endpoints: Endpoints,
    rate_limits: Mapping[str, RateLimit],
    default_limit: RateLimit,
    *,
    itad: bool,
    app_list: bool = False,
) -> Plan:
    """Given a number of rated games, the sources' endpoints, the per-host limits and the
    default one, and whether IsThereAnyDeal is configured, return the plan of a full refresh.

    Each adapter of the registry (:data:`ingest.live.adapters.ADAPTERS`) asks its row's fewest
    calls for a full pass (``calls_per_pass``) of its row's host: nightly, ``ceil(games /
    100)`` GetItems calls and one tag list on the Web API host, and with ITAD two calls (id
    lookup, historical lows) per 200 games; with a Steam Web API key, one page of the store's
    changed apps (50,000 a page); the slow cycle, one call per game of each per-game adapter.
    An adapter with no calls in a full pass (appdetails, asked only for changed apps) has no
    line."""

    def line(cycle: Cycle, adapter: str, role: Role, requests: int) -> HostPlan:
        host = host_of(endpoints.url(role))
        return HostPlan(cycle, adapter, host, requests, rate_limits.get(host, default_limit))

    lines = []
    for row in ADAPTERS:
        requests = row.calls_per_pass(games)
        if requests == 0 or (row.name == "itad" and not itad):
            continue
        lines.append(line(row.cycle, row.name, row.role, requests))
        if row.name == "store_items" and app_list:
            lines.append(line("nightly", "app_list", "steam_api", 1))
    order = {cycle: n for n, (cycle, _) in enumerate(_TITLES)}
    return Plan(games, tuple(sorted(lines, key=lambda line: order[line.cycle])))
