"""The fast loop's selection (README.md, `make check`): the tests it leaves to `make test`
(tests/support/thorough.py) are named as they are in the suite, so none leaves the loop by a
stale name and none stays in it by a renamed one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support import shards
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


@pytest.mark.parametrize("count", [1, 2, 3], ids=["one", "two", "three"])
def test_the_shards_partition_the_test_modules(count: int) -> None:
    modules = shards.test_modules()
    placed = shards.assign(shards.weights(modules), count)
    assert sorted(placed) == modules
    assert set(placed.values()) == set(range(1, count + 1))
    collected = {shards.ROOT / m for m in modules}
    left = [collected - shards.others(f"{i}/{count}") for i in range(1, count + 1)]
    assert set().union(*left) == collected
    assert sum(len(part) for part in left) == len(collected)


@pytest.mark.parametrize(
    ("estimates", "count", "expected"),
    [
        pytest.param({"a": 3.0, "b": 2.0, "c": 2.0}, 2, {"a": 1, "b": 2, "c": 2}, id="heavy-alone"),
        pytest.param({"a": 1.0, "b": 1.0}, 2, {"a": 1, "b": 2}, id="ties-by-name"),
        pytest.param({"a": 1.0, "b": 5.0}, 1, {"a": 1, "b": 1}, id="one-shard"),
        pytest.param(
            {"a": 4.0, "b": 3.0, "c": 3.0, "d": 2.0},
            2,
            {"a": 1, "b": 2, "c": 2, "d": 1},
            id="greedy",
        ),
    ],
)
def test_the_heaviest_module_goes_to_the_lightest_shard(
    estimates: dict[str, float], count: int, expected: dict[str, int]
) -> None:
    assert shards.assign(estimates, count) == expected


@pytest.mark.parametrize("spelling", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_shard_outside_its_count_is_refused(spelling: str) -> None:
    with pytest.raises(ValueError, match="--shard"):
        shards.parse(spelling)


def test_the_recorded_weights_name_existing_modules_and_a_new_one_weighs_by_its_size() -> None:
    recorded: dict[str, float] = json.loads(shards.WEIGHTS.read_text())
    modules = shards.test_modules()
    assert set(recorded) <= set(modules)
    assert all(shards.weights(modules)[m] == recorded[m] for m in recorded)
    # A module the weights name, taken out of them, stands for a new one; modules added since
    # the weights were measured are unnamed too and stay out of the per-byte rate.
    new = next(m for m in modules if m in recorded)
    del recorded[new]
    known = [m for m in modules if m in recorded]
    per_byte = sum(recorded[m] for m in known) / sum((ROOT / m).stat().st_size for m in known)
    estimate = shards.weights(modules, recorded)[new]
    assert estimate == pytest.approx((ROOT / new).stat().st_size * per_byte)
    assert estimate > 0


def test_make_check_runs_its_tests_as_shards_without_xdist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [rule] = re.findall(r"^\$\(CHECK_PARTS\): check-shard-%: .*\n\t(.+)$", makefile, re.MULTILINE)
    assert "-n 0" in rule
    assert "--shard=$*/$(CHECK_SHARDS)" in rule
