"""The known apps that are not rated: the snapshot's index of them (written by the builder,
read by the server for the API's ``game_not_rated`` 404 and the website's search) and the
sentences that give each reason (docs/API.md#game_not_rated).

The index is ``index/not_rated.json``: parallel arrays sorted by appid, ``appid``, ``reason``
(an index into ``reasons``) and ``name``, and ``superseded_by`` (``{appid: edition appid}``
for the superseded listings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

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


class NotRatedIndex:
    """The known apps that are not rated, by appid: their name and ``reason``.

    Loaded from the stored index; kept as a sorted numpy array of appids and a reason code per
    app, so 150k apps cost a few MB. Raises ValueError if the arrays are malformed.
    """

    def __init__(self, doc: dict[str, Any] | None = None) -> None:
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

    def name_index(self) -> SearchIndex | None:
        """Return a name search index over the apps that have a name (None when there are
        none); seconds for 150k names, so callers build it once, off the event loop."""
        named = [(int(a), 0, n) for a, n in zip(self.appids, self.names, strict=True) if n]
        return SearchIndex.build(named, self.aliases) if named else None
