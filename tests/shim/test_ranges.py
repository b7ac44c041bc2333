"""Byte ranges of a download (RFC 9110 section 14): one range served, the rest answered whole."""

from __future__ import annotations

import pytest

from bangscore.shim.ranges import Span, Unsatisfiable, requested_span

SIZE = 1000
ETAG = '"0123456789abcdef0123456789abcdef"'


@pytest.mark.parametrize(
    ("header", "span"),
    [
        (None, (0, 1000)),
        ("bytes=0-99", (0, 100)),
        ("bytes=100-", (100, 1000)),
        ("bytes=-500", (500, 1000)),
        ("bytes=-5000", (0, 1000)),
        ("bytes=990-5000", (990, 1000)),
        ("BYTES = 5 - 9", (5, 10)),
        ("bytes=999-999", (999, 1000)),
        ("bytes=0-99,200-299", (0, 1000)),
        ("bytes=9-5", (0, 1000)),
        ("items=0-9", (0, 1000)),
        ("bytes=a-9", (0, 1000)),
        ("bytes=+1-9", (0, 1000)),
        ("bytes=0x1-9", (0, 1000)),
        ("bytes=5", (0, 1000)),
        ("bytes=-", (0, 1000)),
        ("bytes=" + "9" * 40 + "-", (0, 1000)),
        ("bytes=١-٩", (0, 1000)),
    ],
    ids=[
        "none", "first-100", "open-end", "suffix", "suffix-past-start", "last-cut-to-end",
        "spaces-and-case", "last-byte", "two-ranges-whole", "backwards-ignored", "other-unit",
        "not-a-number", "signed", "hex", "no-dash", "no-numbers", "huge-number",
        "non-ascii-digits",
    ],
)  # fmt: skip
def test_requested_span(header: str | None, span: tuple[int, int]) -> None:
    got = requested_span(header, SIZE)
    assert (got.start, got.stop, got.size) == (*span, SIZE)


@pytest.mark.parametrize("header", ["bytes=1000-", "bytes=5000-6000", "bytes=-0"])
def test_a_range_past_the_end_is_unsatisfiable(header: str) -> None:
    with pytest.raises(Unsatisfiable):
        requested_span(header, SIZE)


@pytest.mark.parametrize(
    ("if_range", "partial"),
    [(None, True), (ETAG, True), (f" {ETAG} ", True), ('"other"', False), (f"W/{ETAG}", False),
     ("Sat, 28 Nov 2026 10:00:00 GMT", False)],
    ids=["absent", "same", "same-spaced", "other-tag", "weak-tag", "a-date"],
)  # fmt: skip
def test_if_range_naming_another_version_answers_whole(if_range: str | None, partial: bool) -> None:
    got = requested_span("bytes=0-9", SIZE, if_range=if_range, etag=ETAG)
    assert got == (Span(0, 10, SIZE) if partial else Span(0, SIZE, SIZE))


def test_span_headers() -> None:
    span = Span(100, 200, SIZE)
    assert (span.length, span.whole, span.content_range()) == (100, False, "bytes 100-199/1000")
    assert Span(0, SIZE, SIZE).whole
