"""The operators' abuse report (docs/API.md#terms-of-use, term 4: several keys used to get
around the rate limit).

An account is reported for a UTC day when two or more of its keys were used that day and their
counts together exceed one key's plan limit: the largest daily limit among the keys it used,
so an account mixing a pro key and free keys is held to the pro limit. Revoked keys count
too: what they served that day was served.

Several accounts made from one network dodge the per-account grouping, so the report also
groups by the network each account signed up from (:func:`network_report`): a network is
reported when two or more of its accounts used keys that day and together exceeded one key's
limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bangscore.stores.keystore import KeyView


@dataclass(frozen=True, slots=True)
class AccountUsage:
    """One reported account: its keys used that day as (key id, count), their total, and
    the one-key limit it went past (requests per day)."""

    account: str
    keys: tuple[tuple[str, int], ...]
    total: int
    limit: int

    @property
    def excess(self) -> int:
        """Return how many requests the account made beyond one key's limit."""
        return self.total - self.limit


def abuse_report(views: Sequence[KeyView]) -> list[AccountUsage]:
    """Given every key's view for one day (``KeyStore.list_keys(day)``), return the accounts
    whose keys together exceed one key's plan limit, largest excess first (then by email).
    """
    by_account: dict[str, list[KeyView]] = {}
    for view in views:
        if view.today > 0:
            by_account.setdefault(view.record.account, []).append(view)
    report = []
    for account, used in by_account.items():
        if len(used) < 2:
            continue
        total = sum(v.today for v in used)
        limit = max(v.record.daily_limit for v in used)
        if total > limit:
            keys = tuple((v.record.key_id, v.today) for v in used)
            report.append(AccountUsage(account, keys, total, limit))
    return sorted(report, key=lambda u: (-u.excess, u.account))


def format_report(report: Sequence[AccountUsage], day: str) -> str:
    """Given a report and its day (YYYY-MM-DD), return it as a plain-text table."""
    if not report:
        return f"{day}: no account's keys together exceed one key's limit\n"
    lines = [
        f"{day}: {len(report)} account(s) over one key's limit with several keys",
        f"{'account':<32} {'keys':>4} {'total':>8} {'limit':>8} {'excess':>8}  key counts",
    ]
    for u in report:
        counts = ", ".join(f"{k}={n}" for k, n in u.keys)
        lines.append(
            f"{u.account:<32} {len(u.keys):>4} {u.total:>8} {u.limit:>8} {u.excess:>8}  {counts}"
        )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class NetworkUsage:
    """One reported sign-up network: its accounts used that day as (email, count), their
    total, and the one-key limit it went past (requests per day)."""

    network: str
    accounts: tuple[tuple[str, int], ...]
    total: int
    limit: int

    @property
    def excess(self) -> int:
        """Return how many requests the network's accounts made beyond one key's limit."""
        return self.total - self.limit


def network_report(views: Sequence[KeyView], networks: dict[str, str]) -> list[NetworkUsage]:
    """Given every key's view for one day and each account's sign-up network (email ->
    network; accounts without one are left out), return the networks whose accounts, two or
    more, together exceed one key's plan limit, largest excess first (then by network)."""
    by_network: dict[str, dict[str, int]] = {}
    limits: dict[str, int] = {}
    for view in views:
        network = networks.get(view.record.account, "")
        if view.today <= 0 or not network:
            continue
        counts = by_network.setdefault(network, {})
        counts[view.record.account] = counts.get(view.record.account, 0) + view.today
        limits[network] = max(limits.get(network, 0), view.record.daily_limit)
    report = []
    for network, counts in by_network.items():
        total = sum(counts.values())
        if len(counts) >= 2 and total > limits[network]:
            used = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
            report.append(NetworkUsage(network, used, total, limits[network]))
    return sorted(report, key=lambda u: (-u.excess, u.network))


def format_network_report(report: Sequence[NetworkUsage], day: str) -> str:
    """Given a network report and its day (YYYY-MM-DD), return it as a plain-text table."""
    if not report:
        return f"{day}: no sign-up network's accounts together exceed one key's limit\n"
    lines = [
        f"{day}: {len(report)} sign-up network(s) over one key's limit with several accounts",
        f"{'network':<24} {'accts':>5} {'total':>8} {'limit':>8} {'excess':>8}  account counts",
    ]
    for u in report:
        counts = ", ".join(f"{a}={n}" for a, n in u.accounts)
        lines.append(
            f"{u.network:<24} {len(u.accounts):>5} {u.total:>8} {u.limit:>8} {u.excess:>8}  "
            f"{counts}"
        )
    return "\n".join(lines) + "\n"
