"""The bundled sources' licences (build.licences): data/README.md's table read as the export's
manifest lists it, checked against the dumps in data/raw and the NOTE.md each folder keeps."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bangscore.build.licences import parse_licences, read_licences
from bangscore.contract.export import SourceLicence

DATA = Path(__file__).parents[2] / "data"
ROWS = read_licences(DATA / "README.md")


def test_every_bundled_folder_has_one_row() -> None:
    folders = sorted(p.name for p in (DATA / "raw").iterdir() if p.is_dir())
    assert sorted(r.folder for r in ROWS) == folders
    assert all(r.origin and r.licence for r in ROWS)


# What a NOTE.md (or, for a folder without one, data/README.md's own section) says, in words a
# licence row must echo: a named licence, or that none is stated.
NAMED = re.compile(r"\b(MIT|GPL-3\.0|CC BY 4\.0)\b")
NONE = re.compile(r"no licen[cs]e|licen[cs]e[^.\n]*?\b(none|not stated|not declared)", re.I)


def _stated(folder: str) -> str:
    note = DATA / "raw" / folder / "NOTE.md"
    if note.exists():
        return note.read_text(encoding="utf-8")
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    start = readme.index(f"### `{folder}/")
    return readme[start : readme.index("\n### ", start + 5)]


@pytest.mark.parametrize("row", ROWS, ids=[r.folder for r in ROWS])
def test_each_licence_is_as_its_source_states(row: SourceLicence) -> None:
    stated = _stated(row.folder)
    named = NAMED.search(row.licence)
    if named:
        assert named[1] in stated, f"{row.folder}: {named[1]} is not what its notes state"
    else:
        assert re.search(r"\b(none|not stated)\b", row.licence), row.licence
        assert NONE.search(stated), f"{row.folder} states a licence"


def test_the_origin_is_the_repository_its_notes_name() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    described = readme[: readme.index("\n## Licences\n")]  # a section may say "same repository"
    for row in ROWS:
        repository = row.origin.split(" ")[0]
        notes = _stated(row.folder).replace("github.com/", "")
        assert repository in notes or repository in described, row.folder


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("# Bundled data\n\nno table here\n", "no '## Licences' section"),
        ("## Licences\n\n| a | b |\n|---|---|\n| x | y |\n", "no table headed"),
    ],
    ids=["no-section", "other-table"],
)
def test_a_readme_without_the_table_is_refused(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_licences(text)


def test_code_marks_are_dropped_and_a_missing_readme_gives_none(tmp_path: Path) -> None:
    text = (
        "## Licences\n\n| folder | origin | licence as stated |\n|---|---|---|\n"
        "| `a_2026` | `o/r` (Steam) | MIT |\n\n## Next\n| x | y | z |\n"
    )
    assert parse_licences(text) == (SourceLicence("a_2026", "o/r (Steam)", "MIT"),)
    assert read_licences(tmp_path / "README.md") == ()
