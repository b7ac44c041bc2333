"""The ``bangscore`` command line: build, serve, keys, snapshots, ingest, watch, alerts.

Configuration enters here once (:class:`bangscore.settings.Settings`, environment variables
prefixed ``BANGSCORE_``), with command-line options overriding it; everything below receives
typed values. Each command group lives in its own module, which adds its parsers and runs its
commands: :mod:`bangscore.cli.build` (build, ingest, snapshots), :mod:`bangscore.cli.serve`,
:mod:`bangscore.cli.keys` (keys, usage) and :mod:`bangscore.cli.watch` (watch, alerts).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from pydantic import ValidationError

from bangscore.cli import build, keys, serve, watch, webhooks
from bangscore.cli.lifetime import run_and_exit
from bangscore.cli.serve import RedactKeys
from bangscore.errors import StoreError, StoreUnavailable
from bangscore.settings import Settings

# What `bangscore --help` says first: plain text (the module's docstring is reStructuredText).
DESCRIPTION = (
    "BangScore's command line: build and serve snapshots, manage API keys, watches and alerts. "
    "Settings come from BANGSCORE_* variables; options override them."
)


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        name: getattr(args, name)
        for name in (
            *("state_dir", "snapshot", "store", "site_url", "host", "port", "workers"),
            *("export", "forwarded_allow_ips", "mail_dir"),
        )
        if getattr(args, name, None) is not None
    }
    return Settings(**overrides)


def parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``bangscore`` command."""
    top = argparse.ArgumentParser(prog="bangscore", description=DESCRIPTION)
    top.add_argument("--state-dir", type=Path, help="state folder (default ./var)")
    top.add_argument("--store", help="key/counter store: sqlite:///PATH or redis://HOST:PORT/DB")
    sub = top.add_subparsers(dest="command", required=True)
    build.add_parsers(sub)  # build, ingest, snapshots
    serve.add_parsers(sub)  # serve
    keys.add_parsers(sub)  # keys create|revoke|list, usage report
    watch.add_parsers(sub)  # watch add|list|remove, alerts send
    webhooks.add_parsers(sub)  # webhooks add|list|remove|test
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``bangscore`` command with ``argv`` (default: sys.argv); return the exit code."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger().addFilter(RedactKeys())
    args = parser().parse_args(argv)
    try:
        settings = _settings(args)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        print(f"error: invalid configuration: {problems}", file=sys.stderr)
        return 2
    try:
        return int(args.func(args, settings))
    except StoreUnavailable as exc:
        print(f"error: the key store {settings.store_url} failed: {exc}", file=sys.stderr)
        return 1
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def run() -> NoReturn:
    """The ``bangscore`` script and ``python -m bangscore``: :func:`main` with ``sys.argv``,
    the process ended by :func:`bangscore.cli.lifetime.run_and_exit` (no teardown)."""
    run_and_exit(main)


if __name__ == "__main__":
    run()
