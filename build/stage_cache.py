"""A build's stages kept between builds (issue 56, item 1): the catalogue joined from the bundled
dumps and the scored games, each under a key that digests its inputs and the code that made it,
so a build after an edit to a template re-renders the pages but reads the scores back, and an
edit to the data or the scoring computes them again.

The caller names the key (``bangscore build`` digests the data folder and the ingest and
scoring packages: :func:`bangscore.cli.inputs.input_digest`). Each stage keeps its newest
result only, as a pickle under ``<state dir>/cache/stages/`` written to a temporary file and
renamed (a killed build leaves none half written); one that does not load is made again. The
files are the build's own, in its own state folder: never read one from elsewhere (a pickle
runs code as it loads).

Keeping is not free: pickling the real catalogue's two stages takes about 15 s of CPU, which
a first build's wall time would wait on. A cache made with ``defer`` holds what it made until
:meth:`StageCache.keep_made` (``make run`` calls it in the background process that writes the
Bulk export, after the snapshot is current: :mod:`bangscore.cli.background`).
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

T = TypeVar("T")
log = logging.getLogger("bangscore.build")


class StageCache:
    """Stage results by stage name and key, in one folder; ``reused`` names the stages read
    back in this build, ``made`` those computed (and kept)."""

    def __init__(self, folder: Path, *, defer: bool = False) -> None:
        self.folder = folder
        self.reused: list[str] = []
        self.made: list[str] = []
        self._defer = defer
        self._unkept: list[tuple[str, Path, object]] = []

    def _path(self, stage: str, key: str) -> Path:
        return self.folder / f"{stage}-{key[:40]}.pickle"

    def get(self, stage: str, key: str, make: Callable[[], T]) -> T:
        """Given a stage's name, the digest of its inputs and code, and the function computing
        it, return the kept result for that key, else compute it, keep it (in place of the
        stage's older ones; with ``defer``, at :meth:`keep_made`) and return it. A kept file
        that cannot be written only costs the next build the stage; one that does not load is
        computed again."""
        path = self._path(stage, key)
        try:
            with path.open("rb") as handle:
                value = cast(T, pickle.load(handle))
        except FileNotFoundError:
            pass
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
            log.warning("the kept %s stage %s does not load (%s): made again", stage, path, exc)
        else:
            self.reused.append(stage)
            return value
        value = make()
        self.made.append(stage)
        self._unkept.append((stage, path, value))
        if not self._defer:
            self.keep_made()
        return value

    def keep_made(self) -> list[str]:
        """Write the stages made and not kept yet; return their names (those that could not
        be written are logged and left out)."""
        kept = []
        while self._unkept:
            stage, path, value = self._unkept.pop(0)
            try:
                self._keep(stage, path, value)
            except OSError as exc:
                log.warning("could not keep the %s stage in %s: %s", stage, self.folder, exc)
            else:
                kept.append(stage)
        return kept

    def _keep(self, stage: str, path: Path, value: object) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with partial.open("wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        partial.replace(path)
        for older in self.folder.glob(f"{stage}-*.pickle"):
            if older != path:
                older.unlink(missing_ok=True)
