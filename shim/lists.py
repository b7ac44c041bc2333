"""List pages as the API and the website read them: precomputed by the builder for the
filter combinations it chose, composed per request (:mod:`bangscore.shim.compose`) for the rest.
"""

from __future__ import annotations

from bangscore.contract.filters import Filters
from bangscore.contract.objects import list_key
from bangscore.shim.answer import JSON_TYPE, read, stored
from bangscore.shim.source import LoadedSnapshot, SnapshotSource


class ListPages:
    """The one path by which the API's list and the website's browse page select games: the
    builder's precomputed list page when it wrote one, else one composed from the snapshot's
    compact index (:class:`CompactIndex`)."""

    def __init__(self, source: SnapshotSource) -> None:
        self.source = source

    async def page(
        self, snap: LoadedSnapshot, filters: Filters, page: int, *, once: bool = False
    ) -> tuple[bytes, str]:
        """Given a snapshot, filters, a 1-based page and whether to list each series once (the
        website's lists; the API keeps every game), return (list envelope bytes, strong ETag);
        ObjectStorageError if a precomputed page cannot be read."""
        if once:
            return snap.index.page(filters, page, once=True)
        combo = filters.combo_key
        key = list_key(combo, page) if combo else None
        if key is not None and snap.entry(key) is not None:
            found = await read(self.source, snap, stored(snap, key, JSON_TYPE))
            return found.body, found.etag
        return snap.index.page(filters, page)
