"""The outside tools the test suite drives, checked before it starts (``make test`` runs
``python -m tests.support.tools`` first): a missing one fails the run in its first second with the
command that installs it, instead of minutes later after a real catalogue was published.

- chromium and axe-core: the browser tests (``tests/support/browser.py``);
- nginx: the deployment stack's edge (``tests/infra/test_stack.py``, ``infra/stack.sh``);
- wrk: the benchmarks' load generator (``make bench``, ``bench/wrk.py``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.support.browser import AXE, CHROMIUM

# Where Debian installs nginx: stack.sh falls back to it when /usr/sbin is not on PATH.
NGINX = Path("/usr/sbin/nginx")


def missing() -> list[str]:
    """Return one line per tool the suite needs that is not installed here (empty: all are)."""
    lines = []
    if shutil.which(CHROMIUM) is None:
        lines.append(f"{CHROMIUM} is missing: run `make deps` (apt-get install chromium)")
    if not AXE.exists():
        lines.append(f"{AXE} is missing: run `make deps` (npm ci installs axe-core)")
    if shutil.which("nginx") is None and not NGINX.exists():
        lines.append("nginx is missing: run `make deps` (apt-get install nginx)")
    if shutil.which("wrk") is None:
        lines.append("wrk is missing: run `make deps` (apt-get install wrk)")
    return lines


def main() -> int:
    """Print what is missing to stderr; return 1 if anything is, else 0."""
    lines = missing()
    for line in lines:
        print(f"error: {line}", file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    raise SystemExit(main())
