"""How a command's process ends: the ``bangscore`` script exits without tearing the interpreter
down, and keeps what a command built alive until then, so that exit frees nothing.

A build ends holding the catalogue and the scored games, millions of objects; freeing them one
by one after its last line took 1.2 s on a quiet machine and up to 10 s on a loaded one (2-3
Dec 2026), and ``make run``'s next command (the demo key, then the server) waited for it
(issue 56). Nothing of ours needs the teardown: the stores commit before a command returns, the
games' pages are written by a process of its own, and coverage saves its data on ``os._exit``
(``patch = ["_exit"]`` in pyproject.toml). mypy ends the same way for the same reason
(``mypy.util.hard_exit``). Tests call :func:`bangscore.cli.main.main`, which returns, and for
them :func:`hold` keeps nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

_held: list[object] | None = None  # a list only while run_and_exit runs the command


def hold(*objects: object) -> None:
    """Given what a command built, keep it alive until the process exits when the command
    runs under :func:`run_and_exit` (the ``bangscore`` script); keep nothing otherwise."""
    if _held is not None:
        _held.extend(objects)


def run_and_exit(command: Callable[[], int]) -> NoReturn:
    """Given a command returning an exit code, run it, flush what it printed and logged, and
    end the process with that code (1 if it raised, after its traceback) without freeing
    what it built (:func:`hold`)."""
    global _held
    _held = []
    code = 1
    try:
        code = command()
    except SystemExit as exc:  # argparse's --help and usage errors
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except KeyboardInterrupt:  # Ctrl-C: the shell's 128 + SIGINT, as Python's own exit says
        traceback.print_exc()
        code = 130
    except BaseException:  # printed as Python prints it, then the exit code Python gives: 1
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream
                stream.flush()
        logging.shutdown()
    os._exit(code)
