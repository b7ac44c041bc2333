"""Account credentials (docs/API.md#website): which passwords the account site accepts, and a
per-process gate on password hashing. (Emails: :mod:`bangscore.stores.addresses`.)

Passwords must hold
:data:`MIN_PASSWORD` to :data:`MAX_PASSWORD` characters, not be blank, not contain the email
or its local part, and not be guessable by ``zxcvbn`` (its score below
:data:`MIN_STRENGTH`: common passwords, those in its breach-derived lists, keyboard walks,
dates, repeats). Argon2id hashing takes 64 MiB and tens of milliseconds per call, so at most
:data:`HASHING_SLOTS` run at once per process and at most :data:`HASHING_QUEUE` wait; past
that a request is refused (:class:`HashingBusy`) rather than queued without bound.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from argon2 import PasswordHasher
from zxcvbn import zxcvbn

from bangscore.errors import HashingBusy

MIN_PASSWORD = 10
MAX_PASSWORD = 1024  # argon2 takes any length; a bound keeps form bodies small
STRENGTH_CHARS = 72  # zxcvbn's cost grows with length; a longer password is judged by its start
MIN_STRENGTH = 2  # zxcvbn score 0-4; below 2 it is guessed within about a million tries
HASHING_SLOTS = 1
HASHING_QUEUE = 32

T = TypeVar("T")

# Each costs argon2's whole time (about 0.1 s at its defaults), and every app a process builds
# wants one: a test session builds hundreds, each of `serve`'s workers one.
_DUMMY_HASHES: dict[tuple[object, ...], str] = {}


def dummy_hash(hasher: PasswordHasher) -> str:
    """Given a hasher, return a hash of a random secret under its parameters, made once per
    process and parameter set: sign-in verifies against it when the email is unknown, so an
    unknown email costs the time a known one does."""
    key = (
        hasher.time_cost,
        hasher.memory_cost,
        hasher.parallelism,
        hasher.hash_len,
        hasher.salt_len,
        hasher.type,
    )
    if key not in _DUMMY_HASHES:
        _DUMMY_HASHES.setdefault(key, hasher.hash(secrets.token_urlsafe(16)))
    return _DUMMY_HASHES[key]


def password_problem(password: str, email: str) -> str | None:
    """Given a chosen password and the account's email, return why it is refused (a sentence
    for the sign-up form), or None if it is acceptable."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"Choose a password of {MIN_PASSWORD} to {MAX_PASSWORD:,} characters."
    if not password.strip():
        return "A password cannot be only spaces."
    folded, local = password.casefold(), email.split("@", 1)[0].casefold()
    if email.casefold() in folded or (len(local) >= 4 and local in folded):
        return "A password cannot contain your email address."
    result = zxcvbn(password[:STRENGTH_CHARS], user_inputs=[email, local])
    if int(result["score"]) < MIN_STRENGTH:
        return (
            "This password is too common or too easy to guess (it appears in lists of "
            "leaked passwords, or is a pattern such as a word with digits); choose a longer "
            "phrase of unrelated words."
        )
    return None


class HashingGate:
    """Runs password hashing and checks in a worker thread, :data:`HASHING_SLOTS` at a time."""

    def __init__(self, slots: int = HASHING_SLOTS, queue: int = HASHING_QUEUE) -> None:
        self.limiter = anyio.CapacityLimiter(slots)
        self.queue = queue

    async def run(self, work: Callable[[], T]) -> T:
        """Given a call, return its result, run in a thread under the gate. Raises HashingBusy
        if too many calls already wait."""
        if self.limiter.statistics().tasks_waiting >= self.queue:
            raise HashingBusy
        return await anyio.to_thread.run_sync(work, limiter=self.limiter)
