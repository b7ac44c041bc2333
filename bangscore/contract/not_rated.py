"""The known apps that are not rated: the snapshot's index of them (written by the builder,
read by the server for the API's ``game_not_rated`` 404 and the website's search) and the
sentences that give each reason (docs/API.md#game_not_rated).

The index is ``index/not_rated.json``: parallel arrays sorted by appid, ``appid``, ``reason``
(an index into ``reasons``) and ``name``, and ``superseded_by`` (``{appid: edition appid}``
for the superseded listings). Beside it, ``index/not_rated_search.json`` holds the name search
index over those apps, its integer columns packed (:func:`not_rated_search`), built once by
the builder; snapshots built before it have none, and a replica indexes the
names itself.
"""

from __future__ import annotations

import base64
import binascii
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import orjson

from bangscore.contract.search import SearchIndex
from bangscore.scoring.records import NOT_RATED_REASONS, NotRated

REASON_DETAIL: Mapping[str, str] = {
    "delisted": "it has been removed from sale on the storefront",
    "too_few_reviews": "it has too few reviews to rate it fairly",
    "no_usd_price": "no source gives its US price",
    "no_length": "neither a play length nor enough reviewers' playtime is known",
    "not_a_game": "it is not a game (DLC, demo, soundtrack, tool or software)",
    "no_store_data": "no storefront data is known for it, only its play length",
    "superseded": "no source sees this listing any more and its newer edition is rated "
    "(superseded_by)",
    "not_for_sale": "the storefront lists it but no longer sells it (its newest price row has "
    "no price) and does not file it as free",
}
"""The API's sentence per reason: the ``detail`` of a ``game_not_rated`` problem."""

REASON_LABEL: Mapping[str, str] = {
    "delisted": "delisted from the storefront",
    "too_few_reviews": "too few reviews to rate it fairly",
    "no_usd_price": "no price in US dollars",
    "no_length": "no known length",
    "not_a_game": "not a game (software, a soundtrack or a video)",
    "no_store_data": "no storefront data",
    "superseded": "replaced by a newer edition",
    "not_for_sale": "no longer sold on the storefront",
}
"""The website's short words per reason, beside a name in search results."""


def not_rated_index(
    apps: Sequence[NotRated], aliases: dict[str, int] | None = None
) -> dict[str, Any]:
    """Given the known apps that are not rated and the search aliases naming some of them
    (``{"gta v": appid}``, from the builder's alias table), return the index as the snapshot
    stores it: parallel arrays sorted by appid (``appid``, ``reason`` as an index into
    ``reasons``, ``name``), ``aliases`` and ``superseded_by`` (``{"appid": edition}``)."""
    ordered = sorted(apps, key=lambda a: a.appid)
    reasons = list(NOT_RATED_REASONS)
    return {
        "reasons": reasons,
        "appid": [a.appid for a in ordered],
        "reason": [reasons.index(a.reason) for a in ordered],
        "name": [a.name for a in ordered],
        "aliases": dict(aliases or {}),
        "superseded_by": {str(a.appid): a.superseded_by for a in ordered if a.superseded_by},
    }


# The packed columns of the stored name search index: name, array typecode, little-endian dtype.
_PACKED = (
    ("appids", "q", "<i8"),
    ("scores", "h", "<i2"),
    ("cum", "q", "<i8"),
    ("positions", "i", "<i4"),
)


