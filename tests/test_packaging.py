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
    for module in (
        "cli/main.py",
        "mail/smtp.py",
        "build/snapshot.py",
        "shim/app.py",
        "scoring/value.py",
    ):
        assert f"bangscore/{module}" in names
    assert any(name.startswith("bangscore/site/templates/") for name in names)
    entry_points = zipfile.ZipFile(wheel).read(
        f"{wheel.name.split('-py3')[0]}.dist-info/entry_points.txt"
    )
    assert b"bangscore = bangscore.cli.main:run" in entry_points


CONSUMER = """\
from bangscore.client import Client
from bangscore.contract.records import GameDetail


def score(api: Client, appid: int) -> int:
    game: GameDetail = api.game(appid)
    return game.bang_score


def names(api: Client) -> list[str]:
    return [item.name for item in api.lookup([620, 570]).games]
"""
WRONG = CONSUMER.replace("-> int:", "-> str:")


def consumers(folder: Path) -> list[str]:
    """Given a folder, write the right consumer and the wrong one there as ``right.py`` and
    ``wrong.py``; return their names, for one mypy run over both (a run each took twice the
    CPU: most of a run is reading the client's and pydantic's types)."""
    for name, text in {"right": CONSUMER, "wrong": WRONG}.items():
        (folder / f"{name}.py").write_text(text)
    return ["right.py", "wrong.py"]


def assert_only_the_wrong_consumer_fails(checked: subprocess.CompletedProcess[str]) -> None:
    """Given mypy's run over both consumers, assert that it read both and found one error: the
    wrong one's, returning the int score as a str (the types are seen, not Any)."""
    errors = [line for line in checked.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and errors[0].startswith("wrong.py:"), checked.stdout
    assert 'Incompatible return value type (got "int", expected "str")' in errors[0]
    assert "Found 1 error in 1 file (checked 2 source files)" in checked.stdout, checked.stdout


@pytest.mark.slow
def test_a_consumer_type_checks_strictly_against_the_installed_wheel(tmp_path: Path) -> None:
    # Issue 48: without py.typed a user's mypy saw the client as untyped (Any). The wheel is
    # installed in a folder of its own, first on the path of the mypy that checks the
    # consumer, away from the checkout and its editable install.
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    (wheel,) = tmp_path.glob("bangscore-*.whl")
    assert "bangscore/py.typed" in zipfile.ZipFile(wheel).namelist()
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
    )
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *consumers(tmp_path)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert_only_the_wrong_consumer_fails(checked)


# What a client-only install may bring (issue 56: `pip install bangscore` pulled 50 packages,
# 374 MB): the project, httpx and pydantic and what they depend on, and the venv's own tools.
CLIENT_ONLY = frozenset(
    {
        *("bangscore", "httpx", "httpcore", "h11", "anyio", "idna", "certifi", "sniffio"),
        *("pydantic", "pydantic-core", "annotated-types", "typing-extensions"),
        *("typing-inspection", "pip", "setuptools", "exceptiongroup"),
    }
)


@pytest.mark.slow
def test_a_client_only_install_is_httpx_and_pydantic_and_mypy_sees_its_types(
    tmp_path: Path,
) -> None:
    """Issue 56 item 4: the README's install (`pip install -e .`, editable) in a fresh venv
    brings the client alone, which imports, and a consumer's `mypy --strict` sees its types
    (hatch's import hook for exact editables hid them: the install now adds a folder holding
    only a link to the package)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "-c", ROOT / "requirements.lock", "-e", ROOT],
        check=True,
        capture_output=True,
    )
    frozen = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    installed = {line.split("==")[0].lower().replace("_", "-") for line in frozen.split()}
    assert installed <= CLIENT_ONLY, installed - CLIENT_ONLY
    subprocess.run(
        [python, "-c", "import bangscore.client, bangscore.contract.export"],
        cwd=tmp_path,
        check=True,
    )
    # The command line says what it needs, in one line.
    command = subprocess.run(
        [venv / "bin" / "bangscore", "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert command.returncode == 1 and "needs the server extra" in command.stderr
    assert "Traceback" not in command.stderr
    mypy = [sys.executable, "-m", "mypy", "--strict", "--no-incremental"]
    checked = subprocess.run(
        [*mypy, "--python-executable", str(python), *consumers(tmp_path)],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert_only_the_wrong_consumer_fails(checked)
