"""Tests of the bundled dump readers; :data:`UNSAFE_IN_NAMES` is their name tests' table."""

from __future__ import annotations

import pytest

# Characters no name may keep (issue 36): each is put inside a game name of a dump row, and the
# reader must give the name without it. Latin-1 ones also fit the 2018 players file.
UNSAFE_IN_NAMES = [
    pytest.param("\x00", id="NUL"),
    pytest.param("\x07", id="BEL"),
    pytest.param("\x1b", id="ESC"),
    pytest.param("\x7f", id="DEL"),
    pytest.param("\x9b", id="C1-CSI"),
    pytest.param("\u202e", id="U+202E-right-to-left-override"),
    pytest.param("\u202a", id="U+202A-left-to-right-embedding"),
    pytest.param("\u2066", id="U+2066-left-to-right-isolate"),
    pytest.param("\u2069", id="U+2069-pop-directional-isolate"),
    pytest.param("\u200e", id="U+200E-left-to-right-mark"),
    pytest.param("\u061c", id="U+061C-arabic-letter-mark"),
]
