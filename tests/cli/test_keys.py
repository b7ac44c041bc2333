"""The ``keys`` commands as an operator meets them (issue 56 item 7): revoke by the id or the
whole key, and help that says what each option takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bangscore.cli.keys import revoked_id
from bangscore.cli.main import parser
from bangscore.stores.keys import generate_key, key_id
from tests.cli.test_main import run, state  # noqa: F401  (state is the fixture of the state folder)

KEY = generate_key()


@pytest.mark.parametrize(
    ("given", "wanted"),
    [
        pytest.param(KEY, key_id(KEY), id="whole-key"),
        pytest.param(key_id(KEY), key_id(KEY), id="id"),
        pytest.param(KEY[:-1] + ("A" if KEY[-1] != "A" else "B"), None, id="bad-checksum"),
        pytest.param(KEY[:20], None, id="part-of-a-key"),
        pytest.param("nokey12", None, id="seven-characters"),
    ],
)
def test_revoked_id(given: str, wanted: str | None) -> None:
    assert revoked_id(given) == wanted


def test_keys_revoke_takes_the_whole_key_and_never_prints_it(
    state: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        state, capsys, "keys", "create", "--account", "a@x.io", "--plan", "free", "--limit", "3"
    )
    key = out.strip().splitlines()[-1]
    code, out, err = run(state, capsys, "keys", "revoke", key)
    assert code == 0 and f"revoked key {key_id(key)}" in out
    assert key not in out + err
    code, out, err = run(state, capsys, "keys", "revoke", key[:-2])
    assert code == 2 and "8-character id" in err and "whole key" in err
    assert key[:-2] not in err


def print_help(*argv: str) -> None:
    """Given a command's words, print its --help text (argparse exits after it)."""
    with pytest.raises(SystemExit):
        parser().parse_args([*argv, "--help"])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        pytest.param(
            ["keys", "create"],
            ["free: 1,000 requests a day", "required with --plan bulk"],
            id="create",
        ),
        pytest.param(["keys", "revoke"], ["8-character id", "whole key"], id="revoke"),
        pytest.param(["serve"], ["default 127.0.0.1", "default 8000", "default 1,"], id="serve"),
        pytest.param(["snapshots", "gc"], ["default 24"], id="gc"),
        pytest.param([], ["BangScore's command line"], id="top"),
    ],
)
def test_help_says_what_each_option_takes_and_its_default(
    argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    print_help(*argv)
    text = " ".join(capsys.readouterr().out.split())
    assert all(w in text for w in words), text
    assert "``" not in text  # reStructuredText stays in docstrings
