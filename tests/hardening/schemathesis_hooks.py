"""Schemathesis hooks for tests/hardening/test_schemathesis.py (loaded through
``SCHEMATHESIS_HOOKS``): the one rule tying two parameters together that a JSON Schema cannot
state, taught to the run (issue 55): ``year_from`` > ``year_to`` is a 400 (docs/API.md), so
the generated valid requests keep ``year_from`` <= ``year_to``."""

from __future__ import annotations

from typing import Any

import schemathesis


def _year(value: Any) -> int | None:
    """Given a generated query value, return it as a year, or None if it is none."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    """Given a generated case (every phase: the coverage phase applies no ``filter_query``),
    return False (drop it) when its query's years run backwards."""
    query = case.query or {}
    first, last = _year(query.get("year_from")), _year(query.get("year_to"))
    return first is None or last is None or first <= last
