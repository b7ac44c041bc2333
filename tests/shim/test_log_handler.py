"""The server's own log lines (shim/log_handler.py): one line each, whole, never blocking."""

from __future__ import annotations

import logging
import os

import pytest

from bangscore.shim import log_handler
from bangscore.shim.log_handler import CUT_MARKER, PIPE_BUF, NonBlockingHandler, encoded_line


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param(
            "Invalid HTTP request received.", b"Invalid HTTP request received.\n", id="short"
        ),
        pytest.param("two\nlines\r", b"two\\nlines\\r\n", id="line-breaks-escaped"),
        pytest.param("caf\u00e9", "caf\u00e9\n".encode(), id="utf-8"),
        pytest.param("x" * (PIPE_BUF - 1), b"x" * (PIPE_BUF - 1) + b"\n", id="exactly-pipe-buf"),
        pytest.param(
            "x" * PIPE_BUF, b"x" * (PIPE_BUF - len(CUT_MARKER)) + CUT_MARKER, id="one-byte-over"
        ),
    ],
)
def test_a_message_is_one_line_of_at_most_pipe_buf_bytes(text: str, line: bytes) -> None:
    assert encoded_line(text) == line
    assert len(encoded_line(text)) <= PIPE_BUF


def test_a_long_message_is_cut_on_a_character_boundary() -> None:
    line = encoded_line("\u00e9" * PIPE_BUF)  # two bytes each
    assert line.endswith(CUT_MARKER) and len(line) <= PIPE_BUF
    assert line[: -len(CUT_MARKER)].decode() == "\u00e9" * ((PIPE_BUF - len(CUT_MARKER)) // 2)


def test_a_full_pipe_drops_and_counts_instead_of_blocking() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with os.fdopen(write_end, "w") as stream:
        while True:  # fill the pipe (64 KiB on Linux): it stops taking bytes
            try:
                os.write(write_end, b"x" * PIPE_BUF)
            except BlockingIOError:
                break
        handler = NonBlockingHandler(stream)
        logger = logging.Logger("test.full-pipe")
        logger.addHandler(handler)
        before = log_handler.DROPPED
        logger.warning("nobody reads this")
        assert before + 1 == log_handler.DROPPED
        os.read(read_end, 1 << 20)  # a reader comes back: the next message is written
        logger.warning("read at last")
        assert os.read(read_end, 1 << 20) == b"read at last\n"
        assert before + 1 == log_handler.DROPPED
    os.close(read_end)
