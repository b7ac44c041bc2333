"""What the Redis key store (:mod:`bangscore.stores.redis_store`) keeps of one subject-day:
this replica's lease of its daily quota, and the counts it sends to the subject-day's hash.

Plain records, changed only under the store's lock.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import NamedTuple

from bangscore.stores.keystore import RefusalKind


class CountSent(NamedTuple):
    """One count sent to a subject-day's hash: this store's sequence number, the spent and
    leased deltas and the last use (Unix seconds)."""

    sequence: int
    spent: int
    leased: int
    last_at: int


@dataclass
class Lease:
    """This replica's share of one subject-day: unspent block, last leased total, the count
    the headers show (Redis's spent at the last lease plus what was admitted here since),
    whether blocks must go back, unflushed count, last use, and the refusal remembered (no
    round trip)."""

    left: int = 0
    leased_total: int = 0
    spent_seen: int = 0  # Redis's spent count at the last lease answer
    local: int = 0  # requests admitted here that spent_seen does not hold
    want: bool = False  # another replica was refused: give unspent blocks back at each flush
    unflushed: int = 0
    in_flight: int = 0  # taken by a flush whose round trip has not returned
    # Counts whose round trip failed, sent again as they were. Their spent deltas are part
    # of `unflushed`.
    resend: list[CountSent] = field(default_factory=list)

    def unsent(self, seen: int) -> int:
        """Given the last sequence number Redis applied from this store to the subject-day's
        hash, return the unflushed count less what resent entries already landed."""
        return self.unflushed - sum(c.spent for c in self.resend if c.sequence <= seen)

    last_at: int = 0
    touched: float = 0.0
    refused_until: float = 0.0  # a pending or brief refusal is answered locally until then
    refusal: RefusalKind = "pending"  # which of the two
    final_at: int = 0  # the limit a final refusal was found at: any limit up to it is refused


# What a flush sends for one subject-day: subject, day, the spent count taken, its entries.
Sent = tuple[str, dt.date, int, list[CountSent]]
