"""``python -m bangscore``: the same command line as the ``bangscore`` script."""

from bangscore.cli.main import run

run()
