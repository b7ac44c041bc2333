"""The pieces the OpenAPI document's parameter patterns are built from.

Patterns state what the shim's parameter checks accept (:mod:`bangscore.shim.params`), so that
a client and the fuzzer can tell a valid request from an invalid one from the document alone.
Text is measured after trimming, so a pattern allows whitespace around what it measures: a
``maxLength`` would count that whitespace too. The route table (:mod:`bangscore.contract.api`)
and the list filters (:mod:`bangscore.contract.filters`) both build theirs from these.
"""

from __future__ import annotations


def any_case(word: str) -> str:
    """Given a word, return a pattern matching it in any case, letter by letter (``[tT]``):
    ``(?i)`` means other things, or nothing, in other regex dialects."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


def _spaces() -> str:
    # What str.strip() removes, as ranges: "\\s" means other things in other regex dialects.
    points = [i for i in range(0x3001) if chr(i).isspace()]
    runs: list[list[int]] = []
    for i in points:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return "".join(f"\\u{a:04x}" + (f"-\\u{b:04x}" if b > a else "") for a, b in runs)


SPACES = _spaces()
"""Every character ``str.strip`` removes, as the inside of a character class."""
WS = f"[{SPACES}]*"
"""Any run of whitespace, none included."""
SOLID = f"[^,{SPACES}]"
"""One character of a comma list's item that is neither a comma nor whitespace."""
