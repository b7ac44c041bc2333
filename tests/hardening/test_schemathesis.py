"""The whole OpenAPI document against a real server: schemathesis's command line, every phase
(examples, coverage, fuzzing, stateful) and every check, bounded (30 examples an operation, a
fixed seed: about 600 cases in some 20 s), over the small catalogue with a Bulk export
published, so that every operation, ``/api/v1/export`` included, answers from real data.

The run passes only if every answer conforms to the document (status, headers, content type,
body schema) and the server accepts every request the document calls valid: the document is
what a generated client trusts. One hook (tests/hardening/schemathesis_hooks.py) teaches it the
one rule between two parameters a schema cannot state: ``year_from`` > ``year_to`` is a 400
(issue 55).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

from bangscore.build.export import write_export
from bangscore.storage import LocalStorage
from tests.hardening.conftest import ServerFactory, add_key, publish_into
from tests.support import factories

REPO = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
EXAMPLES = 30


def test_schemathesis_passes_over_the_whole_document(
    tmp_path: Path, server_factory: ServerFactory
) -> None:
    state = tmp_path / "state"
    games = publish_into(state, factories.small_catalog(), "s1")
    write_export(
        LocalStorage(state / "export"),
        games,
        snapshot_id="s1",
        created_at=dt.datetime(2026, 11, 26, tzinfo=dt.UTC),
        site_url=factories.SITE,
        keep=7,
        prices_as_of=factories.PRICES_AS_OF,
    )
    key = add_key(state, plan="bulk", limit=100_000_000)
    server = server_factory(state, env={"BANGSCORE_EXPORT": str(state / "export")})
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SCHEMATHESIS_HOOKS": "tests.hardening.schemathesis_hooks",
    }
    run = subprocess.run(
        [
            str(SCHEMATHESIS),
            "run",
            f"{server.url}/api/v1/openapi.json",
            "--url",
            server.url,
            "--header",
            f"Authorization: Bearer {key}",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--checks",
            "all",
            "--max-examples",
            str(EXAMPLES),
            "--seed",
            "1",
            "--no-color",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = run.stdout[-6000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    # Random appids mostly miss the 45 games (404 is documented); the export must not.
    missing = run.stdout.partition("Missing test data")[2].partition("💡")[0]
    assert "/api/v1/export" not in missing, report
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in run.stdout, report
    # An empty list's link to the first game's detail is not a failed extraction (issue 48).
    assert "Failed to extract data from response" not in run.stdout, report
