"""The installed import names: one ``bangscore`` package, and PyPA's ``build`` beside it.

The builder's folder is called ``build/``, like PyPA's packaging tool. These tests run the tool
from the repository root, where a folder of that name is first on ``sys.path``.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_build_names_pypa_tool_even_from_the_repository_root() -> None:
    found = subprocess.run(
        [sys.executable, "-c", "import build; print(build.__file__)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "site-packages" in found.stdout


def test_layers_import_under_the_bangscore_prefix_only(tmp_path: Path) -> None:
    # Away from the checkout, only what the editable install exposes can be imported.
    probe = (
        "import importlib.util as u, bangscore.build.snapshot, bangscore.shim.app;"
        "print([n for n in ('shim', 'scoring', 'ingest') if u.find_spec(n)])"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "[]"


@pytest.mark.slow
def test_python_m_build_makes_a_wheel_of_the_one_package(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    (wheel,) = tmp_path.glob("bangscore-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names}
    assert top_level == {"bangscore", wheel.name.split("-py3")[0] + ".dist-info"}
    for module in ("cli.py", "build/snapshot.py", "shim/app.py", "scoring/value.py"):
        assert f"bangscore/{module}" in names
    assert any(name.startswith("bangscore/site/templates/") for name in names)
    entry_points = zipfile.ZipFile(wheel).read(
        f"{wheel.name.split('-py3')[0]}.dist-info/entry_points.txt"
    )
    assert b"bangscore = bangscore.cli:main" in entry_points
