"""Work handed to a forked process while the caller goes on: given a function and what it
reads, :func:`aside` starts it in a child that inherits its argument (nothing is pickled on
the way in; only the result comes back), and returns the call that waits for the result.

For a build's serial stretches, which leave the second core idle (issue 56): the search index
is drawn while the lists and the buyer fields are (about 3 s less before the first answer).
Not for the ingest's: the tags' typical positions found aside took longer than in line (a
fork of a process holding every observation, then copies of the pages the child touched).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_WORK: tuple[Callable[[Any], Any], Any] | None = None  # set before the fork; the child reads it


def _run() -> Any:
    assert _WORK is not None, "an aside runs only in a process forked by aside()"
    work, argument = _WORK
    return work(argument)


def aside(work: Callable[[Any], T], argument: Any) -> Callable[[], T]:
    """Given a function and its one argument, run ``work(argument)`` in a forked process and
    return the call that waits for its result and returns it (raising what ``work`` raised).
    The result must pickle; the argument need not."""
    global _WORK
    _WORK = (work, argument)
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    try:
        future = pool.submit(_run)  # forks now, so the child sees _WORK as set
    finally:
        _WORK = None

    def result() -> T:
        try:
            return future.result()  # type: ignore[no-any-return]
        finally:
            pool.shutdown()

    return result
