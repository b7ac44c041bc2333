"""Observations from the older bundled dumps (2018-2025), parsed row by row in
:mod:`ingest.dumps.files`: SteamSpy 2025-01-01 and 2023-02-04, the 2019 store dump, HowLongToBeat
2023, the 2018 player counts and the ITAD price-history summary.

Two of them share no appid with Steam for every row: HowLongToBeat 2023 rows without an appid
and every ITAD game join by a *sound* title match (:func:`ingest.resolve.names.sound_matches`)
against the names other layers already observed, so these readers take the :class:`Observations`
collected so far. Their layers are registered as ``TRUST_MATCHED``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bangscore.ingest.dumps.files import HltbGame, ItadGame, PlayerCount, SteamSpyApp, StoreGame
from bangscore.ingest.resolve.names import normalise_name, sound_matches
from bangscore.ingest.resolve.observations import Observation, Observations
from bangscore.ingest.resolve.prices import Price


def observe_steamspy(apps: Sequence[SteamSpyApp], *, current: bool) -> Iterator[Observation]:
    """Given SteamSpy ``request=all`` apps, yield name, developer, publisher, review totals,
    owners and the USD price triple (dollars). ``current`` marks the snapshot whose price is a
    price today; an older snapshot gives the price it saw (``usd_price_seen``, and the triple as
    ``price_seen``, a point of the price history), whether the
    game was sold for money then (``paid_before``) and its owners' playtime (median and mean
    minutes, ``owner_playtime``).
    """
    for app in apps:
        yield from _steamspy_seen(app, current=current)
        if current:
            yield from _steamspy_current(app)


def _steamspy_seen(app: SteamSpyApp, *, current: bool) -> Iterator[Observation]:
    """What any SteamSpy snapshot says of an app: names, the price it saw, owners' playtime."""
    yield Observation(app.appid, "name", app.name)
    for role, value in (("developer", app.developer), ("publisher", app.publisher)):
        if value:
            yield Observation(app.appid, role, value)
    if app.price_cents is not None and app.list_price_cents is not None:
        yield Observation(app.appid, "usd_price_seen", app.price_cents / 100)
        if not current and app.price_cents <= app.list_price_cents:
            # Not a price today, but a dated point of the game's price history.
            seen = Price(
                app.price_cents / 100, app.list_price_cents / 100, app.discount_percent or 0
            )
            yield Observation(app.appid, "price_seen", seen)
        if app.price_cents > 0 or app.list_price_cents > 0:
            yield Observation(app.appid, "paid_before", True)
    if app.median_forever_min > 0 and app.average_forever_min > 0:
        playtime = (app.median_forever_min, app.average_forever_min)
        yield Observation(app.appid, "owner_playtime", playtime)


def _steamspy_current(app: SteamSpyApp) -> Iterator[Observation]:
    """What only the current SteamSpy snapshot says of an app: review totals, owners, price."""
    total = app.positive + app.negative
    yield Observation(app.appid, "review_count", total)
    if total:
        yield Observation(app.appid, "review_score", app.positive / total)
    if app.owners:
        yield Observation(app.appid, "owners_range", app.owners)
    cents, list_cents = app.price_cents, app.list_price_cents
    if cents is not None and list_cents is not None and cents <= list_cents:
        price = Price(cents / 100, list_cents / 100, app.discount_percent or 0)
        yield Observation(app.appid, "price", price)


def observe_store_2019(games: Sequence[StoreGame]) -> Iterator[Observation]:
    """Given the 2019 store dump's games, yield name, release date, storefront genres and
    categories, top-3 tags, whether it was sold for money (``paid_before``) and owners'
    playtime (minutes)."""
    for game in games:
        yield Observation(game.appid, "name", game.name)
        yield Observation(game.appid, "release_date", game.release_date)
        if game.genres:
            yield Observation(game.appid, "storefront_genres", game.genres)
        if game.categories:
            yield Observation(game.appid, "categories", game.categories)
        if game.tags:
            yield Observation(game.appid, "tags", game.tags)
        if game.paid:
            yield Observation(game.appid, "paid_before", True)
        if game.median_playtime_min > 0 and game.average_playtime_min > 0:
            playtime = (game.median_playtime_min, game.average_playtime_min)
            yield Observation(game.appid, "owner_playtime", playtime)


