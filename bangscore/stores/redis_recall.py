"""Recalling leases at once: how a replica refused a lease asks every other to give back.

A replica of :class:`~bangscore.stores.redis_counter.RedisCounter` refused a lease while some
other replica may still hold an unspent block or unflushed counts of that subject-day starts a
*round*: it PUBLISHes ``<token> <day> <subject>`` on ``bs:recall:<db>`` (a channel is shared by
every database of a server, hence the number). Every store listens on it in its background
thread (the one that flushes); given a round it flushes its counts and gives back its block of
that subject-day in one round trip, then PUBLISHes the token on ``bs:recalled:<db>``. The
asker counts those answers against the number of listeners PUBLISH reached (itself included:
its own counts land too) and wakes when all have answered, or at the round's deadline (a
listener that died meanwhile). Askers of one subject-day join the round in flight instead of
starting another, so a burst of refused requests costs one round.

The listener is redis-py's :class:`redis.client.PubSub`, read with a timeout that is also the
flush period's, so one thread serves both; with Redis down it waits a period and subscribes
anew, a connect attempt a period at most.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.client import PubSub

from bangscore.errors import StoreUnavailable

log = logging.getLogger("bangscore.redis_counter")


@dataclass
class Round:
    """One recall: its token, its deadline (monotonic seconds), how many listeners PUBLISH
    reached (None until it returned), how many answered, and the event set when all have."""

    token: str
    until: float
    expected: int | None = None
    answers: int = 0
    done: threading.Event = field(default_factory=threading.Event)

    def wait(self, deadline: float) -> None:
        """Given a deadline (monotonic seconds), block until every listener answered, or the
        round's own deadline or that one passed."""
        self.done.wait(max(0.0, min(self.until, deadline) - time.monotonic()))


class Recalls:
    """The rounds of one store: ``give_back(subject, day)`` is what this store does when asked
    (flush and release; StoreUnavailable: no answer), ``publish(channel, message)`` sends
    one message through the store's breaker and returns how many listeners got it, and
    ``seconds`` bounds a round."""

    def __init__(
        self,
        client: redis.Redis,
        give_back: Callable[[str, dt.date], None],
        publish: Callable[[str, str], int],
        seconds: float,
    ) -> None:
        self.client = client
        db = client.connection_pool.connection_kwargs.get("db", 0)
        self.ask_channel, self.answer_channel = f"bs:recall:{db}", f"bs:recalled:{db}"
        self.give_back = give_back
        self.publish = publish
        self.seconds = seconds
        self._rounds: dict[str, tuple[tuple[str, dt.date], Round]] = {}
        self._current: dict[tuple[str, dt.date], Round] = {}
        self._lock = threading.Lock()
        self.subscribed = threading.Event()

    def ask(self, subject: str, day: dt.date) -> Round:
        """Given a subject-day, return the round in flight for it, or start one (one PUBLISH).

        Raises StoreUnavailable if the round could not be published.
        """
        at, now = (subject, day), time.monotonic()
        with self._lock:
            held = self._current.get(at)
            if held is not None and not held.done.is_set() and now < held.until:
                return held
            for token in [t for t, (_, r) in self._rounds.items() if r.until <= now]:
                self._finish(token)  # unanswered (a listener died): forgotten, not kept
            round_ = Round(secrets.token_hex(8), now + self.seconds)
            self._current[at] = round_
            self._rounds[round_.token] = (at, round_)
        try:
            reached = self.publish(self.ask_channel, f"{round_.token} {day.isoformat()} {subject}")
        except StoreUnavailable:
            with self._lock:
                self._finish(round_.token)
            raise
        with self._lock:
            round_.expected = reached
            if round_.answers >= reached:
                self._finish(round_.token)
        return round_

    def _finish(self, token: str) -> None:
        """Under the lock: wake a round's askers and forget it."""
        at, round_ = self._rounds.pop(token, (None, None))
        if round_ is None or at is None:
            return
        round_.done.set()
        if self._current.get(at) is round_:
            del self._current[at]

    def _answered(self, token: str) -> None:
        with self._lock:
            found = self._rounds.get(token)
            if found is None:
                return  # another replica's round, or one past its deadline
            round_ = found[1]
            round_.answers += 1
            if round_.expected is not None and round_.answers >= round_.expected:
                self._finish(token)

    def _asked(self, message: str) -> None:
        token, day, subject = message.split(" ", 2)
        try:
            self.give_back(subject, dt.date.fromisoformat(day))
            self.publish(self.answer_channel, token)
        except StoreUnavailable:
            pass  # unanswered: the asker wakes at its deadline and refuses for a moment

    def _subscribe(self) -> PubSub:
        pubsub: PubSub = self.client.pubsub(  # type: ignore[no-untyped-call]
            ignore_subscribe_messages=True
        )
        try:
            pubsub.subscribe(self.ask_channel, self.answer_channel)
        except BaseException:
            pubsub.close()
            raise
        self.subscribed.set()
        return pubsub

    def _read(self, pubsub: PubSub, timeout: float) -> None:
        message: dict[str, Any] | None = pubsub.get_message(timeout=timeout)
        if message is None or message.get("type") != "message":
            return
        data = str(message["data"])
        (self._asked if message["channel"] == self.ask_channel else self._answered)(data)

    def wake(self) -> None:
        """Wake a listener from its read (an answer no round has), so that it sees a stop at
        once; if Redis is down, its read fails too, and it sees the stop."""
        if self.subscribed.is_set():
            with contextlib.suppress(redis.RedisError):
                self.client.publish(self.answer_channel, "closing")

    def start(
        self, stop: threading.Event, every: float, tick: Callable[[], None]
    ) -> threading.Thread:
        """Given a stop event, a period (seconds) and what to do each period, subscribe (here,
        so that a store holding a block hears the next round) and start the thread that
        answers rounds and calls ``tick`` every period until ``stop`` is set; return it."""
        try:
            pubsub: PubSub | None = self._subscribe()
        except redis.RedisError:
            pubsub = None  # the thread subscribes once Redis answers
        thread = threading.Thread(
            target=self._listen,
            args=(pubsub, stop, every, tick),
            name="bangscore-redis-flush",
            daemon=True,
        )
        thread.start()
        return thread

    def _listen(
        self,
        pubsub: PubSub | None,
        stop: threading.Event,
        every: float,
        tick: Callable[[], None],
    ) -> None:
        due = time.monotonic() + every
        try:
            while not stop.is_set():
                left = max(0.0, due - time.monotonic())
                try:
                    pubsub = pubsub or self._subscribe()
                    self._read(pubsub, left)
                except redis.RedisError:
                    self.subscribed.clear()
                    if pubsub is not None:
                        pubsub.close()
                    pubsub = None
                    stop.wait(left)  # Redis down: try again next period, not in a busy loop
                except Exception:  # a background thread must not die silently on a bug
                    log.exception("answering a recall failed")
                if time.monotonic() >= due:
                    tick()
                    due = time.monotonic() + every
        finally:
            self.subscribed.clear()
            if pubsub is not None:
                pubsub.close()
