"""bench/generated.py: which generated files are current, from the digests of their inputs and
outputs, in a repository of the test's own (and the real one: `make lint` is `check`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import generated
from bench.generated import Heavy, Recorded, input_digest, output_digests, stale

HEAVY = Heavy("demo", ("python", "-c", "pass"), ("out/report.md",), ("data", "code.py"))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository holding a heavy generator's inputs and output."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.csv").write_text("1,2\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.md").write_text("# figures\n")
    monkeypatch.setattr(generated, "REPO", tmp_path)
    return tmp_path


def recorded() -> dict[str, Recorded]:
    return {"demo": {"inputs": input_digest(HEAVY.inputs), "outputs": output_digests(HEAVY)}}


def test_a_recorded_run_is_current_until_an_input_or_output_changes(repo: Path) -> None:
    assert stale(HEAVY, {}) == "never recorded"
    record = recorded()
    assert stale(HEAVY, record) is None
    (repo / "data" / "a.csv").write_text("1,3\n")
    assert stale(HEAVY, record) == "its inputs changed since it ran"
    record = recorded()
    (repo / "out" / "report.md").write_text("# figures, by hand\n")
    assert stale(HEAVY, record) == "out/report.md changed since it ran (edited by hand?)"


def test_inputs_are_bytes_and_names_not_times_and_never_a_generated_file(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = input_digest(("data",))
    (repo / "data" / "a.csv").touch()
    assert input_digest(("data",)) == before  # a fresh clone's new times change nothing
    (repo / "data" / "a.csv").rename(repo / "data" / "b.csv")
    assert input_digest(("data",)) != before  # a name is part of what is read
    monkeypatch.setattr(generated, "GENERATED", frozenset({"data/norms.json"}))
    named = input_digest(("data",))
    (repo / "data" / "norms.json").write_text("{}")  # an output of another generator
    assert input_digest(("data",)) == named
    assert input_digest(("gone",)) != input_digest(())


def test_a_shared_file_counts_only_its_generators_part(repo: Path) -> None:
    doc = "A real record, shortened (`GET /api/v1/games/10`):\n\n```json\n{}\n```\nprose\n"
    (repo / "API.md").write_text(doc)
    shared = Heavy("record", ("python",), ("API.md",), (), (("API.md", generated._api_record),))
    before = output_digests(shared)
    (repo / "API.md").write_text(doc + "more prose written by hand\n")
    assert output_digests(shared) == before
    (repo / "API.md").write_text(doc.replace("{}", '{"appid": 10}'))
    assert output_digests(shared) != before
