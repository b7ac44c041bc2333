"""Sign-in throttling and the account site's rate limits (docs/API.md#website), for
:class:`~bangscore.shim.account.accounts.AccountSite`: failed sign-ins are counted per
(account, client IP) and per client IP in the accounts store (so every replica sees them);
sign-up limits are counted in buckets on the counter. Every store fault fails open: the
password check still guards.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from bangscore.errors import StoreUnavailable
from bangscore.shim.quota import window_at
from bangscore.stores.keystore import AccountStore, Counter

BUCKET_SECONDS = 900


@dataclass(frozen=True, slots=True)
class SignInLimits:
    """Sign-in throttling and the sign-up limit.

    ``free_per_account_client`` failed sign-ins of one account from one client IP, and
    ``free_per_client`` from one client IP over all accounts, wait for nothing; each failure
    past them makes the next attempt wait ``2 ** (failures - free)`` seconds, at most
    ``max_delay``. Failures are forgotten ``forget_after`` seconds after the last one.
    ``signups_per_ip`` sign-ups are allowed per client IP per hour, and
    ``signups_per_ip_day`` per UTC day.
    """

    free_per_account_client: int = 3
    free_per_client: int = 10
    max_delay: int = 900
    forget_after: int = 3600
    signups_per_ip: int = 3
    signups_per_ip_day: int = 10

    def delay(self, failures: int, free: int) -> int:
        """Given a subject's failures and its free attempts, return the seconds the next
        attempt must wait after the last failure."""
        if failures < free:
            return 0
        return min(self.max_delay, 1 << min(failures - free, 20))


class SignInThrottle:
    """The sign-in failures in ``accounts`` and the rate limits on ``counter``, under
    ``limits``, on ``clock`` (Unix seconds)."""

    def __init__(
        self,
        accounts: AccountStore,
        counter: Counter,
        limits: SignInLimits,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.accounts, self.counter, self.limits, self.clock = accounts, counter, limits, clock

    def allowed(self, subject: str, limit: int, bucket_seconds: int = BUCKET_SECONDS) -> bool:
        """Given a rate-limit subject and its limit per bucket, count one attempt; True if
        under the limit. A store fault fails open (the password check still guards)."""
        now = self.clock()
        bucket = int(now) // bucket_seconds
        try:
            hit = self.counter.hit(f"{subject}:{bucket}", window_at(now).day, limit, int(now))
        except StoreUnavailable:
            return True
        return hit.admitted

    def wait(self, email: str, ip: str) -> int:
        """Given an email and a client IP, return the seconds that client must still wait
        before its next sign-in attempt (0: go ahead). A store fault fails open."""
        now = int(self.clock())
        limits = self.limits
        try:
            pair = self.accounts.failures(f"signin:pair:{email}:{ip}", now)
            client = self.accounts.failures(f"signin:ip:{ip}", now)
        except StoreUnavailable:
            return 0
        ready = max(
            pair.last_at + limits.delay(pair.count, limits.free_per_account_client),
            client.last_at + limits.delay(client.count, limits.free_per_client),
        )
        return max(0, ready - now)

    def reserve(self, email: str, ip: str) -> int:
        """Given an email and a client IP allowed to try now, reserve the attempt: count it
        as a failure of the pair before any password is checked (a success forgives it).
        Return the seconds to wait instead if attempts raced past the free allowance: of N
        concurrent attempts, only those within the free ones go on. A store fault fails open."""
        now, limits = int(self.clock()), self.limits
        subject = f"signin:pair:{email}:{ip}"
        try:
            before = self.accounts.failures(subject, now)
            reserved = self.accounts.fail(subject, now, limits.forget_after)
        except StoreUnavailable:
            return 0
        raced = reserved.count - 1 > before.count
        wait = limits.delay(reserved.count - 1, limits.free_per_account_client)
        return wait if raced and wait > 0 else 0

    def failed(self, email: str, ip: str) -> None:
        """Given the email and client IP of a failed sign-in, count it for the client IP (the
        pair's failure was counted when the attempt was reserved)."""
        now, forget = int(self.clock()), self.limits.forget_after
        with contextlib.suppress(StoreUnavailable):  # fail open: the password still guards
            self.accounts.fail(f"signin:ip:{ip}", now, forget)


DEFAULT_LIMITS = SignInLimits()
