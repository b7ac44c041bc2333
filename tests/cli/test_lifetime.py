"""How the ``bangscore`` script ends (bangscore.cli.lifetime): the command's exit code, what
it printed flushed through a pipe, and what it held never freed. Each case runs in a process
of its own, since the process ends with ``os._exit``."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from bangscore.cli.lifetime import hold

PRELUDE = textwrap.dedent(
    """
    import sys
    from bangscore.cli.lifetime import hold, run_and_exit

    class Noisy:
        def __del__(self):
            print("freed")
    """
)


def run(body: str) -> subprocess.CompletedProcess[str]:
    """Given the body of ``command()`` (its lines, indented by four), run it under
    run_and_exit in a new interpreter; return what it printed and its exit code."""
    script = PRELUDE + "def command():\n" + textwrap.indent(textwrap.dedent(body), "    ")
    script += "\nrun_and_exit(command)\n"
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("body", "code", "out", "err"),
    [
        ("print('built')\nreturn 0", 0, "built\n", ""),
        ("print('half', end='')\nreturn 3", 3, "half", ""),
        ("raise SystemExit(2)", 2, "", ""),
        ("raise SystemExit(None)", 0, "", ""),
        ("raise SystemExit('error: no such key')", 1, "", "error: no such key\n"),
        ("raise ValueError('a bug')", 1, "", "ValueError: a bug"),
        ("raise KeyboardInterrupt", 130, "", "KeyboardInterrupt"),
    ],
    ids=["ok", "code-unflushed-line", "exit-int", "exit-none", "exit-message", "bug", "ctrl-c"],
)
def test_the_exit_code_and_what_was_printed_survive_the_fast_exit(
    body: str, code: int, out: str, err: str
) -> None:
    done = run(body)
    assert done.returncode == code
    assert done.stdout == out
    assert err in done.stderr


def test_what_a_command_holds_is_never_freed_and_the_rest_is() -> None:
    done = run("kept, dropped = Noisy(), Noisy()\nhold(kept)\ndel dropped\nreturn 0")
    assert (done.returncode, done.stdout) == (0, "freed\n")  # the dropped one only


def test_held_by_a_command_run_in_process_is_kept_nowhere() -> None:
    import gc
    import weakref

    class Big:
        pass

    big = Big()
    ref = weakref.ref(big)
    hold(big)
    del big
    gc.collect()
    assert ref() is None
