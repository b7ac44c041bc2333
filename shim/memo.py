"""The one memo of the server's answers: a request is read once, its answer kept by what was
read, and each spelling of the request kept naming it (issue 59: one read per request).

A route gives the memo a *reading* (the request's query parsed, or BadRequest) and a
*resolver* of the answer from what was read. :meth:`Memo.answer` looks the spelling up first
(the path and the raw query string: a repeat parses nothing), then reads the request once,
looks the reading up (every spelling of one query, parameters reordered, ``page=02``, a tag's
case, shares one answer), and only on a miss resolves. A query the route refuses is kept by
its spelling alone: its parameter errors (:class:`Rejected`, never the exception, whose
traceback would keep the request alive) or the answer the route gives a refusal (the
website's HTML 400).

Spellings and answers share one :class:`~bangscore.shim.lru.Lru` bounded by bytes: the API's
memo lives with its snapshot (:class:`bangscore.shim.source.LoadedSnapshot`), the website's
with the pages' service, its readings naming the snapshot.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

from bangscore.errors import BadRequest, ParamError
from bangscore.shim.lru import ENTRY_BYTES, Lru

# What a spelling's entry costs beside its own bytes: the entry (214 bytes measured with
# tracemalloc; the reading it names is the answer's key, counted there) and the path and query
# string objects' headers; rounded up.
SPELLING_BYTES = 384
Spelling = tuple[str, bytes]  # (path, raw query string)


class Weighed(Protocol):
    """A remembered answer that knows the bytes it holds."""

    @property
    def nbytes(self) -> int:
        """Return the bytes the answer holds, its bodies and an entry's overhead."""
        ...


def weight(value: Weighed) -> int:
    """Given a remembered answer, return the bytes it holds (its memo entry's weight)."""
    return value.nbytes


@dataclass(frozen=True, slots=True)
class Rejected:
    """A remembered 400: the parameter errors alone, never the exception (whose traceback
    would keep the request and every frame that saw it alive)."""

    errors: tuple[ParamError, ...]

    @property
    def nbytes(self) -> int:
        """Return the bytes held (estimated)."""
        return ENTRY_BYTES + sum(len(e.parameter) + len(e.message) for e in self.errors)

    def error(self) -> BadRequest:
        """Return a fresh BadRequest naming these errors, to raise."""
        return BadRequest(self.errors)


@dataclass(frozen=True, slots=True)
class Spelled:
    """What one spelling names: the reading its answer is kept under, or (a refused query)
    the Rejected 400 or refusal answer itself; and the bytes of the spelling."""

    reading: Hashable
    spelling_bytes: int
    refused: Weighed | None = None

    @property
    def nbytes(self) -> int:
        """Return the bytes held (estimated): the spelling, and a refusal's own."""
        named = self.refused.nbytes if self.refused is not None else SPELLING_BYTES
        return named + self.spelling_bytes


class Memo:
    """Answers by reading and the spellings naming them, in one LRU of ``budget`` bytes."""

    def __init__(self, budget: int) -> None:
        self.entries: Lru[Any] = Lru(budget, weigh=weight)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def size(self) -> int:
        """Return the bytes held."""
        return self.entries.size

    def recall(self, spelling: Spelling) -> Any:
        """Given a request's (path, query string), return what is remembered for it (an
        answer, a Rejected 400 or a refusal's answer), or None."""
        found = self.entries.find(("spelled", spelling))
        if found is None:
            return None
        if found.refused is not None:
            return found.refused
        return self.entries.find(("read", found.reading))

    async def answer(
        self,
        spelling: Spelling,
        read: Callable[[], Hashable],
        resolve: Callable[[Any], Awaitable[Weighed]],
        refuse: Callable[[BadRequest], Awaitable[Weighed]] | None = None,
    ) -> Any:
        """Given a request's spelling, its reading (``read``: the parsed query, or
        BadRequest), the resolver of an answer from what was read and, optionally, the
        answer to give a refused query, return the answer: remembered, else resolved once.

        A refused query without ``refuse`` raises its BadRequest, now and on every repeat
        (from its remembered errors)."""
        found = self.recall(spelling)
        if isinstance(found, Rejected):
            raise found.error()
        if found is not None:
            return found
        spelled = len(spelling[0]) + len(spelling[1])
        try:
            reading = read()
        except BadRequest as exc:
            refused: Weighed = Rejected(tuple(exc.errors)) if refuse is None else await refuse(exc)
            self.entries.put(("spelled", spelling), Spelled(None, spelled, refused))
            if refuse is None:
                raise
            return refused
        value = await self.kept(reading, resolve)
        self.entries.put(("spelled", spelling), Spelled(reading, spelled))
        return value

    async def kept(self, reading: Hashable, resolve: Callable[[Any], Awaitable[Weighed]]) -> Any:
        """Given a reading and its resolver, return its remembered answer, resolving it (once
        while it stays remembered) on a miss."""
        value = self.entries.find(("read", reading))
        if value is None:
            value = await resolve(reading)
            self.entries.put(("read", reading), value)
        return value