def not_rated_search(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Given the stored index (:func:`not_rated_index`), return the name search index over its
    named apps as the snapshot stores it, or None when no app has a name: the index's columns
    (:meth:`SearchIndex.columns`), ``folded`` names and ``vocab`` as lists of strings, the
    integer columns as base64 of little-endian integers (``appids``, ``scores``, ``cum``,
    ``positions``), and ``aliases``. Packed, not one JSON number each: a replica's reading
    makes no Python int per posting, whose freed memory stayed with the process. Raises
    ValueError if the index is malformed."""
    names = NotRatedIndex(doc).name_index()
    if names is None:
        return None
    appids, scores, folded, vocab, cum, positions = names.columns()
    columns = {"appids": appids, "scores": scores, "cum": cum, "positions": positions}
    out: dict[str, Any] = {"folded": folded, "vocab": vocab, "aliases": names.aliases}
    for name, _, dtype in _PACKED:
        out[name] = base64.b64encode(np.asarray(columns[name]).astype(dtype).tobytes()).decode()
    return out


def _unpacked(text: Any, code: str, dtype: str) -> array[int]:
    """Given a packed column (base64 of little-endian integers of ``dtype``) and an array
    typecode, return the column as that array; raise ValueError or binascii.Error if bad."""
    if not isinstance(text, str):
        raise TypeError(f"a packed column is a string, not {type(text).__name__}")
    values = np.frombuffer(base64.b64decode(text, validate=True), dtype=dtype)
    return array(code, values.astype(np.dtype(dtype).newbyteorder("=")).tobytes())


def unpacked_search(raw: bytes) -> SearchIndex:
    """Given the stored name search index's body (:func:`not_rated_search`), return the index;
    raise ValueError if it is malformed."""
    try:
        data = orjson.loads(raw)
        arrays = {name: _unpacked(data[name], code, dtype) for name, code, dtype in _PACKED}
        folded, vocab = [str(f) for f in data["folded"]], [str(w) for w in data["vocab"]]
        aliases = {str(k): int(v) for k, v in dict(data["aliases"]).items()}
    except (orjson.JSONDecodeError, binascii.Error, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed not-rated search index: {exc!r}") from exc
    columns = (
        arrays["appids"],
        arrays["scores"],
        folded,
        vocab,
        arrays["cum"],
        arrays["positions"],
    )
    return SearchIndex.from_columns(columns, aliases)


class NotRatedIndex:
    """The known apps that are not rated, by appid: their name and ``reason``.

    Loaded from the stored index; kept as a sorted numpy array of appids and a reason code per
    app, so 150k apps cost a few MB. ``search`` is the stored name search index's body
    (``index/not_rated_search.json``), None for a snapshot built before it. Raises ValueError
    if the arrays are malformed.
    """

    def __init__(self, doc: dict[str, Any] | None = None, search: bytes | None = None) -> None:
        self._search = search
        doc = doc or {}
        try:
            self.reasons: list[str] = [str(r) for r in doc.get("reasons", [])]
            self.appids = np.asarray(doc.get("appid", []), dtype=np.int64)
            self.codes = np.asarray(doc.get("reason", []), dtype=np.int8)
            self.names: list[str] = [str(n) for n in doc.get("name", [])]
            self.aliases: dict[str, int] = {
                str(k): int(v) for k, v in dict(doc.get("aliases", {})).items()
            }
            # Indexes built before round 6 have no editions.
            self.editions: dict[int, int] = {
                int(k): int(v) for k, v in dict(doc.get("superseded_by", {})).items()
            }
        except (TypeError, OverflowError, ValueError) as exc:
            raise ValueError(f"malformed not-rated index: {exc}") from exc
        if not len(self.appids) == len(self.codes) == len(self.names):
            raise ValueError("not-rated arrays differ in length")
        if len(self.codes) and (
            int(self.codes.min()) < 0 or int(self.codes.max()) >= len(self.reasons)
        ):
            raise ValueError("not-rated reason out of range")
        if len(self.appids) > 1 and not bool(np.all(self.appids[1:] > self.appids[:-1])):
            raise ValueError("not-rated appids are not sorted")

    def __len__(self) -> int:
        return len(self.appids)

    def lookup(self, appid: int) -> tuple[str, str] | None:
        """Given an appid, return (name, reason) if it is a known app that is not rated."""
        at = int(np.searchsorted(self.appids, appid))
        if at < len(self.appids) and int(self.appids[at]) == appid:
            return self.names[at], self.reasons[int(self.codes[at])]
        return None

    def superseded_by(self, appid: int) -> int | None:
        """Given an appid, return the appid of the rated edition that supersedes it, or None."""
        return self.editions.get(appid)

    def name_index(self, *, stored: bool = True) -> SearchIndex | None:
        """Return a name search index over the apps that have a name (None when there are
        none): the stored one when the snapshot has it and ``stored`` (0.27 s of CPU for the
        real snapshot's 145,000 names), else built from the names (2.6 s; 3 Dec 2026), so
        callers make it once, off the event loop. The stored body is let go once read. Raises
        ValueError if the stored index is malformed (``stored=False`` then builds it)."""
        raw, self._search = self._search, None
        if stored and raw is not None:
            return unpacked_search(raw)
        named = [(int(a), 0, n) for a, n in zip(self.appids, self.names, strict=True) if n]
        return SearchIndex.build(named, self.aliases) if named else None
