"""The fast loop's selection (README.md, `make check`): the tests it leaves to `make test`
(tests/support/thorough.py) are named as they are in the suite, so none leaves the loop by a
stale name and none stays in it by a renamed one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.thorough import THOROUGH, is_thorough

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("module", sorted(THOROUGH))
def test_each_listed_test_is_defined_where_the_list_says(module: str) -> None:
    source = (ROOT / module).read_text()
    defined = set(re.findall(r"^(?:async )?def (test_\w+)\(", source, re.MULTILINE))
    assert set(THOROUGH[module]) <= defined


@pytest.mark.parametrize(
    ("nodeid", "listed"),
    [
        pytest.param(
            "tests/test_packaging.py::test_layers_import_under_the_bangscore_prefix_only",
            True,
            id="function",
        ),
        pytest.param(
            "tests/contract/test_filters.py::test_a_year_filter_is_spelled_in_its_declaration_only[year_to]",
            True,
            id="a-case",
        ),
        pytest.param("tests/test_packaging.py::test_not_listed", False, id="other-function"),
        pytest.param(
            "tests/other.py::test_layers_import_under_the_bangscore_prefix_only",
            False,
            id="other-module",
        ),
    ],
)
def test_a_test_is_thorough_by_its_module_and_function(nodeid: str, listed: bool) -> None:
    assert is_thorough(nodeid) is listed


def test_make_check_leaves_the_thorough_tests_to_make_test() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [check] = re.findall(r"^CHECK_MARKERS := (.+)$", makefile, re.MULTILINE)
    assert "not thorough" in check
    [test_recipe] = re.findall(r"^test: .*?\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert "thorough" not in test_recipe
