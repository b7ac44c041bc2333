"""Name search (docs/API.md#search): the index and its queries (the words of names and
queries: :mod:`bangscore.contract.search_words`).

The builder writes the index as JSON (:meth:`SearchIndex.to_json`); the shim loads it once
per snapshot (:meth:`SearchIndex.from_json`) and answers queries from memory.

Matching rules: case-, accent- and punctuation-insensitive (™ ® © dropped); every query word
must be a prefix of a word of the name; roman numerals II-XX match digits, number words one to
twenty and a last word ``I`` match digits too (:func:`name_words`); several query words also
match joined (``rim world``: RimWorld), and a query that matches nothing is cut into words
(``civ5``, ``eldenring``: :meth:`SearchIndex._match_cut`); with still no result, a
typo-tolerant pass allows 1 edit for query words of 4-7 letters and 2 from 8 letters
(optimal string alignment distance: an insertion, deletion, substitution or swap of two
adjacent letters is one edit, as in most search engines). An all-digit query that is an appid
puts that game first. Ranking: exact name (a leading "the" optional), then the game an alias
names (``bg3``, ``ff14``, ``r6``: the table of :mod:`build.aliases`, shipped in the index),
then names holding every query word whole (``sims``: The Sims 4 before Simson
Tuningwerkstatt), then other matches; among equally good matches the more-reviewed game first
(reach: "cyberpunk" finds Cyberpunk 2077 before a small game of a higher score), then
bang_score descending, then appid.

Bounded work (docs/API.md#search-limits), so that no query stalls the server: at most
:data:`MAX_QUERY_WORDS` distinct words are matched (a word that is a prefix of another query
word adds nothing and is dropped first, then the shortest); the typo-tolerant pass weighs at
most :data:`MAX_FUZZY_WORDS` words, each expanding to at most :data:`MAX_FUZZY_TERMS` close
vocabulary words; and a query's comparisons (postings read, candidate names checked, words
compared) stop at :data:`MAX_COMPARISONS`: the typo pass ignores words left past that budget.
"""

from __future__ import annotations

import bisect
import heapq
import re
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Final

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from bangscore.contract.search_words import alias_key, fold, max_edits, name_words, query_words

MAX_FUZZY_WORDS: Final = 3
MAX_FUZZY_TERMS: Final = 64
MAX_COMPARISONS: Final = 120_000
# A query without spaces that matches nothing is cut into words (`eldenring`, `civ5`): at
# most this many cuts are tried, each into at most MAX_CUT_PARTS words, within the budget.
MAX_SPLITS: Final = 64
MAX_CUT_PARTS: Final = 4
_LETTERS_DIGITS = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")


# An index's columns (SearchIndex.columns): appids, bang_scores, folded names, vocabulary, cum,
# postings.
Columns = tuple["array[int]", "array[int]", list[str], list[str], "array[int]", "array[int]"]


@dataclass(slots=True)
class Work:
    """The comparisons one query has spent (postings read, names checked, words compared)."""

    comparisons: int = 0
    limit: int = MAX_COMPARISONS

    @property
    def left(self) -> int:
        """Return the comparisons still allowed."""
        return self.limit - self.comparisons


@dataclass(frozen=True, slots=True)
class SearchEntry:
    """One searchable game: its appid, bang_score and folded name."""

    appid: int
    bang_score: int
    folded: str


@dataclass(frozen=True, slots=True)
class SearchResult:
    """A query's answer: the matching appids in ranked order and the comparisons it cost."""

    appids: list[int]
    comparisons: int = 0
    words: list[str] = field(default_factory=list)


