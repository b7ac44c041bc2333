"""Fuzzing the app against its own OpenAPI document (schemathesis, in-process over ASGI).

Every operation of ``GET /api/v1/openapi.json`` is exercised with generated valid (positive)
and invalid (negative) inputs, with a valid key: no response may be a 5xx and each must match
the document (status code, content type, headers, body schema). Examples are bounded per
operation and mode so the whole file runs in seconds.

Schemathesis's own pytest plugin does not run under this pytest (``-p no:schemathesis`` in
pyproject.toml), so each operation's Hypothesis strategy is driven directly with ``@given``.
schemathesis is imported by the tests, not at collection: every pytest run collects this
module, and `make check`, which leaves it out, would import it for nothing (0.3 s a process).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from bangscore.contract.api import routes
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import ObjectStorage
from tests.support import factories

MAX_EXAMPLES = 40
# A third of the fast loop's time: it runs in `make test`, not in `make check`.
pytestmark = pytest.mark.slow


@pytest.fixture
def fuzz_target(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]], tmp_path: Path
) -> tuple[Any, str]:
    """The schema loaded from a fresh app over the small catalog, and a key with room to spare."""
    import schemathesis

    app, store, _ = factories.make_app(small_snapshot[0], tmp_path, anonymous_limit=10_000_000)
    key = factories.add_key(store, plan="bulk", limit=10_000_000)
    return schemathesis.openapi.from_asgi("/api/v1/openapi.json", app), key


# schemathesis's generation modes (GenerationMode's values). Operations whose only parameter is
# api_key have no invalid input to generate.
MODES = ("positive", "negative")
CASES = [
    pytest.param(route.path, mode, id=f"{route.name}-{mode}")
    for route in routes()
    for mode in MODES
    if mode == "positive" or any(p.name != "api_key" for p in route.params)
]


def _crossed_years(query: dict[str, Any]) -> bool:
    """Given a generated query, return whether both years are numbers and run backwards."""
    try:
        return int(query["year_from"]) > int(query["year_to"])
    except (KeyError, TypeError, ValueError):
        return False


@pytest.mark.parametrize(("path", "mode"), CASES)
def test_every_response_conforms_and_none_is_5xx(
    fuzz_target: tuple[Any, str], path: str, mode: str
) -> None:
    from schemathesis.generation.modes import GenerationMode

    assert [m.value for m in GenerationMode] == list(MODES)
    schema, key = fuzz_target
    strategy = schema[path]["GET"].as_strategy(generation_mode=GenerationMode(mode))

    @given(case=strategy)
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def exercise(case: Any) -> None:
        if mode == "positive":
            # The one rule tying two parameters that no schema states (issue 55, as
            # tests/hardening/schemathesis_hooks.py teaches the CLI run): years run forward.
            assume(not _crossed_years(case.query or {}))
        response = case.call_and_validate(headers={"Authorization": f"Bearer {key}"})
        assert response.status_code < 500

    exercise()
