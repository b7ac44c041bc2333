"""What the website's pages show beyond the wire records: driver and genre labels, the length's
source (the better-value box: :mod:`bangscore.site.better_value`).

Pure functions of wire dicts and list order; :mod:`bangscore.site.render` renders them and
:func:`bangscore.build.snapshot.snapshot_objects` calls them once per build.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from bangscore.scoring.drivers import TYPICAL_REVIEW_SCORE
from bangscore.scoring.genres import GENRES
from bangscore.scoring.review_words import (
    Reviews,
    lifetime_words,
    read_words,
    recent_words,
    share_words,
)
from bangscore.scoring.verdict import day

# Human labels of the ``drivers`` vocabulary (docs/API.md#drivers).
DRIVER_LABELS: Mapping[str, str] = {
    "reviews": "Player reviews",
    "price": "Price",
    "length": "Length",
    "replayability": "Replayability",
    "finish_rate": "Share of players who finish",
    "estimated_length": "Length is an estimate",
    "unattended_time": "Idle or tool time (not counted)",
    "recent_reviews": "Recent reviews",
}
DRIVER_GROUPS: tuple[tuple[str, str], ...] = (
    ("raises", "Raises the score"),
    ("lowers", "Lowers the score"),
    ("neutral", "Neither raises nor lowers it"),
)
LENGTH_SOURCES: Mapping[str, str] = {
    "hltb": "main-story time from a play-length source",
    "playtime_estimate": "estimated from how long the game's reviewers play",
    "playtime": "how long players play it (a game played mainly with others online)",
}
GENRE_LABELS: Mapping[str, str] = {
    "rpg": "RPG",
    "shooter": "Shooter",
    "strategy": "Strategy",
    "narrative": "Narrative",
    "roguelike": "Roguelike",
    "multiplayer": "Multiplayer",
    "indie_short": "Short indie",
    "action": "Action",
    "other": "Other",
}
assert set(GENRE_LABELS) == set(GENRES), "every genre needs a label"


# Why a score is provisional (the detail's ``provisional_reasons``), in the page's words.
PROVISIONAL_REASONS: Mapping[str, str] = {
    "few_reviews": "fewer than 50 reviews",
    "estimated_length": "estimated length",
    "stale_price": "price last seen over 180 days ago",
}


def _stale_words(record: Mapping[str, Any]) -> str:
    """Return the stale-price reason with the price's date ("price last seen 1 Jan 2025")
    when the record dates its price, else the undated words."""
    observed = str(record.get("price_observed_at") or "")[:10]
    try:
        seen = dt.date.fromisoformat(observed)
    except ValueError:
        return PROVISIONAL_REASONS["stale_price"]
    return f"price last seen {day(seen)}"


def review_count_label(record: Mapping[str, Any]) -> str:
    """Given a list item or detail record, return its review count as a page writes it:
    ``1,000+`` when the count is a lower bound (a capped sample), else ``12,345``."""
    count = f"{int(record.get('review_count') or 0):,}"
    lower = "review_count" in (record.get("estimated") or ())
    return f"{count}+" if lower else count


def flags_view(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Given a list item or detail record, return its flags as (css name, words), in the order
    Early Access, Provisional (with why, when the record says), Adult; [] for none."""
    out = []
    if record.get("early_access"):
        out.append(("early-access", "Early Access"))
    if record.get("provisional"):
        reasons = [
            _stale_words(record)
            if r == "stale_price"
            else PROVISIONAL_REASONS.get(str(r), str(r).replace("_", " "))
            for r in record.get("provisional_reasons") or ()
        ]
        out.append(("provisional", "Provisional" + (f": {', '.join(reasons)}" if reasons else "")))
    if record.get("adult"):
        out.append(("adult", "Adult"))
    return out


def driver_label(name: str) -> str:
    """Given a driver name, return its human label (a readable form of an unknown name)."""
    return DRIVER_LABELS.get(name) or name.replace("_", " ").capitalize()


def genre_label(genre: str) -> str:
    """Given a genre wire name, return its human label."""
    return GENRE_LABELS.get(genre) or genre.replace("_", " ").capitalize()


def length_source_label(detail: Mapping[str, Any]) -> str | None:
    """Given a detail record, return the words for where its length comes from, or None.

    Without ``length_source`` (records before it was published), the ``estimated`` list still
    tells an estimated length from a measured one.
    """
    source = detail.get("length_source")
    if isinstance(source, str):
        return LENGTH_SOURCES.get(source, source.replace("_", " "))
    if "length" in detail.get("estimated", ()):
        return "an estimate"
    return None


def _usd(value: float) -> str:
    return "free" if value == 0 else f"${value:,.2f}"


def _price_seen(detail: Mapping[str, Any]) -> str:
    """Given a detail record, return the words that date its price, as the verdict does: a
    list price quoted after a sale that ended names that sale (its observation is the sale's,
    not the list price's), else the day the price was seen; "" when unknown. A catalogue's
    prices are not all of one day, so a price is never quoted without its date."""
    ended_at, ended_usd = detail.get("ended_sale_at"), detail.get("ended_sale_usd")
    if isinstance(ended_at, str) and isinstance(ended_usd, int | float):
        when = day(dt.date.fromisoformat(ended_at[:10]))
        return f" (list price; {_usd(ended_usd)} in a sale seen {when}, since ended)"
    observed = detail.get("price_observed_at")
    if isinstance(observed, str):
        return f" (seen {day(dt.date.fromisoformat(observed[:10]))})"
    return ""


