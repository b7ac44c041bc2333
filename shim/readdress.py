"""The site's address given at serve time (issue 56, item 1): a snapshot built for one address
served at another, so ``make run PORT=9001`` after ``make run`` serves at once, with no build.

A build bakes the site's and the API's addresses into its bodies, as the wire contract wants
them absolute (every game's ``url``, the OpenAPI ``servers``, the Atom feeds, the pages' footers)
and records both in the snapshot's manifest (``meta.site_url``, ``meta.base_url``). A process
serving at other addresses (another port, say) swaps them as a body enters its cache, and only
then: :meth:`bangscore.shim.source.SnapshotSource._fetch` is the one place, so a cached body
(the hot path) costs nothing, and a snapshot served where it was built costs nothing at all.

Measured (bench/readdress.py): a real game page moved costs about a millisecond of CPU as it is
first read (decompress, swap, compress again), against the build of several minutes it saves.
An object's ETag stays the stored one: it names the representation at its URL, and a URL at
another address is another URL.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Readdress:
    """How one snapshot's bodies move to the serving addresses: each recorded address (bytes)
    and the serving one replacing it, the API's base URL served (for ``Link`` headers), and the
    pattern matching any recorded address (the longest first, so one never rewrites part of
    another; a single pass, so a replacement is never rewritten again)."""

    moves: Mapping[bytes, bytes]
    base_url: str
    pattern: re.Pattern[bytes]

    def apply(self, body: bytes) -> bytes:
        """Given a body's identity bytes, return them with every recorded address replaced by
        the serving one; the very same object when none occurs (so the caller can keep the
        stored compressed bytes)."""
        if len(self.moves) == 1:
            ((old, new),) = self.moves.items()
            return body.replace(old, new) if old in body else body
        if self.pattern.search(body) is None:
            return body
        return self.pattern.sub(lambda m: self.moves[m.group(0)], body)


def readdress_for(meta: Mapping[str, Any], site_url: str, base_url: str) -> Readdress | None:
    """Given a snapshot manifest's ``meta`` and the serving site and API base URLs, return how
    its bodies move to them, or None when they need not (built for these addresses, or a
    snapshot that recorded none: its bodies are served as they are)."""
    built_site = str(meta.get("site_url") or "").rstrip("/")
    built_base = str(meta.get("base_url") or built_site).rstrip("/")
    site, base = site_url.rstrip("/"), base_url.rstrip("/")
    # Built with one address for both, the bodies cannot tell a site link from an API one:
    # the site's wins (game pages, problem types and most links are the site's).
    pairs = (
        [(built_site, site)]
        if built_site == built_base
        else [(built_site, site), (built_base, base)]
    )
    moves = {old.encode(): new.encode() for old, new in pairs if old and old != new}
    if not moves:
        return None
    longest = sorted(moves, key=len, reverse=True)
    pattern = re.compile(b"|".join(re.escape(old) for old in longest))
    return Readdress(moves, base, pattern)
