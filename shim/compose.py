"""Composing list pages for filter combinations the builder did not precompute.

:class:`CompactIndex` loads the builder's compact index (parallel columns in list order) into
numpy arrays, so a filter is a few vectorised comparisons and a page is a join of
already-serialized items: the same bytes :func:`bangscore.contract.paging.render_page` gives
the builder.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt
import orjson

from bangscore.contract.filters import Filters
from bangscore.contract.not_rated import NotRatedIndex
from bangscore.contract.paging import page_bounds, render_page
from bangscore.manifest import etag_for
from bangscore.shim.lru import AnswerBudgets, Lru, page_weight
from bangscore.site.better_value import (
    BETTER_VALUE_COUNT,
    HEADROOM_DENOMINATOR,
    HEADROOM_NUMERATOR,
    cents,
)

Positions = npt.NDArray[np.int64]


class CompactIndex:
    """The catalog's filter columns and serialized list items, in list order."""

    def __init__(self, data: dict[str, Any], *, page_bytes: int = AnswerBudgets().composed) -> None:
        self.appids: list[int] = [int(a) for a in data["appid"]]
        self.items: list[bytes] = [orjson.dumps(i) for i in data["items"]]
        if len(self.items) != len(self.appids):
            raise ValueError("compact index columns differ in length")
        # Genres as small integer codes: a genre filter is then one table lookup per game.
        self.genre_names: list[str] = sorted(set(data["genre"]))
        code = {g: i for i, g in enumerate(self.genre_names)}
        self.genres = np.array([code[g] for g in data["genre"]], dtype=np.int16)
        self.years = np.array([y or 0 for y in data["year"]], dtype=np.int32)
        self.on_sale = np.array([d > 0 for d in data["discount"]], dtype=bool)
        # Indexes built before the adult flag have no such column: no game is adult there.
        self.adult = np.array(data.get("adult") or [False] * len(self.appids), dtype=bool)
        # The better-value box's columns (bangscore.site.better_value), from the list items.
        self.scores = np.array([int(i["bang_score"]) for i in data["items"]], dtype=np.int32)
        self.cents = np.array([cents(float(i["price_usd"])) for i in data["items"]], dtype=np.int64)
        postings: dict[str, list[int]] = {}
        for pos, tags in enumerate(data["tags"]):
            for tag in tags:
                postings.setdefault(tag, []).append(pos)
        self.tag_postings = {t: np.array(p, dtype=np.int64) for t, p in postings.items()}
        self.position = {a: i for i, a in enumerate(self.appids)}
        # Each game's series as a small integer code (-1: no series), for the website's lists,
        # which show a series once, at its best part (indexes built before series have none).
        names: dict[str, int] = {}
        self.series = np.array(
            [
                names.setdefault(str(i["series"]["name"]), len(names)) if i.get("series") else -1
                for i in data["items"]
            ],
            dtype=np.int32,
        )
        self.urls: list[str] = [str(i["url"]) for i in data["items"]]
        # Indexes built before prices were dated have no such key: envelopes then say null.
        self.prices_as_of: str | None = data.get("prices_as_of")
        self._all = np.arange(len(self.appids), dtype=np.int64)
        # Composed pages, bounded by bytes (page_bytes), freed with this index.
        self._pages: Lru[tuple[bytes, str]] = Lru(page_bytes, weigh=page_weight)

    @classmethod
    def from_bytes(cls, raw: bytes, *, page_bytes: int = AnswerBudgets().composed) -> CompactIndex:
        """Given the index object's bytes and the bytes of composed pages to keep, return the
        loaded index; ValueError if malformed."""
        try:
            return cls(orjson.loads(raw), page_bytes=page_bytes)
        except (KeyError, TypeError, orjson.JSONDecodeError) as exc:
            raise ValueError(f"corrupt compact index: {exc}") from exc

    def select(self, filters: Filters) -> Positions:
        """Given filters, return the positions (list order) of every matching game: the mask of
        each filter's predicate over this index's columns (:meth:`Filters.mask`), true indexes
        already in list order."""
        return np.flatnonzero(filters.mask(self)).astype(np.int64, copy=False)

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
        lists: :meth:`once_per_series`), return (envelope bytes, strong ETag), cached with
        this index."""

        def render() -> tuple[bytes, str]:
            hits = self.select(filters)
            if once:
                hits = self.once_per_series(hits)
            start, stop = page_bounds(page)
            body = render_page(
                [self.items[i] for i in hits[start:stop]], page, len(hits), None, self.prices_as_of
            )
            return body, etag_for(body)

        return self._pages.get((filters, page, once), render)

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
        return [orjson.loads(self.items[i]) for i in np.flatnonzero(fit)[:BETTER_VALUE_COUNT]]

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
        return [self.items[self.position[a]] for a in appids]

    def name_and_url(self, appid: int | None) -> tuple[str, str] | None:
        """Given an appid (or None), return the rated game's name and page path (root-relative,
        as the site's own links are: the index's URLs carry the host the build was made for),
        or None when it is not in the index."""
        at = self.position.get(appid) if appid is not None else None
        if at is None:
            return None
        return str(orjson.loads(self.items[at])["name"]), urlsplit(self.urls[at]).path

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
        for appid in appids:
            at = self.position.get(appid)
            if at is not None:
                games.append(self.items[at])
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
