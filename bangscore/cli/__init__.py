"""The ``bangscore`` command line, the composition root: :mod:`bangscore.cli.main` reads the
settings once and hands typed values to the command groups, one module each
(:mod:`~bangscore.cli.build`, :mod:`~bangscore.cli.serve`, :mod:`~bangscore.cli.keys`,
:mod:`~bangscore.cli.watch`), which share argument types (:mod:`~bangscore.cli.arguments`);
the operators' usage report (:mod:`~bangscore.cli.usage`) and the README's settings table
(:mod:`~bangscore.cli.settings_doc`) sit beside them."""

import importlib.util

# `pip install bangscore` is the Python client alone (httpx, pydantic); the command line needs
# the server extra. Said in one line, not as a traceback of the first missing import.
if importlib.util.find_spec("starlette") is None:  # pragma: no cover (a client-only install)
    raise SystemExit(
        'bangscore\'s command line needs the server extra: pip install -e ".[server]" '
        '(or pip install "bangscore[server]")'
    )
