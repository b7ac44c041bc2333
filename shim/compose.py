"""Composing list pages for filter combinations the builder did not precompute.

:class:`CompactIndex` holds the builder's compact index (:mod:`bangscore.contract.compact`:
parallel columns in list order) as numpy views into its bytes, so a filter is a few vectorised
comparisons and a page is a join of already-serialized items: the same bytes
:func:`bangscore.contract.paging.render_page` gives the builder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt
import orjson

from bangscore.contract.compact import decode_index, encode_index, facet_postings, tag_postings
from bangscore.contract.facet_filters import AUDIO, LANGUAGE
from bangscore.contract.filters import Filters
from bangscore.contract.not_rated import NotRatedIndex
from bangscore.contract.paging import page_bounds, render_page
from bangscore.manifest import etag_for
from bangscore.site.better_value import (
    BETTER_VALUE_COUNT,
    HEADROOM_DENOMINATOR,
    HEADROOM_NUMERATOR,
)

Positions = npt.NDArray[np.int64]


class CompactIndex:
    """The catalog's filter columns and serialized list items, in list order: numpy views into
    the one ``bytes`` object of :mod:`bangscore.contract.compact` (about 35 MB for 40,000
    games, loaded in milliseconds)."""

    def __init__(self, raw: bytes) -> None:
        """Given the layout's bytes, return the index;
        ValueError if the bytes are not a well-formed compact index."""
        index = decode_index(raw)
        columns = index.columns
        self._raw = raw
        # Where each item starts in ``raw`` (and where the last ends), as Python ints: slicing
        # an item is then two list reads, inlined where a request takes many (a lookup).
        self._bounds: list[int] = (columns["item_starts"] + index.items_at).tolist()
        self.appids: list[int] = columns["appid"].tolist()
        self.genre_names = index.genre_names
        self.genres = columns["genre"]
        self.years = columns["year"]
        self.on_sale = columns["on_sale"]
        self.adult = columns["adult"]
        # The better-value box's columns (bangscore.site.better_value).
        self.scores = columns["bang_score"]
        self.cents = columns["cents"]
        # Each game's series as a small integer code (-1: no series), for the website's lists,
        # which show a series once, at its best part.
        self.series = columns["series"]
        self.tag_postings = tag_postings(index)
        # Each language tag's games (interface or subtitles; full audio), as tags' are.
        self.facet_postings = facet_postings(index)
        # Every column by its layout name, as the list filters' predicates read them.
        self.columns = columns
        self.position = {a: i for i, a in enumerate(self.appids)}
        self.prices_as_of: str | None = index.prices_as_of
        self._all = np.arange(len(self.appids), dtype=np.int64)

    @classmethod
    def from_bytes(cls, raw: bytes) -> CompactIndex:
        """Given the index object's bytes (the binary layout, or the JSON that builds before
        it wrote, still published until the next build), return the loaded index; ValueError
        if malformed."""
        if raw[:1] == b"{":
            try:
                raw = encode_index(orjson.loads(raw))
            except (KeyError, TypeError, orjson.JSONDecodeError) as exc:
                raise ValueError(f"corrupt compact index: {exc}") from exc
        return cls(raw)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> CompactIndex:
        """Given the index's values as parallel lists (:func:`encode_index`), return it."""
        return cls(encode_index(data))

    def item(self, position: int) -> bytes:
        """Given a position in list order, return that game's serialized list item."""
        return self._raw[self._bounds[position] : self._bounds[position + 1]]

    def url(self, position: int) -> str:
        """Given a position in list order, return that game's page URL as the build wrote it
        (with the host it was built for)."""
        return str(orjson.loads(self.item(position))["url"])

    @property
    def nbytes(self) -> int:
        """Return the bytes the index holds (its layout; the small lookup tables aside)."""
        return len(self._raw)

    def select(self, filters: Filters) -> Positions:
        """Given filters, return the positions (list order) of every matching game: the mask of
        each filter's predicate over this index's columns (:meth:`Filters.mask`), true indexes
        already in list order."""
        return np.flatnonzero(filters.mask(self)).astype(np.int64, copy=False)

    def with_audio(
        self, filters: Filters, appids: Sequence[int]
    ) -> tuple[str, frozenset[int]] | None:
        """Given a query's filters and the appids of a page, return (the language it filters
        by: ``audio``, else ``language``; those of the appids with full audio in it), or None
        when it filters by no language: the browse rows' "Audio in ..." badges."""
        tag = filters.get(AUDIO) or filters.get(LANGUAGE)
        if tag is None:
            return None
        posting = self.facet_postings["audio"].get(tag, np.zeros(0, dtype=np.int64))
        spoken = {int(p) for p in posting}
        return tag, frozenset(a for a in appids if self.position.get(a, -1) in spoken)

    def once_per_series(self, hits: Positions) -> Positions:
        """Given positions in list order, return them without every part of a series after its
        first (best-ranked) one: a series once, as the website lists it."""
        codes = self.series[hits]
        parts = np.flatnonzero(codes >= 0)
        if parts.size == 0:
            return hits
        _, first = np.unique(codes[parts], return_index=True)
        keep = np.ones(hits.size, dtype=bool)
        keep[parts] = False
        keep[parts[first]] = True
        return hits[keep]

    def page(self, filters: Filters, page: int, *, once: bool = False) -> tuple[bytes, str]:
        """Given filters, a 1-based page and whether to list each series once (the website's
        lists: :meth:`once_per_series`), return (envelope bytes, strong ETag). Not kept
        here: the memo of the route that asked keeps what it makes of it."""
        hits = self.select(filters)
        if once:
            hits = self.once_per_series(hits)
        start, stop = page_bounds(page)
        body = render_page(
            [self.item(i) for i in hits[start:stop]], page, len(hits), None, self.prices_as_of
        )
        return body, etag_for(body)

    def better_value(self, appid: int) -> list[dict[str, Any]]:
        """Given a rated appid, return the list items of its better-value box with adult games
        among the candidates (what ``adult=true`` shows), best first: the vectorised twin of
        :func:`bangscore.site.better_value.better_value_of`. KeyError for an unknown appid."""
        n = self.position[appid]
        fit = (
            (self.genres == self.genres[n])
            & (self.scores > self.scores[n])
            & (self.cents * HEADROOM_DENOMINATOR <= self.cents[n] * HEADROOM_NUMERATOR)
        )
        return [orjson.loads(self.item(i)) for i in np.flatnonzero(fit)[:BETTER_VALUE_COUNT]]

    def shown(
        self, appids: list[int], adult: bool = False, max_price_cents: int | None = None
    ) -> list[int]:
        """Given appids in the catalog, return those listed with the adult toggle ``adult``
        (False: adult games left out) and priced at most ``max_price_cents`` (None: any
        price), in order."""
        position, flags, cents = self.position, self.adult, self.cents
        return [
            a
            for a in appids
            if (adult or not flags[position[a]])
            and (max_price_cents is None or cents[position[a]] <= max_price_cents)
        ]

    def items_for(self, appids: list[int]) -> list[bytes]:
        """Given appids in the catalog, return their serialized list items in that order."""
        raw, bounds, position = self._raw, self._bounds, self.position
        return [raw[bounds[p] : bounds[p + 1]] for p in (position[a] for a in appids)]

    def name_and_url(self, appid: int | None) -> tuple[str, str] | None:
        """Given an appid (or None), return the rated game's name and page path (root-relative,
        as the site's own links are: the index's URLs carry the host the build was made for),
        or None when it is not in the index."""
        at = self.position.get(appid) if appid is not None else None
        if at is None:
            return None
        return str(orjson.loads(self.item(at))["name"]), urlsplit(self.url(at)).path

    def lookup(self, appids: tuple[int, ...], not_rated: NotRatedIndex) -> tuple[bytes, str]:
        """Given appids (each once, in the order asked) and the snapshot's index of known apps
        that are not rated, return (the lookup answer's bytes, strong ETag)
        (docs/API.md#lookup): ``{"prices_as_of", "games", "not_rated", "not_found"}``, the
        rated games' already-serialized list items joined in the order asked.

        A dict lookup per appid and a join: about a microsecond per id, whatever the catalogue.
        """
        games: list[bytes] = []
        unrated: list[dict[str, Any]] = []
        missing: list[int] = []
        raw, bounds, position = self._raw, self._bounds, self.position
        for appid in appids:
            at = position.get(appid)
            if at is not None:
                games.append(raw[bounds[at] : bounds[at + 1]])
                continue
            known = not_rated.lookup(appid)
            if known is not None:
                unrated.append(
                    {
                        "appid": appid,
                        "reason": known[1],
                        "superseded_by": not_rated.superseded_by(appid),
                    }
                )
            else:
                missing.append(appid)
        body = b"".join(
            (
                b'{"prices_as_of":',
                orjson.dumps(self.prices_as_of),
                b',"games":[',
                b",".join(games),
                b'],"not_rated":',
                orjson.dumps(unrated),
                b',"not_found":',
                orjson.dumps(missing),
                b"}",
            )
        )
        return body, etag_for(body)
