"""Schemathesis hooks for the command-line run over a real server (tests/hardening/
test_schemathesis.py), loaded with ``SCHEMATHESIS_HOOKS=tests.support.schemathesis_hooks``.

The one rule of the API a schema cannot state is a rule between two parameters: ``year_from``
must not be greater than ``year_to`` (docs/API.md#list-games says so, and so do both
parameters' descriptions in the OpenAPI document). A request breaking it is answered 400, so
it is left out of what the run generates (``filter_query``), or, in the coverage phase, which
builds its cases without the filters, the two years are swapped before the call
(``before_call``), as a client reading the descriptions would send them.
"""

from __future__ import annotations

from typing import Any

import schemathesis


def consistent_years(query: dict[str, Any] | None) -> bool:
    """Given a generated query (or None), return False only when it holds both years as
    integers with ``year_from`` > ``year_to``."""
    if not query:
        return True
    try:
        return not int(query["year_from"]) > int(query["year_to"])
    except (KeyError, TypeError, ValueError):
        return True


@schemathesis.hook
def filter_query(ctx: Any, query: dict[str, Any] | None) -> bool:
    """Leave out generated queries with year_from > year_to (see the module's docstring)."""
    return consistent_years(query)


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    """Swap a case's years when year_from > year_to (see the module's docstring)."""
    query = case.query
    if not consistent_years(query):
        query["year_from"], query["year_to"] = query["year_to"], query["year_from"]