def driver_reasons(
    detail: Mapping[str, Any],
    *,
    typical_price_per_hour: float | None,
    typical_hours: float | None,
) -> dict[str, str]:
    """Given a detail record and what is typical of its genre (median price per hour of main
    story of its paid games, USD; median main-story hours), return for each driver of the
    record a sentence in a buyer's words saying why it pushes the score its way: the price (with
    the day it was seen, ``price_observed_at``) per hour against the genre's typical one, the
    length against the genre's, the reviews against the catalogue's typical share. Never a
    weight."""
    genre = genre_label(str(detail.get("genre", "other")))
    price = float(detail.get("price_usd") or 0)
    hours = detail.get("length_hours")
    # A multiplayer-first game is measured by how long players play, not by a campaign.
    played = detail.get("length_source") == "playtime"
    of_what = "of play" if played else "of main story"
    out: dict[str, str] = {}
    seen = _price_seen(detail)
    if price == 0:
        out["price"] = f"It is free{seen}."
    elif hours:
        per_hour = price / float(hours)
        typical = (
            f"; {genre} games typically cost {_usd(typical_price_per_hour)} an hour"
            if typical_price_per_hour
            else ""
        )
        out["price"] = (
            f"{_usd(price)}{seen} for {float(hours):.1f} h {of_what} is "
            f"{_usd(round(per_hour, 2))} an hour{typical}."
        )
    if hours:
        typical_len = (
            f"; a typical {genre} game takes {typical_hours:.1f} h" if typical_hours else ""
        )
        out["length"] = (
            f"Players play it {float(hours):.1f} h{typical_len}."
            if played
            else f"{float(hours):.1f} h of main story{typical_len}."
        )
    reviews = detail_reviews(detail)
    if reviews is not None:
        # The share the score read, with its period and date (issue 56: a driver quoted the
        # lifetime share of a game whose score reads its recent reviews).
        words = read_words(reviews)
        out["reviews"] = (
            f"{words[0].upper()}{words[1:]} are positive; "
            f"the typical rated game has {TYPICAL_REVIEW_SCORE * 100:.0f}%."
        )
    finish = detail.get("finish_rate")
    if finish is not None:
        # Dated by its source (issue 56: no figure without its date).
        when = _date(((detail.get("provenance") or {}).get("finish_rate") or {}).get("date"))
        dated = f" (as of {day(when)})" if when is not None else ""
        out["finish_rate"] = f"{float(finish) * 100:.0f}% of its players finish it{dated}."
    out["replayability"] = "Players who like it keep playing long after the main story."
    out["estimated_length"] = (
        "Its length is estimated from how long reviewers play, so it counts for less."
    )
    out["unattended_time"] = "Hours spent idling or in a tool do not count as play."
    if reviews is not None and reviews.recent is not None and reviews.recent_count:
        # Both shares, dated, as the score reads the recent one (score version 6.0).
        out["recent_reviews"] = (
            f"{recent_words(reviews)[0].upper()}{recent_words(reviews)[1:]} are positive; "
            f"{lifetime_words(reviews)} are."
        )
    return out


def review_words(detail: Mapping[str, Any]) -> dict[str, str]:
    """Given a detail record, return how its page words its review shares, each with its period
    and date (:mod:`scoring.review_words`): ``read`` the share the score reads (the lifetime one
    beside a recent one it reads), ``lifetime`` and ``recent`` ("" without a sample); {} without a
    ``review_score``."""
    reviews = detail_reviews(detail)
    if reviews is None:
        return {}
    return {
        "read": share_words(reviews),
        "lifetime": lifetime_words(reviews),
        "recent": recent_words(reviews),
    }


def _date(value: object) -> dt.date | None:
    return dt.date.fromisoformat(value[:10]) if isinstance(value, str) else None


def detail_reviews(detail: Mapping[str, Any]) -> Reviews | None:
    """Given a detail record, return its review shares as sentences quote them
    (:class:`scoring.review_words.Reviews`: the lifetime share, its count as the page writes it
    and the day its source read it, ``provenance.review_score``; the recent sample, its size and
    ``recent_reviews_at``), or None without a ``review_score``."""
    score = detail.get("review_score")
    if score is None:
        return None
    source = (detail.get("provenance") or {}).get("review_score") or {}
    recent, count = detail.get("recent_review_score"), detail.get("recent_review_count")
    return Reviews(
        float(score),
        review_count_label(detail),
        _date(source.get("date")) or _date((detail.get("sources") or {}).get("storefront")),
        float(recent) if recent is not None else None,
        int(count) if count is not None else None,
        _date(detail.get("recent_reviews_at")),
        _reads_recent(detail),
    )


def _reads_recent(detail: Mapping[str, Any]) -> bool | None:
    """Given a detail record, return whether its score read the recent share: its ``drivers``
    name ``recent_reviews`` exactly then (None: a record without drivers)."""
    drivers = detail.get("drivers")
    if not isinstance(drivers, Mapping):
        return None
    return any("recent_reviews" in (drivers.get(group) or ()) for group in drivers)


def drivers_explained(
    detail: Mapping[str, Any], reasons: Mapping[str, str]
) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """Given a detail record and :func:`driver_reasons`, return its drivers as (group heading,
    [(label, reason or None)]) for the non-empty groups, raises then lowers then neutral."""
    drivers = detail.get("drivers")
    if not isinstance(drivers, Mapping):
        return []
    out = []
    for key, heading in DRIVER_GROUPS:
        names = [str(n) for n in drivers.get(key) or []]
        if names:
            out.append((heading, [(driver_label(n), reasons.get(n)) for n in names]))
    return out