def _titles(known: Observations) -> dict[int, tuple[str, int | None]]:
    """Given the observations so far, return appid -> (winning name, release year or None)."""
    out: dict[int, tuple[str, int | None]] = {}
    for appid in known.appids:
        name = known.value(appid, "name")
        if name:
            released = known.value(appid, "release_date")
            out[appid] = (name, released.year if released else None)
    return out


def _hltb_fields(appid: int, game: HltbGame) -> Iterator[Observation]:
    # The year HowLongToBeat gives: the record's year only where no storefront source knows
    # the release date (a storefront dump may hold none: "\\N" for Ori and the Will of the
    # Wisps), so a rated game never shows its year as unknown while any source knows it.
    if game.release_year is not None:
        yield Observation(appid, "play_length_release_year", game.release_year)
    if game.name.strip():
        yield Observation(appid, "play_length_name", game.name.strip())
    if game.main_story_hours:
        yield Observation(appid, "main_story_hours", game.main_story_hours)
    if game.completionist_hours:
        yield Observation(appid, "completionist_hours", game.completionist_hours)
    if game.genres:
        yield Observation(appid, "play_length_genres", game.genres)


def observe_hltb_2023_by_appid(
    rows: Sequence[HltbGame], known: Observations
) -> Iterator[Observation]:
    """Given HowLongToBeat 2023 entries, yield the hours of those carrying a Steam appid. Where
    HLTB lists an appid twice, the entry whose title equals the app's name wins, else none."""
    grouped: dict[int, list[HltbGame]] = {}
    for game in rows:
        if game.steam_appid is not None:
            grouped.setdefault(game.steam_appid, []).append(game)
    for appid, games in grouped.items():
        if len(games) > 1:
            title = normalise_name(known.value(appid, "name", ""))
            games = [g for g in games if normalise_name(g.name) == title]
            if len(games) != 1:
                continue
        yield from _hltb_fields(appid, games[0])


def observe_hltb_2023_by_title(
    rows: Sequence[HltbGame], known: Observations
) -> Iterator[Observation]:
    """Given HowLongToBeat 2023 entries, yield the hours of entries without a Steam appid that
    soundly match one app's name, with both release years known and within one year."""
    loose = [g for g in rows if g.steam_appid is None]
    found = sound_matches(
        {i: (g.name, g.release_year) for i, g in enumerate(loose)},
        _titles(known),
        require_years=True,
    )
    for index, appid in found.matches.items():
        yield from _hltb_fields(appid, loose[index])


def observe_players_2018(rows: Sequence[PlayerCount]) -> Iterator[Observation]:
    """Given the 2018 achievement-derived player counts, yield ``players_estimate``."""
    for row in rows:
        yield Observation(row.appid, "players_estimate", row.players)


def observe_itad(rows: Sequence[ItadGame], known: Observations) -> Iterator[Observation]:
    """Given ITAD's Steam price-history summary, yield for each sound title match the deepest
    discount seen (``deepest_discount_percent``) and the Metacritic score. Years are not
    compared: ITAD's release dates hold placeholders (1970, 2010)."""
    found = sound_matches(
        {i: (g.name, g.release_year) for i, g in enumerate(rows)},
        _titles(known),
        year_tolerance=None,
    )
    for index, appid in found.matches.items():
        game = rows[index]
        yield Observation(appid, "deepest_discount_percent", game.max_discount_percent)
        if game.metacritic is not None:
            yield Observation(appid, "metacritic", game.metacritic)
