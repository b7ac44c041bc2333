"""What the Redis counter (:mod:`bangscore.stores.redis_counter`) keeps of one subject-day:
this replica's lease of its daily quota, and the counts it sends to the subject-day's hash;
the two Lua scripts that lease and count there.

Plain records, changed only under the counter's lock.

Counted once: Redis may apply a flush and die before its answer arrives, so a failed round
trip says nothing about whether the counts landed. Each count sent (a flush's entry, an
``add``) carries this counter's id and a growing sequence number, applied only past the last one
applied from this counter for that subject-day (the hash's ``seq:<store id>``); a failed entry
is sent again as it was, before anything newer (an ``add`` waits behind it). Sends are
serialized within a counter, so its numbers reach each hash in order.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any, NamedTuple

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


class LeaseBook:
    """One counter's leases by subject-day, under its ``lock``, and the sequence numbers of
    the counts it sends (:mod:`bangscore.stores.redis_counter`'s "counted once")."""

    def __init__(self) -> None:
        self.leases: dict[tuple[str, dt.date], Lease] = {}
        self.lock = threading.Lock()
        self._sequence = itertools.count(1)

    def number(self) -> int:
        """Return the next sequence number of a count sent (growing from 1)."""
        return next(self._sequence)

    def take_batch(self, release_all: bool, now: float, idle: float) -> list[Sent]:
        """Take, under the lock, what a flush sends: per subject-day the spent count taken
        and its entries (resends first), releasing idle (or every) unspent block; forget the
        leases left empty and stale."""
        batch: list[Sent] = []
        with self.lock:
            latest = max((day for _, day in self.leases), default=None)
            for (subject, day), lease in list(self.leases.items()):
                stale = day != latest or now - lease.touched > idle
                release = lease.left if (release_all or stale or lease.want) else 0
                # A held block is reported too, so that a `want` mark reaches this replica.
                if lease.unflushed or release or lease.left:
                    batch.append((subject, day, lease.unflushed, self._entries(lease, release)))
                    lease.in_flight += lease.unflushed
                    lease.unflushed = 0
                    lease.resend = []
                    lease.left -= release
                if stale and lease.left == 0 and lease.unflushed == 0:
                    del self.leases[(subject, day)]
        return batch

    def _entries(self, lease: Lease, release: int) -> list[CountSent]:
        """Given a lease and the block it gives back, return the counts to send: its resends,
        then a new count for what they do not carry (always one when there is no resend)."""
        fresh = lease.unflushed - sum(c.spent for c in lease.resend)
        if fresh or release or not lease.resend:
            return [*lease.resend, CountSent(self.number(), fresh, -release, lease.last_at)]
        return lease.resend

    def put_back(self, batch: list[Sent]) -> None:
        """Put a failed flush's counts back, with the entries that carried them: sent again as
        they were, a released block included, they count once whether or not they landed."""
        with self.lock:
            for subject, day, spent, entries in batch:
                lease = self.leases.setdefault((subject, day), Lease())
                lease.in_flight = max(0, lease.in_flight - spent)
                lease.unflushed += spent
                lease.resend = entries + lease.resend
                lease.last_at = max(lease.last_at, *(c.last_at for c in entries))

    def note_wants(self, batch: list[Sent], answers: list[Any]) -> bool:
        """Given a sent batch and its answers (one per entry: the subject-day is marked
        `want`), mark the leases whose block must go back; return True if one holds a block."""
        wanted = False
        with self.lock:
            wants = iter(answers)
            for subject, day, spent, entries in batch:
                want = max(int(next(wants)) for _ in entries)
                held = self.leases.get((subject, day))
                if held is not None:
                    held.in_flight = max(0, held.in_flight - spent)
                if held is not None and want and not held.want:
                    held.want = True
                    wanted = wanted or held.left > 0
        return wanted

    def keep(self, subject: str, day: dt.date, count: CountSent, now: float) -> None:
        """Given a subject-day and an add's count, keep it for the next flush, after the
        entries already waiting there."""
        with self.lock:
            lease = self.leases.setdefault((subject, day), Lease())
            lease.unflushed += count.spent
            lease.resend.append(count)
            lease.last_at = max(lease.last_at, count.last_at)
            lease.touched = now


# KEYS: counter hash. ARGV: limit, divisor (2 * replicas), max block, seconds left to keep.
# Returns {granted, leased total after the grant, spent}; granted 0 means the limit is reached.
# A refusal marks the subject-day `want`: from then on every replica gives its unspent block
# back at its next flush and leases one request at a time, so the day ends exactly at the
# limit instead of with blocks parked on replicas the client's balancer does not pick.
LEASE = """
local limit = tonumber(ARGV[1])
local leased = tonumber(redis.call('HGET', KEYS[1], 'leased') or '0')
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
if leased >= limit then
  redis.call('HSET', KEYS[1], 'want', 1)
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
  return {0, leased, spent}
end
local block = math.floor((limit - leased) / tonumber(ARGV[2]))
block = math.max(1, math.min(block, tonumber(ARGV[3])))
if redis.call('HEXISTS', KEYS[1], 'want') == 1 then block = 1 end
leased = redis.call('HINCRBY', KEYS[1], 'leased', block)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return {block, leased, spent}
"""

# KEYS: counter hash, last-use key. ARGV: spent delta, leased delta, now, seconds left to keep,
# sequence number, the store's field (seq:<store id>). Returns 1 if the subject-day is marked
# `want` (a replica was refused: give blocks back). A number this store already applied to the
# hash (a resend of an entry that landed while its answer was lost) changes nothing.
FLUSH = """
local seen = ARGV[6]
if tonumber(redis.call('HGET', KEYS[1], seen) or '0') >= tonumber(ARGV[5]) then
  return redis.call('HEXISTS', KEYS[1], 'want')
end
redis.call('HSET', KEYS[1], seen, ARGV[5])
local spent = tonumber(ARGV[1])
local leased = tonumber(ARGV[2])
if spent ~= 0 then redis.call('HINCRBY', KEYS[1], 'spent', spent) end
if leased ~= 0 then redis.call('HINCRBY', KEYS[1], 'leased', leased) end
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
if spent > 0 then
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  if tonumber(ARGV[3]) > last then
    redis.call('SET', KEYS[2], ARGV[3])
    redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
  end
end
return redis.call('HEXISTS', KEYS[1], 'want')
"""
