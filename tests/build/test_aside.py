"""Work handed to a forked process (build/aside.py): the same result as the call, its
argument inherited rather than pickled, its failure raised where the result is asked for."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from bangscore.build.aside import aside


def _pid_and_total(numbers: tuple[Callable[[], int], list[int]]) -> tuple[int, int]:
    make, values = numbers
    return os.getpid(), make() + sum(values)


def _fails(_: object) -> None:
    raise ValueError("no index for you")


def test_an_aside_runs_in_another_process_on_an_argument_that_does_not_pickle() -> None:
    unpicklable = (lambda: 100, [1, 2, 3])  # a lambda: pickle refuses it, a fork inherits it
    result = aside(_pid_and_total, unpicklable)
    pid, total = result()
    assert total == 106 and pid != os.getpid()


def test_an_asides_failure_is_raised_where_its_result_is_asked_for() -> None:
    result = aside(_fails, None)
    with pytest.raises(ValueError, match="no index for you"):
        result()
