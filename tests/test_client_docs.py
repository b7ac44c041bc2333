"""The Python client's examples in docs/API.md and README.md, run as written against a real
``bangscore serve`` over the bundled catalogue (issue 56 item 5: the docs' ``api.game(5)`` met
an unknown appid, ``NotFound``, where the text promised ``GameNotRated``)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import LocalStorage
from tests.hardening.conftest import add_key
from tests.support.api_examples import python_blocks
from tests.support.live import ShimServer

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def real_server(
    tmp_path_factory: pytest.TempPathFactory,
    real_snapshot: tuple[LocalStorage, list[ScoredGame]],
) -> Iterator[tuple[ShimServer, str]]:
    """A server over the real snapshot and a key on it."""
    state = tmp_path_factory.mktemp("docs-client")
    server = ShimServer(
        state, state / "server.log", snapshot=real_snapshot[0].root, traced=False
    ).start()
    try:
        yield server, add_key(state, plan="free", limit=1000)
    finally:
        server.stop()


def run(code: str, base_url: str, key: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Given an example's code, the server's URL and a key, run it as written (the docs'
    ``{base_url}`` filled in, the key from BANGSCORE_API_KEY) and return what it printed."""
    monkeypatch.setenv("BANGSCORE_API_KEY", key)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.replace("{base_url}", base_url), "<example>", "exec"), {})
    return printed.getvalue()


def test_the_reference_s_client_example_runs_as_written(
    real_server: tuple[ShimServer, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (example,) = python_blocks(ROOT / "docs/API.md", "### Python client")
    printed = run(example, real_server[0].url, real_server[1], monkeypatch).splitlines()
    assert printed[0].startswith("Portal 2 ")
    assert printed[1].startswith("Hades ")
    assert printed[2] == "[(410, 'not_a_game'), (271590, 'superseded')] [999999999]"
    facets = printed[3:-2]  # the Deck-verified games with German audio, every page
    assert facets and all(" verified " in line for line in facets)
    assert printed[-2:] == ["superseded 3240220", "0 None"]


def test_the_readme_s_client_example_runs_as_written(
    real_server: tuple[ShimServer, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (example,) = python_blocks(ROOT / "README.md", "### The Python client")
    example = example.replace("http://127.0.0.1:8000", "{base_url}")
    printed = run(example, real_server[0].url, real_server[1], monkeypatch).splitlines()
    assert [line.split(" ")[0] for line in printed] == ["Portal", "Hades", "Dota"]