class SearchIndex:
    """An in-memory inverted index of game names, ranked by the rules of
    docs/API.md#matching-and-ranking, with the alias table (``{key: appid}``).

    Held as flat arrays (``array``: machine integers, not a Python int each), the postings and
    each name's words in one array each: the website's index of 145,000 unrated names cost
    98 MB as lists and dicts of Python ints, and every such object is one more for the cyclic
    collector to walk."""

    def __init__(
        self,
        entries: Sequence[SearchEntry],
        postings: Mapping[str, Iterable[int]],
        aliases: dict[str, int] | None = None,
    ) -> None:
        # Postings as one array in vocabulary order: a word's is a slice from cum (the
        # postings before each word), and a prefix's (a range of words) is one slice too.
        vocab = sorted(postings)
        positions, cum = array("i"), array("q", [0])
        for w in vocab:
            positions.extend(postings[w])
            cum.append(len(positions))
        # Entries are in tie order (review count desc, bang_score desc, appid asc): a position
        # is a tie rank.
        appids = array("q", [e.appid for e in entries])
        scores = array("h", [e.bang_score for e in entries])
        self._arrange((appids, scores, [e.folded for e in entries], vocab, cum, positions), aliases)

    def columns(self) -> Columns:
        """Return the index's columns: (appids, bang_scores, folded names) in tie order, the
        sorted vocabulary, each word's first posting (``cum``, one more than the words) and
        the postings (positions) in vocabulary order."""
        return self._appids, self._scores, self._folded, self.vocab, self._cum, self._positions

    @classmethod
    def from_columns(cls, columns: Columns, aliases: dict[str, int] | None = None) -> SearchIndex:
        """Given the columns of :meth:`columns` and the alias table, return the index; raise
        ValueError if the columns disagree (lengths, order, postings outside the entries)."""
        appids, scores, folded, vocab, cum, positions = columns
        at, starts = np.frombuffer(positions, dtype=np.int32), np.frombuffer(cum, dtype=np.int64)
        if not len(appids) == len(scores) == len(folded) or len(starts) != len(vocab) + 1:
            raise ValueError("search columns differ in length")
        if starts[0] != 0 or starts[-1] != len(at) or bool(np.any(np.diff(starts) < 0)):
            raise ValueError("search postings are not laid out by word")
        if len(at) and (int(at.min()) < 0 or int(at.max()) >= len(folded)):
            raise ValueError("search postings point outside the entries")
        if any(a >= b for a, b in pairwise(vocab)):
            raise ValueError("search vocabulary is not sorted")
        index = cls.__new__(cls)
        index._arrange(columns, aliases)
        return index

    def _arrange(self, columns: Columns, aliases: dict[str, int] | None) -> None:
        self._appids, self._scores, self._folded, self.vocab, self._cum, self._positions = columns
        # An appid's position: bisected in the sorted appids, not a dict of boxed ints.
        by_appid = np.frombuffer(self._appids, dtype=np.int64)
        order = np.argsort(by_appid, kind="stable")
        self._sorted_appids = array("q", by_appid[order].tobytes())
        self._sorted_positions = array("i", order.astype(np.int32).tobytes())
        self.aliases = {k: a for k, a in (aliases or {}).items() if self.position_of(a) is not None}
        # Whole folded names in order, with their positions: the names starting with a query
        # are one bisected range, so ranking never looks at each hit in Python.
        by_name = sorted(range(len(self._folded)), key=self._folded.__getitem__)
        self._names = [self._folded[pos] for pos in by_name]
        self._name_pos = array("i", by_name)
        # Each name's words (vocabulary indexes), grouped by position: from _word_starts[p] to
        # _word_starts[p + 1] (sorted with numpy: no list of boxed ints per name).
        at = np.frombuffer(self._positions, dtype=np.int32)
        word_of = np.repeat(np.arange(len(self.vocab), dtype=np.int32), np.diff(self._cum))
        self._word_ids = array("i", word_of[np.argsort(at, kind="stable")].tobytes())
        counts = np.bincount(at, minlength=len(self._folded))
        self._word_starts = array("q", [0])
        self._word_starts.frombytes(np.cumsum(counts, dtype=np.int64).tobytes())
        # Per index (not functools.lru_cache, which would keep every index alive); one entry
        # per word length, so it stays small.
        self._truncated: dict[int, tuple[dict[str, list[str]], dict[int, list[str]]]] = {}
        self._by_length: dict[int, list[str]] = {}
        for w in self.vocab:
            self._by_length.setdefault(len(w), []).append(w)

    def _posting(self, word: str) -> array[int]:
        """Given a vocabulary word, return the positions of the names holding it."""
        i = bisect.bisect_left(self.vocab, word)
        return self._positions[self._cum[i] : self._cum[i + 1]]

    def _word_count(self, position: int) -> int:
        """Given a position, return how many words its name has."""
        return self._word_starts[position + 1] - self._word_starts[position]

    def _words(self, position: int) -> list[str]:
        """Given a position, return its name's words."""
        ids = self._word_ids[self._word_starts[position] : self._word_starts[position + 1]]
        return [self.vocab[i] for i in ids]

    def position_of(self, appid: int) -> int | None:
        """Given an appid, return its entry's position (its tie rank), or None if absent."""
        at = bisect.bisect_left(self._sorted_appids, appid)
        if at < len(self._sorted_appids) and self._sorted_appids[at] == appid:
            return self._sorted_positions[at]
        return None

    @classmethod
    def build(
        cls,
        games: Iterable[tuple[int, int, str]],
        aliases: dict[str, int] | None = None,
        *,
        reviews: Mapping[int, int] | None = None,
    ) -> SearchIndex:
        """Given (appid, bang_score, name) triples, the alias table (``{key: appid}``, see
        :func:`~bangscore.contract.search_words.alias_key`) and each game's review count
        (missing: 0), return the index over them. Entries are stored in tie order (review
        count descending, then bang_score descending, then appid), so the written index needs
        no review counts."""
        counts = reviews or {}
        ordered = sorted(games, key=lambda g: (-counts.get(g[0], 0), -g[1], g[0]))
        entries = [SearchEntry(a, s, fold(n)) for a, s, n in ordered]
        # Arrays from the start: a list of boxed ints per word would fragment the heap it
        # leaves behind.
        postings: dict[str, array[int]] = {}
        for pos, (_, _, name) in enumerate(ordered):
            for word in dict.fromkeys(name_words(name)):
                postings.setdefault(word, array("i")).append(pos)
        return cls(entries, postings, aliases)

    def to_json(self) -> dict[str, Any]:
        """Return the index as a JSON-able dict (what the builder writes)."""
        return {
            "entries": [
                [a, s, f] for a, s, f in zip(self._appids, self._scores, self._folded, strict=True)
            ],
            "postings": {w: self._posting(w).tolist() for w in self.vocab},
            "aliases": self.aliases,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SearchIndex:
        """Given the dict of :meth:`to_json`, return the index; raise KeyError/ValueError if bad.

        An index written before aliases existed loads with none."""
        entries = [SearchEntry(int(a), int(s), str(f)) for a, s, f in data["entries"]]
        aliases = {str(k): int(v) for k, v in data.get("aliases", {}).items()}
        try:
            postings = {str(k): array("i", v) for k, v in data["postings"].items()}
        except (TypeError, OverflowError) as exc:
            raise ValueError(f"malformed search postings: {exc}") from exc
        if any(p and (min(p) < 0 or max(p) >= len(entries)) for p in postings.values()):
            raise ValueError("search postings point outside the entries")
        return cls(entries, postings, aliases)

    def _range(self, word: str) -> tuple[int, int]:
        lo = bisect.bisect_left(self.vocab, word)
        return lo, bisect.bisect_left(self.vocab, word + "\U0010ffff", lo)

    def _estimate(self, word: str) -> int:
        """Return how many postings the prefix ``word`` reads (a game may count twice)."""
        lo, hi = self._range(word)
        return self._cum[hi] - self._cum[lo]

    def _prefix_positions(self, word: str, work: Work) -> set[int]:
        lo, hi = self._range(word)
        work.comparisons += self._cum[hi] - self._cum[lo]
        return set(self._positions[self._cum[lo] : self._cum[hi]])

    def _match_prefix(self, words: list[str], work: Work) -> set[int]:
        """Every word a prefix of a name word: the rarest word's postings, then each other word
        intersected, or checked on the candidates when that reads less."""
        ranked = sorted((self._estimate(w), w) for w in words)
        if not ranked or ranked[0][0] == 0:
            return set()
        result = self._prefix_positions(ranked[0][1], work)
        for estimate, word in ranked[1:]:
            checked = sum(self._word_count(p) for p in result)
            if estimate <= checked:
                result &= self._prefix_positions(word, work)
            else:
                work.comparisons += checked
                result = {p for p in result if any(w.startswith(word) for w in self._words(p))}
            if not result:
                return set()
        return result

    def _truncated_vocab(self, length: int) -> tuple[dict[str, list[str]], dict[int, list[str]]]:
        """Given a length, return the vocabulary's words by their first ``length`` letters,
        and those heads by their own length (a word shorter than ``length`` is its own head)."""
        found = self._truncated.get(length)
        if found is None:
            heads: dict[str, list[str]] = {}
            for w in self.vocab:
                heads.setdefault(w[:length], []).append(w)
            by_length: dict[int, list[str]] = {}
            for h in heads:
                by_length.setdefault(len(h), []).append(h)
            found = heads, by_length
            self._truncated[length] = found
        return found

    def _fuzzy_positions(self, word: str, result: set[int] | None, work: Work) -> set[int] | None:
        """Return the positions of names with a word within the allowed edits of ``word`` (or
        starting with such a word), among ``result`` when given; None when the budget left
        cannot pay for the comparisons.

        Only words whose length is within the allowed edits can be that close, so only those
        are compared (a 4-letter word meets the 3- to 5-letter words, not the whole vocabulary).
        """
        edits = max_edits(word)
        if edits == 0:
            return self._prefix_positions(word, work)
        truncated, whole, heads = self._candidates(len(word), edits, result, work)
        cost = len(whole) + len(heads)
        if cost > work.left:
            return None
        work.comparisons += cost
        words = {
            w
            for w, _, _ in process.extract(
                word, whole, scorer=OSA.distance, score_cutoff=edits, limit=MAX_FUZZY_TERMS
            )
        }
        for head, _, _ in process.extract(
            word, heads, scorer=OSA.distance, score_cutoff=edits, limit=MAX_FUZZY_TERMS
        ):
            words.update(truncated[head])
        found: set[int] = set()
        for w in words:
            posting = self._posting(w)
            work.comparisons += len(posting)
            found.update(posting)
        return found if result is None else found & result

    def _candidates(
        self, size: int, edits: int, result: set[int] | None, work: Work
    ) -> tuple[dict[str, list[str]], list[str], list[str]]:
        """Given a word's length, its allowed edits and the positions still matching (None:
        all), return the words a fuzzy match compares it with: the vocabulary's words truncated
        to its length (each head to its words), the whole words and the heads within reach."""
        # Building a candidate-only vocabulary is Python work: only worth it for few candidates.
        if result is not None and len(result) * 16 < len(self.vocab):
            work.comparisons += sum(self._word_count(p) for p in result)
            vocab = sorted({w for p in result for w in self._words(p)})
            truncated: dict[str, list[str]] = {}
            for w in vocab:
                truncated.setdefault(w[:size], []).append(w)
            whole = [w for w in vocab if abs(len(w) - size) <= edits]
            return truncated, whole, [h for h in truncated if len(h) >= size - edits]
        truncated, head_lengths = self._truncated_vocab(size)
        whole = [
            w for n in range(size - edits, size + edits + 1) for w in self._by_length.get(n, ())
        ]
        heads = [h for n in range(size - edits, size + 1) for h in head_lengths.get(n, ())]
        return truncated, whole, heads

    def _match_fuzzy(self, words: list[str], work: Work) -> set[int]:
        result: set[int] | None = None
        for word in words[:MAX_FUZZY_WORDS]:  # longest first: the most telling words
            hits = self._fuzzy_positions(word, result, work)
            if hits is None:
                break
            result = hits if result is None else result & hits
            if not result:
                return set()
        return result or set()

    def search(self, query: str, *, typos: bool = True, limit: int | None = None) -> list[int]:
        """Given a raw query, return the appids of every match in ranked order (the first
        ``limit`` only, when given); without ``typos``, no typo-tolerant pass.

        Raises nothing: a query with no word matches nothing (callers validate length first).
        """
        return self.search_counted(query, typos=typos, limit=limit).appids

    def search_counted(
        self, query: str, *, typos: bool = True, limit: int | None = None
    ) -> SearchResult:
        """Given a raw query, return its :class:`SearchResult`: the ranked appids (the first
        ``limit`` only, when given), the comparisons spent (at most about
        :data:`MAX_COMPARISONS`) and the words matched; without ``typos``, no typo pass."""
        folded = fold(query)
        work = Work()
        words, hits, names = self._matches(folded, typos, work)
        alias = self.position_of(self.aliases.get(alias_key(query), -1))
        exact = self._exact(names, hits)
        first = exact + ([alias] if alias is not None and alias not in exact else [])
        whole = self._whole(words, "".join(folded.split()), hits, work)
        whole.difference_update(first)
        rest = hits.difference(first, whole)
        # Set operations and sorts of plain ints run in C: a query matching thousands of
        # names ranks them without a Python call per name.
        if limit is None:
            order = first + sorted(whole) + sorted(rest)
        else:
            order = first[:limit]
            order += heapq.nsmallest(limit - len(order), whole) if len(order) < limit else []
            order += heapq.nsmallest(limit - len(order), rest) if len(order) < limit else []
        ranked = [self._appids[p] for p in order]
        stripped = query.strip()
        if (
            stripped.isdigit()
            and stripped.isascii()
            and self.position_of(int(stripped)) is not None
        ):
            ranked = [int(stripped)] + [a for a in ranked if a != int(stripped)]
        return SearchResult(
            ranked[:limit] if limit is not None else ranked, work.comparisons, words
        )

    def _matches(
        self, folded: str, typos: bool, work: Work
    ) -> tuple[list[str], set[int], list[str]]:
        """Given a folded query, whether to try typos and the query's budget, return the words
        matched, the positions matching and the folded names that would name a game exactly:
        every word a prefix (and, for several words, the words joined), else the letters cut
        into words, else (with ``typos``) the typo-tolerant pass."""
        words = query_words(folded)
        hits = self._match_prefix(words, work) if words else set()
        joined = "".join(folded.split())
        if len(folded.split()) > 1:  # `rim world` finds RimWorld: the words joined, as one
            hits |= self._prefix_positions(joined, work)
        names = [folded, f"the {folded}", joined]
        if not hits and joined:
            cut = self._match_cut(joined, work)
            if cut is not None:
                words, hits = query_words(" ".join(cut[0])), cut[1]
                names.append(" ".join(cut[0]))
        if not hits and words and typos:
            hits = self._match_fuzzy(words, work)
        return words, hits, names

    def _exact(self, names: list[str], hits: set[int]) -> list[int]:
        """Given the folded forms a query may name a game by (as typed, after ``the``, joined,
        cut into words), return the positions of the hits named exactly so, in tie order."""
        found: set[int] = set()
        for name in dict.fromkeys(n for n in names if n):
            lo = bisect.bisect_left(self._names, name)
            hi = bisect.bisect_right(self._names, name, lo)
            found.update(self._name_pos[lo:hi])
        return sorted(found & hits)

    def _exact_posting(self, word: str) -> array[int]:
        """Given a word, return the positions of the names holding it whole (none if unknown)."""
        i = bisect.bisect_left(self.vocab, word)
        if i < len(self.vocab) and self.vocab[i] == word:
            return self._positions[self._cum[i] : self._cum[i + 1]]
        return array("i")

    def _whole(self, words: list[str], joined: str, hits: set[int], work: Work) -> set[int]:
        """Given the query's words, its letters without spaces and its hits, return the hits
        holding every query word whole, or the joined letters as one word: better matches
        than a word's prefix (`sims` finds The Sims 4 before Simson Tuningwerkstatt)."""
        whole = set(hits)
        for word in words:
            if not whole:
                break
            posting = self._exact_posting(word)
            work.comparisons += len(posting)
            whole.intersection_update(posting)
        if joined not in words:
            posting = self._exact_posting(joined)
            work.comparisons += len(posting)
            whole.update(hits.intersection(posting))
        return whole

    def _match_cut(self, text: str, work: Work) -> tuple[list[str], set[int]] | None:
        """Given a query's letters without spaces that match nothing, return the first cut of
        them into words that matches, with its matches (None when none does): letters and
        digits apart (`civ5`, `sims4`), then into 2, 3 or 4 parts, each a vocabulary word of
        2 letters or more but the last, a prefix of one (`eldenring`); at most
        :data:`MAX_SPLITS` cuts are tried, within the query's budget."""
        for tried, parts in enumerate(self._cuts(text, work)):
            if tried >= MAX_SPLITS or work.left <= 0:
                break
            hits = self._match_prefix(query_words(" ".join(parts)), work)
            if hits:
                return parts, hits
        return None

    def _cuts(self, text: str, work: Work) -> Iterator[list[str]]:
        pieces = [p for p in _LETTERS_DIGITS.split(text) if p]
        if len(pieces) > 1:
            yield pieces
        for count in range(2, MAX_CUT_PARTS + 1):
            yield from self._cut_into(text, count, work)

    def _cut_into(self, text: str, count: int, work: Work) -> Iterator[list[str]]:
        if count == 1:
            if self._estimate(text):
                yield [text]
            return
        for at in range(2, len(text) - 2 * (count - 1) + 1):
            work.comparisons += 1
            if work.left <= 0:
                return
            if len(self._exact_posting(text[:at])):
                for rest in self._cut_into(text[at:], count - 1, work):
                    yield [text[:at], *rest]
