"""`make test`'s untraced tests (tests/support/untraced.py) are named as they are in the suite,
so none is traced again by a stale name; and a listed test runs outside coverage's tracer, in
its process and in the processes it starts, and nothing else does."""

from __future__ import annotations

import importlib
import os
import re
from pathlib import Path
from typing import ClassVar

import pytest

from tests.support.untraced import (
    CHILD_VARIABLES,
    CHILDREN,
    TEST,
    UNTRACED,
    outside_coverage,
    untraced_parts,
)

ROOT = Path(__file__).resolve().parent.parent


def case_ids(module: str, function: str) -> set[str]:
    """Given a test module's path and a test function of it, return the ids its parametrize
    marks give their cases (``pytest.param(..., id=...)`` or ``ids=[...]``)."""
    test = getattr(importlib.import_module(module.removesuffix(".py").replace("/", ".")), function)
    ids: set[str] = set()
    for mark in getattr(test, "pytestmark", []):
        if mark.name == "parametrize":
            values, named = mark.args[1], mark.kwargs.get("ids") or []
            ids |= {getattr(v, "id", None) or "" for v in values} | set(named)
    return ids - {""}


@pytest.mark.parametrize("module", sorted(UNTRACED))
def test_each_listed_test_is_defined_where_the_list_says(module: str) -> None:
    source = (ROOT / module).read_text()
    defined = set(re.findall(r"^(?:async )?def (test_\w+)\(", source, re.MULTILINE))
    for listed, parts in UNTRACED[module].items():
        function, _, case = listed.removesuffix("]").partition("[")
        assert function in defined, listed
        assert not case or case in case_ids(module, function), listed
        assert parts and set(parts) <= {TEST, CHILDREN}, listed


@pytest.mark.parametrize(
    ("nodeid", "parts"),
    [
        pytest.param(
            "tests/shim/test_compose.py::test_vectorised_filter_agrees_with_the_reference",
            {TEST},
            id="function",
        ),
        pytest.param(
            "tests/infra/test_locations.py::test_no_spelling_of_metrics_passes_the_edge[semicolon]",
            {TEST, CHILDREN},
            id="a-case",
        ),
        pytest.param(
            "tests/hardening/test_schemathesis.py::test_schemathesis_passes_over_the_whole_document",
            {CHILDREN},
            id="children-only",
        ),
        pytest.param(
            "tests/ingest/dumps/test_expectations.py::"
            "test_a_damaged_dump_is_refused_naming_its_file_and_check[itad_2025-empty]",
            {TEST},
            id="a-listed-case",
        ),
        pytest.param(
            "tests/ingest/dumps/test_expectations.py::"
            "test_a_damaged_dump_is_refused_naming_its_file_and_check[itad_2025-truncated]",
            set(),
            id="a-case-not-listed",
        ),
        pytest.param("tests/shim/test_compose.py::test_not_listed", set(), id="other-function"),
        pytest.param(
            "tests/other.py::test_vectorised_filter_agrees_with_the_reference",
            set(),
            id="other-module",
        ),
    ],
)
def test_a_test_is_untraced_by_its_module_and_function(nodeid: str, parts: set[str]) -> None:
    assert untraced_parts(nodeid) == parts


class Running:
    """Stands for a Coverage object measuring this process: on a stack of them, as coverage
    keeps its started instances, recording the stops and starts in ``calls``."""

    stack: ClassVar[list[Running]] = []

    def __init__(self, name: str, calls: list[str]) -> None:
        self.name, self.calls = name, calls

    def stop(self) -> None:
        assert Running.stack.pop() is self
        self.calls.append(f"stop {self.name}")

    def start(self) -> None:
        Running.stack.append(self)
        self.calls.append(f"start {self.name}")


def test_outside_coverage_pauses_this_process_and_its_children_then_restores_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    oldest, newest = Running("oldest", calls), Running("newest", calls)
    monkeypatch.setattr(Running, "stack", [oldest, newest])
    current = classmethod(lambda cls: Running.stack[-1] if Running.stack else None)
    monkeypatch.setattr("coverage.Coverage.current", current)
    monkeypatch.setenv(CHILD_VARIABLES[0], "a serialized configuration")
    with outside_coverage(frozenset({TEST, CHILDREN})):
        assert Running.stack == []  # every one stopped, not only the newest
        assert CHILD_VARIABLES[0] not in os.environ
    assert calls == ["stop newest", "stop oldest", "start oldest", "start newest"]
    assert Running.stack == [oldest, newest]  # the newest measures again, as before
    assert os.environ[CHILD_VARIABLES[0]] == "a serialized configuration"
    calls.clear()
    with outside_coverage(frozenset({CHILDREN})):
        assert CHILD_VARIABLES[0] not in os.environ
    assert calls == []  # the test's own process stayed traced
    assert os.environ[CHILD_VARIABLES[0]] == "a serialized configuration"
