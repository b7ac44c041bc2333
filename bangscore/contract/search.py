"""Name search (docs/API.md#search): normalisation, the index, and its queries.

The builder writes the index as JSON (:meth:`SearchIndex.to_json`); the shim loads it once
per snapshot (:meth:`SearchIndex.from_json`) and answers queries from memory.

Matching rules: case-, accent- and punctuation-insensitive (™ ® © dropped); every query word
must be a prefix of a word of the name; roman numerals II-XX match digits; with no result, a
typo-tolerant pass allows 1 edit for query words of 4-7 letters and 2 from 8 letters
(optimal string alignment distance: an insertion, deletion, substitution or swap of two
adjacent letters is one edit, as in most search engines). An
all-digit query that is an appid puts that game first. Ranking: exact name, then names
starting with the query, then other matches; ties by bang_score descending, then appid.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import OSA

DROPPED_CHARS = dict.fromkeys(map(ord, "™®©℠'’`´"), None)
_SPLIT = re.compile(r"[^\w]+|_")
_ROMAN = {
    numeral: str(value)
    for value, numeral in enumerate(
        [
            "ii",
            "iii",
            "iv",
            "v",
            "vi",
            "vii",
            "viii",
            "ix",
            "x",
            "xi",
            "xii",
            "xiii",
            "xiv",
            "xv",
            "xvi",
            "xvii",
            "xviii",
            "xix",
            "xx",
        ],
        start=2,
    )
}


def fold(text: str) -> str:
    """Given text, return it lowercased, without accents, marks or apostrophes, spaces folded."""
    text = unicodedata.normalize("NFKD", text.translate(DROPPED_CHARS))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return " ".join(_ROMAN.get(w, w) for w in _SPLIT.sub(" ", text).split())


def name_words(name: str) -> list[str]:
    """Given a game name, return its searchable words, with joined forms of hyphenated words.

    ``Half-Life 2`` gives ``["half", "life", "2", "halflife"]`` so that ``halflife`` matches too.
    """
    words = fold(name).split()
    extra = []
    for chunk in unicodedata.normalize("NFKD", name.translate(DROPPED_CHARS)).split():
        parts = fold(chunk).split()
        if len(parts) > 1:
            extra.append("".join(parts))
    return words + [w for w in extra if w not in words]


def max_edits(word: str) -> int:
    """Given a query word, return the edits the typo-tolerant pass allows (0, 1 or 2)."""
    return 0 if len(word) < 4 else 1 if len(word) < 8 else 2


@dataclass(frozen=True, slots=True)
class SearchEntry:
    """One searchable game: its appid, bang_score and folded name."""

    appid: int
    bang_score: int
    folded: str


class SearchIndex:
    """An in-memory inverted index of game names, ranked by the rules of
    docs/API.md#matching-and-ranking."""

    def __init__(self, entries: Sequence[SearchEntry], postings: dict[str, list[int]]) -> None:
        # Entries are in tie order (bang_score desc, appid asc): a position is a tie rank.
        self.entries = list(entries)
        self.postings = postings
        self.vocab = sorted(postings)
        self.by_appid = {e.appid: i for i, e in enumerate(self.entries)}
        # Per index (not functools.lru_cache, which would keep every index alive); one entry
        # per word length, so it stays small.
        self._truncated: dict[int, dict[str, list[str]]] = {}

    @classmethod
    def build(cls, games: Iterable[tuple[int, int, str]]) -> SearchIndex:
        """Given (appid, bang_score, name) triples, return the index over them."""
        ordered = sorted(games, key=lambda g: (-g[1], g[0]))
        entries = [SearchEntry(a, s, fold(n)) for a, s, n in ordered]
        postings: dict[str, list[int]] = {}
        for pos, (_, _, name) in enumerate(ordered):
            for word in dict.fromkeys(name_words(name)):
                postings.setdefault(word, []).append(pos)
        return cls(entries, postings)

    def to_json(self) -> dict[str, Any]:
        """Return the index as a JSON-able dict (what the builder writes)."""
        return {
            "entries": [[e.appid, e.bang_score, e.folded] for e in self.entries],
            "postings": self.postings,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchIndex:
        """Given the dict of :meth:`to_json`, return the index; raise KeyError/ValueError if bad."""
        entries = [SearchEntry(int(a), int(s), str(f)) for a, s, f in data["entries"]]
        return cls(entries, {str(k): list(v) for k, v in data["postings"].items()})

    def _prefix_positions(self, word: str) -> set[int]:
        lo = bisect.bisect_left(self.vocab, word)
        hi = bisect.bisect_left(self.vocab, word + "\U0010ffff")
        found: set[int] = set()
        for w in self.vocab[lo:hi]:
            found.update(self.postings[w])
        return found

    def _truncated_vocab(self, length: int) -> dict[str, list[str]]:
        found = self._truncated.get(length)
        if found is None:
            found = {}
            for w in self.vocab:
                found.setdefault(w[:length], []).append(w)
            self._truncated[length] = found
        return found

    def _fuzzy_positions(self, word: str) -> set[int]:
        edits = max_edits(word)
        if edits == 0:
            return self._prefix_positions(word)
        words = {
            w
            for w, _, _ in process.extract(
                word, self.vocab, scorer=OSA.distance, score_cutoff=edits, limit=None
            )
        }
        truncated = self._truncated_vocab(len(word))
        for prefix, _, _ in process.extract(
            word, list(truncated), scorer=OSA.distance, score_cutoff=edits, limit=None
        ):
            words.update(truncated[prefix])
        found: set[int] = set()
        for w in words:
            found.update(self.postings[w])
        return found

    def _match(self, words: list[str], fuzzy: bool) -> set[int]:
        result: set[int] | None = None
        for word in sorted(set(words), key=len, reverse=True):
            hits = self._fuzzy_positions(word) if fuzzy else self._prefix_positions(word)
            result = hits if result is None else result & hits
            if not result:
                return set()
        return result or set()

    def search(self, query: str) -> list[int]:
        """Given a raw query, return the appids of every match in ranked order.

        Raises nothing: a query with no word matches nothing (callers validate length first).
        """
        folded = fold(query)
        words = folded.split()
        hits = self._match(words, fuzzy=False) if words else set()
        if not hits and words:
            hits = self._match(words, fuzzy=True)

        def rank(pos: int) -> tuple[int, int]:
            name = self.entries[pos].folded
            kind = 0 if name == folded else 1 if name.startswith(folded) else 2
            return kind, pos

        ranked = [self.entries[p].appid for p in sorted(hits, key=rank)]
        stripped = query.strip()
        if stripped.isdigit() and stripped.isascii() and int(stripped) in self.by_appid:
            appid = int(stripped)
            ranked = [appid] + [a for a in ranked if a != appid]
        return ranked
