"""The package's files, found by walking it: what the house's rules (tests/test_layers.py,
tests/test_api_doc.py) read, with no hand-kept list of folders.

The layer folders (build/, shim/, scoring/, ingest/) live at the repository's root and are
symbolic links under bangscore/; a walk of bangscore/ that follows links once sees every file of
the package exactly once, whatever folder is added or linked next.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGE = ROOT / "bangscore"


@functools.cache
def package_files() -> tuple[Path, ...]:
    """Return every file of the package (bangscore/, symbolic links followed, each real file
    once, caches left out), as paths under bangscore/, sorted."""
    seen: set[Path] = set()
    found: list[Path] = []
    for folder, subfolders, names in os.walk(PACKAGE, followlinks=True):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(names):
            path = Path(folder) / name
            if path.resolve() not in seen:
                seen.add(path.resolve())
                found.append(path)
    return tuple(sorted(found))


@functools.cache
def module_files() -> Mapping[str, Path]:
    """Return every module of the package by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for path in package_files():
        if path.suffix != ".py":
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        found[".".join(parts)] = path
    return MappingProxyType(found)
