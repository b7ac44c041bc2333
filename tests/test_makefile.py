"""The Makefile as a newcomer reads it: ``make help`` (issue 56 item 7: two rows misaligned)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_make_help_lists_every_target_with_its_text_in_one_column() -> None:
    shown = subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    targets = re.findall(r"^([a-z-]+):.*?## ", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert [line.split()[0] for line in shown] == targets
    longest = max(map(len, targets))
    columns = {len(line) - len(line[2 + longest :].lstrip()) for line in shown}
    assert columns == {2 + longest + 2}, shown
    assert any(line.startswith("  forecast-backtest  a build as of 24 Jun 2026") for line in shown)
