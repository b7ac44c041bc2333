"""Cross-checks run on resolved observations before anything is scored.

Each function is pure: it takes resolved values (see :mod:`ingest.resolve.observations`) and returns
a decision. :mod:`ingest.catalog` applies them in this order, and the first that refuses a game
gives the ``reason`` of its ``game_not_rated`` answer:

0. ``no_store_data``: no storefront source knows the app (only a play-length source names it,
   e.g. Split Fiction in HowLongToBeat's December 2025 dump): nothing says what it is or costs.
1. ``not_a_game``: the storefront's app type is not a game (DLC, demo, soundtrack, tool...), the
   name says so (soundtrack, demo, playtest...), or its only storefront genres are software.
2. ``delisted``: steam-tracker lists the app as removed from sale, or its only price is $0
   while an earlier dump shows it sold for money (SteamSpy lists withdrawn titles at 0), unless
   a later storefront record says it is free to play. A delisted game is never rated as free.
3. ``no_usd_price``: no source gives a US price, the app is a *regional copy* of another
   listing (:func:`regional_copies`): its only price is SteamSpy's repetition of its twin's, or
   its only price is a $0 that is no price (:func:`zero_is_no_price`).
4. ``too_few_reviews``: fewer than :data:`MIN_REVIEWS` reviews.
5. ``no_length``: neither a HowLongToBeat main story that survives :func:`choose_length` nor
   enough reviewers' playtime to estimate one, or a free first episode whose only length is its
   season's (:func:`season_length_on_free_episode`). A multiplayer-first game's length is how
   long its players play (:func:`played_length`).

The length check (:func:`choose_length`): a main-story time that disagrees strongly with how
long the game's own positive reviewers play is set aside, and the next candidate is tried:

* *too short*: positive reviewers' median playtime is more than :data:`SHORT_FACTOR` times the
  length, for a game that is not replayable (a replayable game's fans are expected to play far
  past the story). This is Baldur's Gate 3's early-access row: 23 h against a 105 h median.
* *too long*: a title-matched length more than :data:`LONG_FACTOR` times the median (a title
  match to the wrong game). Appid-keyed lengths are not refused for this: people do abandon
  long games.

When every candidate is set aside, a too-short length is replaced by the playtime estimate
(``length_source`` ``"playtime_estimate"``) and a too-long keyed one is kept; either way the
record's ``checks`` names the disagreement, so it is never silently used. A game with no
HowLongToBeat time at all gets the playtime estimate too: :data:`PLAYTIME_TO_MAIN` times the
positive reviewers' median playtime, at most :data:`ESTIMATE_CAP_HOURS`.

Whether a sale is current is a matter of dated prices: :mod:`ingest.resolve.prices`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from bangscore.ingest.resolve.names import normalise_name
from bangscore.ingest.resolve.observations import TRUST_MATCHED, Resolved
from bangscore.scoring.records import LengthSource, NotRatedReason

MIN_REVIEWS: Final = 50
# Positive reviewers needed before their median playtime is trusted (check or estimate).
MIN_REVIEWERS: Final = 20
SHORT_FACTOR: Final = 4.0
LONG_FACTOR: Final = 4.0
# Main story = PLAYTIME_TO_MAIN x the positive reviewers' median playtime, for games with no
# HowLongToBeat time. The median of HLTB main / that playtime over the rated, non-replayable
# games that have both (scoring/CALIBRATION.md): reviewers keep playing past the story.
PLAYTIME_TO_MAIN: Final = 0.70
# An estimate never exceeds the 95th percentile of HowLongToBeat main stories in the rated
# catalog (31 h): beyond it reviewers' hours are replays, idling or a game left running.
ESTIMATE_CAP_HOURS: Final = 30.0
# Where the owners' playtime has no usable spread (mean <= median), the typical fitted sigma of
# a log-normal playtime (median 0.97 over SteamSpy 2023 games with mean > median).
DEFAULT_SIGMA: Final = 1.0

GAME_TYPES: Final = frozenset({"game"})
SOFTWARE_GENRES: Final = frozenset(
    {
        "Utilities",
        "Design & Illustration",
        "Animation & Modeling",
        "Education",
        "Video Production",
        "Software Training",
        "Audio Production",
        "Web Publishing",
        "Game Development",
        "Photo Editing",
        "Accounting",
        "Documentary",
        "Tutorial",
    }
)
GAME_GENRES: Final = frozenset(
    {
        "Action",
        "Adventure",
        "Casual",
        "Indie",
        "RPG",
        "Simulation",
        "Strategy",
        "Sports",
        "Racing",
        "Massively Multiplayer",
    }
)
NON_GAME_WORDS: Final = frozenset({"soundtrack", "ost", "artbook", "demo", "playtest", "sdk"})
NON_GAME_PHRASES: Final = ("dedicated server", "season pass", "art book")

LENGTH_TOO_SHORT: Final = "length_shorter_than_reviewers_play"
LENGTH_TOO_LONG: Final = "length_longer_than_reviewers_play"


def non_game(name: str, app_type: str | None, genres: Iterable[str]) -> bool:
    """Given a name, the storefront app type (None if unknown) and storefront genres, return
    True when the app is not a game (see the module docstring, rule 1)."""
    if app_type is not None and app_type not in GAME_TYPES:
        return True
    words = normalise_name(name)
    if NON_GAME_WORDS.intersection(words.split()) or any(p in words for p in NON_GAME_PHRASES):
        return True
    found = set(genres)
    return bool(found & SOFTWARE_GENRES) and not found & GAME_GENRES


def delisted(
    listed_delisted: bool, price_usd: float | None, paid_before: bool, free_to_play: bool
) -> bool:
    """Given whether steam-tracker lists the app as delisted, its resolved current price
    (None if unknown), whether any dump shows it sold for money, and whether a storefront
    record calls it free to play, return True when it must be treated as delisted."""
    if listed_delisted:
        return True
    return price_usd == 0 and paid_before and not free_to_play


def zero_is_no_price(
    price_usd: float | None, list_price_usd: float | None, free_to_play: bool | None
) -> bool:
    """Given the resolved price and list price (US dollars, None if unknown) and what the
    storefront record says of free to play (True, False, or None when no record says), return
    True when a $0 is no price at all: the storefront says the app is not free to play, yet no
    source sells it for more. SteamSpy lists an app it found no US price for at $0: a title
    replaced by a later edition (the original Sleeping Dogs, Ori and the Blind Forest), one
    withdrawn from sale, or one not yet released. Such a game must not be shown as free."""
    return price_usd == 0 and list_price_usd == 0 and free_to_play is False


@dataclass(frozen=True, slots=True)
class Length:
    """The chosen main-story length: hours, where from, and the checks that fired."""

    hours: float
    source: LengthSource
    resolved: Resolved | None
    checks: tuple[str, ...] = ()


def choose_length(
    candidates: Sequence[Resolved],
    positive_reviewer_hours: float | None,
    positive_reviewers: int,
    *,
    replayable: bool,
) -> Length | None:
    """Given the main-story candidates best first, the positive reviewers' median playtime
    (hours, None if unknown) and their count, and whether the game is replayable, return the
    length to use, or None when there is none (see the module docstring)."""
    trusted = positive_reviewer_hours if positive_reviewers >= MIN_REVIEWERS else None
    fired: list[str] = []
    kept_long: Resolved | None = None
    for candidate in candidates:
        hours = float(candidate.value)
        if trusted is None or trusted <= 0:
            return Length(hours, "hltb", candidate, tuple(fired))
        if not replayable and trusted > SHORT_FACTOR * hours:
            fired.append(LENGTH_TOO_SHORT)
            continue
        if hours > LONG_FACTOR * trusted:
            fired.append(LENGTH_TOO_LONG)
            if candidate.layer.trust >= TRUST_MATCHED:
                continue
            kept_long = kept_long or candidate
            continue
        return Length(hours, "hltb", candidate, tuple(dict.fromkeys(fired)))
    if kept_long is not None:
        return Length(float(kept_long.value), "hltb", kept_long, tuple(dict.fromkeys(fired)))
    if trusted is not None and trusted > 0:
        estimate = round(min(PLAYTIME_TO_MAIN * trusted, ESTIMATE_CAP_HOURS), 2)
        if estimate > 0:
            return Length(estimate, "playtime_estimate", None, tuple(dict.fromkeys(fired)))
    return None


def played_length(
    positive_reviewer_hours: Resolved | None,
    positive_reviewers: int,
    owners_median_hours: Resolved | None,
) -> Length | None:
    """Given a multiplayer-first game's positive reviewers' median playtime (hours, with its
    layer; None if unknown) and their count, and its owners' median playtime (hours, with its
    layer, e.g. SteamSpy's ``median_forever``; None if unknown), return its length as how long
    players play (``length_source`` ``playtime``): the reviewers' median when at least
    :data:`MIN_REVIEWERS` of them were sampled, else the owners'; None when neither is known.

    A game played mainly with others online has no campaign to finish: its campaign's length
    (Battlefield 6's 6 hours) says nothing of what a buyer gets, how long people keep playing
    does."""
    for found, enough in (
        (positive_reviewer_hours, positive_reviewers >= MIN_REVIEWERS),
        (owners_median_hours, True),
    ):
        if found is not None and enough and float(found.value) > 0:
            return Length(round(float(found.value), 2), "playtime", found)
    return None


# A name that says which episode it is ("Episode 1", "Chapter One", "Ch.1", "Part I", "Act 1",
# "Prologue", "Season 1 - Episodes 1 to 3"): a play-length entry matched to it is its own.
_NAMES_AN_EPISODE = re.compile(
    r"\b(?:episodes?|chapters?|ch|ep|part|act|vol|volume|season)\b\.?\s*(?:\d+|one|i{1,3}|iv|v)\b"
    r"|\bprologue\b|\bpilot\b",
    re.IGNORECASE,
)
# A first episode rarely runs past this; a longer main story under the series' name is the
# season's (Life is Strange's free Episode 1 is listed as "Life is Strange" and HowLongToBeat
# times the whole season at 14.4 h).
FIRST_EPISODE_MAX_HOURS: Final = 3.0


def season_length_on_free_episode(
    name: str, tags: Sequence[str], free: bool, length: Length | None
) -> bool:
    """Given an app's name, its user tags, whether it is free (price and list price $0) and
    its chosen length, return True when the length is a whole season's measured on a free
    first episode: a free "Episodic" game, named for its series rather than its episode, with
    a play-length source's main story over :data:`FIRST_EPISODE_MAX_HOURS`. Such an app has no
    length of its own to rate it by (``no_length``), rather than the season's."""
    return (
        free
        and length is not None
        and length.source == "hltb"
        and length.hours > FIRST_EPISODE_MAX_HOURS
        and any(tag.casefold() == "episodic" for tag in tags)
        and not _NAMES_AN_EPISODE.search(name)
    )


@dataclass(frozen=True, slots=True)
class Listing:
    """What tells two storefront listings of one game apart: ``appid``, ``name``, ``developer``
    and ``publisher`` (None when unknown; several names are comma-separated), the
    ``review_count``, and whether a storefront app list (PICS, the store catalogue) knows the
    app at all (``on_storefront``: it has an app type there)."""

    appid: int
    name: str
    developer: str | None
    publisher: str | None
    review_count: int
    on_storefront: bool


def _makers(text: str | None) -> frozenset[str]:
    return frozenset(normalise_name(part) for part in (text or "").split(",")) - {""}


def _same_maker(a: Listing, b: Listing) -> bool:
    developers_a, developers_b = _makers(a.developer), _makers(b.developer)
    publishers_a, publishers_b = _makers(a.publisher), _makers(b.publisher)
    return bool(developers_a & developers_b) and (
        not publishers_a or not publishers_b or bool(publishers_a & publishers_b)
    )


def regional_copies(listings: Iterable[Listing]) -> frozenset[int]:
    """Given known listings, return the appids of *regional copies*: a second listing of one
    game that is sold under its own appid in some regions, so the storefront would rank it
    twice (Fallout: New Vegas 22490, the Eastern European edition of 22380).

    A listing is a copy of another when (a) no storefront app list knows it (PICS and the 2024
    store catalogue list every app sold to US buyers, with its type; only SteamSpy's pages name
    the copy, with its twin's price), (b) both have the same name (:func:`normalise_name`), (c)
    a developer in common and no contradicting publisher, and (d) the other is the listing to
    keep: one the storefront knows, or else the one with more reviews (as many: the lower
    appid). Same-name games by different makers (Lords of the Fallen, 2014 and 2023) and
    listings the storefront knows (Ys IX in two language editions) are never copies. A copy has
    no US price of its own: it is not rated (``no_usd_price``).
    """
    by_name: dict[str, list[Listing]] = {}
    for listing in listings:
        key = normalise_name(listing.name)
        if key:
            by_name.setdefault(key, []).append(listing)
    copies: set[int] = set()
    for group in by_name.values():
        if len(group) < 2:
            continue
        for copy in group:
            if copy.on_storefront:
                continue
            if any(
                twin is not copy
                and (twin.on_storefront, twin.review_count, -twin.appid)
                > (copy.on_storefront, copy.review_count, -copy.appid)
                and _same_maker(copy, twin)
                for twin in group
            ):
                copies.add(copy.appid)
    return frozenset(copies)


def finish_rate_estimate(
    median_minutes: float,
    mean_minutes: float,
    main_story_hours: float,
    *,
    default_sigma: float = DEFAULT_SIGMA,
) -> float:
    """Given a game's median and mean playtime (minutes, > 0) and its main-story length
    (hours, > 0), return the estimated share of players who played at least that long, 0..1.

    Playtime is modelled as log-normal: mu = ln(median) and, from mean = exp(mu + sigma^2/2),
    sigma^2 = 2 ln(mean / median) when mean > median, else ``default_sigma``. Result:
    P(X >= L) = erfc((ln L - mu) / (sigma sqrt 2)) / 2, clamped to [0, 1]. Raises ValueError
    for a non-positive input.
    """
    if median_minutes <= 0 or mean_minutes <= 0 or main_story_hours <= 0:
        raise ValueError("playtimes and length must be positive")
    mu = math.log(median_minutes)
    ratio = mean_minutes / median_minutes
    sigma = math.sqrt(2 * math.log(ratio)) if ratio > 1 else default_sigma
    z = (math.log(main_story_hours * 60) - mu) / (sigma * math.sqrt(2))
    return min(1.0, max(0.0, 0.5 * math.erfc(z)))


def not_rated_reason(
    *,
    has_store_data: bool = True,
    is_non_game: bool,
    is_delisted: bool,
    has_price: bool,
    review_count: int,
    has_length: bool,
) -> NotRatedReason | None:
    """Given the outcome of each check, return the first reason that refuses the game, in the
    module docstring's order, or None when it is rated. An app no storefront source knows
    (``has_store_data`` False: only a play-length source names it) is ``no_store_data``: there
    is no storefront record to say whether it is a game, or what it costs."""
    if not has_store_data:
        return "no_store_data"
    if is_non_game:
        return "not_a_game"
    if is_delisted:
        return "delisted"
    if not has_price:
        return "no_usd_price"
    if review_count < MIN_REVIEWS:
        return "too_few_reviews"
    if not has_length:
        return "no_length"
    return None
