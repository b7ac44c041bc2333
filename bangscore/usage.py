"""The operators' abuse report (docs/API.md#terms-of-use, term 4: several keys used to get
around the rate limit).

An account is reported for a UTC day when two or more of its keys were used that day and their
counts together exceed one key's plan limit: the largest daily limit among the keys it used,
so an account mixing a pro key and free keys is held to the pro limit. Revoked keys count
too: what they served that day was served.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bangscore.shim.keystore import KeyView


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
