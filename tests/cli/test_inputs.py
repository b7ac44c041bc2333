"""bangscore/cli/inputs.py: the build's input digest and its stamp (issue 56, item 1)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bangscore.cli.inputs import current_build, input_digest, write_stamp

Tree = Callable[[], dict[str, Path]]


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    """A factory of a data folder and a code folder (with a linked layer and a byte cache)."""

    def make() -> dict[str, Path]:
        data, code, layer = tmp_path / "data", tmp_path / "pkg", tmp_path / "scoring"
        for folder in (data / "raw", code / "__pycache__", layer):
            folder.mkdir(parents=True, exist_ok=True)
        (data / "raw" / "prices.csv").write_text("appid,price\n620,9.99\n")
        (code / "render.py").write_text("TITLE = 'x'\n")
        (code / "__pycache__" / "render.cpython-311.pyc").write_bytes(b"\x00")
        (layer / "value.py").write_text("CEILING = 100\n")
        if not (code / "scoring").exists():
            (code / "scoring").symlink_to(layer, target_is_directory=True)
        return {"data": data, "code": code}

    return make


SETTINGS = {"site_url": "http://127.0.0.1:8000", "day": "2026-12-02"}


@pytest.mark.parametrize(
    ("change", "same"),
    [
        pytest.param(lambda f: None, True, id="nothing"),
        pytest.param(
            lambda f: os.utime(f["data"] / "raw" / "prices.csv", (1, 1)), True, id="mtime"
        ),
        pytest.param(
            lambda f: (f["code"] / "__pycache__" / "x.pyc").write_bytes(b"1"), True, id="pyc"
        ),
        pytest.param(
            lambda f: (f["data"] / "raw" / "prices.csv").write_text("appid,price\n620,8.99\n"),
            False,
            id="a-price",
        ),
        pytest.param(
            lambda f: (f["code"] / "scoring" / "value.py").write_text("CEILING = 99\n"),
            False,
            id="code-in-a-linked-layer",
        ),
        pytest.param(
            lambda f: (f["code"] / "render.py").rename(f["code"] / "pages.py"), False, id="rename"
        ),
    ],
)
def test_the_digest_follows_content_not_timestamps(
    tree: Tree, change: Callable[[dict[str, Path]], object], same: bool
) -> None:
    folders = tree()
    before = input_digest(folders, SETTINGS)
    change(folders)
    assert (input_digest(folders, SETTINGS) == before) is same


@pytest.mark.parametrize(
    "setting",
    [
        pytest.param({"site_url": "http://127.0.0.1:9001"}, id="another-port"),
        pytest.param({"day": "2026-12-03"}, id="the-next-day"),
    ],
)
def test_a_setting_baked_into_the_snapshot_changes_the_digest(
    tree: Tree, setting: dict[str, str]
) -> None:
    folders = tree()
    assert input_digest(folders, SETTINGS) != input_digest(folders, {**SETTINGS, **setting})


def test_a_missing_folder_is_not_an_empty_one_by_accident(tree: Tree, tmp_path: Path) -> None:
    folders = tree()
    gone = {**folders, "data": tmp_path / "nowhere"}
    assert input_digest(gone, SETTINGS) != input_digest(folders, SETTINGS)


@pytest.mark.parametrize(
    ("stamp", "digest", "pointer", "expected"),
    [
        pytest.param(("d1", "s1"), "d1", "s1", "s1", id="current"),
        pytest.param(("d1", "s1"), "d2", "s1", None, id="inputs-changed"),
        pytest.param(("d1", "s1"), "d1", "s0", None, id="rolled-back"),
        pytest.param(("d1", "s1"), "d1", None, None, id="no-snapshot"),
        pytest.param(None, "d1", "s1", None, id="no-stamp"),
    ],
)
def test_a_build_is_skipped_only_while_its_snapshot_is_current(
    tmp_path: Path,
    stamp: tuple[str, str] | None,
    digest: str,
    pointer: str | None,
    expected: str | None,
) -> None:
    path = tmp_path / "var" / "build-inputs.json"
    if stamp is not None:
        write_stamp(path, *stamp)
    assert current_build(path, digest, pointer) == expected


@pytest.mark.parametrize("body", [b"", b"[1]", b"{not json", b'{"digest": "d1", "snapshot_id": 5}'])
def test_a_damaged_stamp_counts_as_none(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / "build-inputs.json"
    path.write_bytes(body)
    assert current_build(path, "d1", "s1") is None
