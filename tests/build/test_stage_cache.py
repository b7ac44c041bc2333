"""The build's kept stages (issue 56, item 1): the scores are read back while their catalogue
and the scoring code are unchanged, computed again when either changes, and an edit to a
template changes neither key."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import bangscore
from bangscore.build.stage_cache import StageCache
from bangscore.cli.inputs import stage_keys
from bangscore.ingest.catalog import write_catalog
from tests.cli.test_main import run, state  # noqa: F401  (state: a state folder with a catalog)
from tests.support.factories import make_catalog, small_catalog

PACKAGE = Path(bangscore.__file__).parent


def kept(out: str) -> str:
    """Given a build's output, return its line about the kept stages."""
    return next(line for line in out.splitlines() if line.startswith("kept stages "))


def test_a_rebuild_reads_the_scores_back_and_a_changed_catalogue_scores_again(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(state, capsys, "build")
    assert code == 0 and kept(out).endswith("reused none; made score")
    code, out, _ = run(state, capsys, "build")
    assert code == 0 and kept(out).endswith("reused score; made none")
    assert "stage score: " in out
    # One game's price changed: the catalogue's bytes differ, so it is scored again.
    games = small_catalog()
    games[0] = games[0].model_copy(update={"price_usd": 3.99})
    write_catalog(make_catalog(games), state / "catalog.json.gz")
    code, out, _ = run(state, capsys, "build")
    assert code == 0 and kept(out).endswith("reused none; made score")
    assert len(list((state / "cache" / "stages").glob("score-*.pickle"))) == 1  # the newest


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A copy of the package's code (its linked layer folders resolved) and a small data
    folder, to edit."""
    root = tmp_path_factory.mktemp("tree")
    package = root / "bangscore"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(PACKAGE, package, symlinks=False, ignore=ignore)
    data = root / "data" / "raw"
    data.mkdir(parents=True)
    (data / "dump.jsonl").write_text('{"appid": 10}\n')
    return package, root / "data"


@pytest.mark.parametrize(
    ("edit", "ingest_changes", "score_changes"),
    [
        ("site/templates/game.html", False, False),
        ("site/render.py", False, False),
        ("scoring/value.py", True, True),
        ("ingest/catalog.py", True, True),
        ("errors.py", True, True),
        ("DATA", True, True),
    ],
    ids=["template", "renderer", "scoring", "ingest", "shared-errors", "data"],
)
def test_which_edits_change_which_stage_keys(
    copies: tuple[Path, Path], edit: str, ingest_changes: bool, score_changes: bool
) -> None:
    package, data = copies
    before = stage_keys(package, data, None)
    target = data / "raw" / "dump.jsonl" if edit == "DATA" else package / edit
    original = target.read_bytes()
    try:
        target.write_bytes(original + b"\n")
        after = stage_keys(package, data, None)
    finally:
        target.write_bytes(original)
    assert (after[0] != before[0], after[1] != before[1]) == (ingest_changes, score_changes)
    assert stage_keys(package, data, None) == before


def test_a_kept_stage_that_does_not_load_is_made_again(tmp_path: Path) -> None:
    cache = StageCache(tmp_path)
    assert cache.get("score", "k1", lambda: [1, 2]) == [1, 2]
    (path,) = tmp_path.glob("score-k1*.pickle")
    path.write_bytes(b"not a pickle")
    again = StageCache(tmp_path)
    assert again.get("score", "k1", lambda: [3]) == [3]
    assert (again.reused, again.made) == ([], ["score"])
    assert StageCache(tmp_path).get("score", "k1", lambda: [4]) == [3]


def test_a_deferred_cache_writes_what_it_made_only_when_asked(tmp_path: Path) -> None:
    # `make run` keeps the stages after the snapshot is current (issue 56): until then the
    # folder holds nothing, and a build reading it makes the stage again.
    cache = StageCache(tmp_path, defer=True)
    assert cache.get("ingest", "a1", lambda: {"games": 3}) == {"games": 3}
    assert cache.get("score", "b1", lambda: [1, 2]) == [1, 2]
    assert list(tmp_path.iterdir()) == []
    assert StageCache(tmp_path, defer=True).get("score", "b1", lambda: [9]) == [9]
    assert cache.keep_made() == ["ingest", "score"]
    assert cache.keep_made() == []
    assert sorted(p.name[:6] for p in tmp_path.iterdir()) == ["ingest", "score-"]
    again = StageCache(tmp_path)
    assert again.get("score", "b1", lambda: [4]) == [1, 2]
    assert again.get("ingest", "a1", lambda: {}) == {"games": 3}
    assert (again.reused, again.made) == (["score", "ingest"], [])
