"""Join the read dumps by storefront appid into :class:`GameRecord` s (pure: no file I/O;
reading the files is :func:`ingest.catalog.read_dumps`). Provenance: ``data/README.md``.

Join (base = SteamSpy 2025-01-01; an app without a known USD price there gets no record):

- price, list price, discount, review counts, developer, publisher, owners: SteamSpy
  2025-01-01 (``sources.storefront``). That day was in the winter sale: ``price`` is the sale
  price that day. A discount that disagrees with the two prices skips the app. So does a
  price of 0 (list price 0) where an earlier dump shows the game sold for money (SteamSpy
  2023-02-04 price or list price above 0, or a 2019 store price above 0): SteamSpy lists
  delisted titles at 0, so that 0 is not a known price (:func:`price_error`).
- storefront genres, top-3 user tags, release date: the 2019 Steam store dump by appid. For
  other games the release year (and date when HLTB has a full one) comes from HLTB, and tags
  from ITAD's tag list when ITAD matched soundly. ``storefront_genres`` are only ever
  storefront genres; HLTB's own genres go to ``play_length_genres``.
- main story / completionist hours: HLTB 2023 by its ``steam_app_id``; where HLTB lists an
  appid twice, the entry whose title equals the storefront title wins, otherwise none does.
  HLTB rows without an appid join by a sound title match (:mod:`ingest.names`) that also needs
  both release years known and within 1 year. ``sources.play_length`` = HLTB's date.
- finish rate: estimated (listed in ``estimated``) as P(playtime >= main story) under a
  log-normal fit of SteamSpy 2023-02-04 ``median_forever``/``average_forever``, falling back to
  the 2019 dump's playtimes; ``sources.player_stats`` = that playtime's date. No playtime or no
  length: None. ``players_estimate``: 2018 achievement-derived counts by appid.
- historical low: the lowest of the USD prices observed (SteamSpy 2023 and 2025) and, with a
  sound ITAD match, list price x (1 - deepest ITAD discount); ITAD prices are EUR and unused.
  ``sources.price_history`` is set when ITAD matched (it also gives ``metacritic``).
- wiki: no PCGamingWiki dump exists, so ``sources.wiki`` is always None.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from pydantic import ValidationError
from tqdm import tqdm

from ingest.dumps import DumpRead, HltbGame, ItadGame, PlayerCount, SteamSpyApp, StoreGame
from ingest.names import normalise_name, sound_matches
from scoring.records import GameRecord, Sources

STOREFRONT_DATE = dt.date(2025, 1, 1)
PLAYTIME_2023_DATE = dt.date(2023, 2, 4)
# Approximate: the dump's newest release date is 2019-05-01 (Kaggle: "gathered May 2019").
STORE_2019_DATE = dt.date(2019, 5, 1)
# Approximate: the Kaggle HLTB source says "last updated 2023" without a day.
HLTB_DATE = dt.date(2023, 12, 31)
PLAYERS_2018_DATE = dt.date(2018, 7, 1)

# Where the fit is undefined (mean <= median: 82% of the 2023 playtime rows), sigma is the
# typical fitted value: its median is 0.97 over the 2,399 SteamSpy 2023 games with
# mean > median and 0.90 over the 742 such games of the 2019 dump.
DEFAULT_SIGMA = 1.0
FREE_BUT_PAID_EARLIER = "price unknown: free in 2025 but paid earlier (delisted or changed)"
RAW_FILES = {
    "steamspy_2025": "steamspy_all_2025-01-01",
    "steamspy_2023": "steamspy_all_2023-02-04",
    "store_2019": "steam_store_games_2019/steam.csv.gz",
    "hltb": "hltb_2023/hltb_clean.csv",
    "players_2018": "steam_players_2018/games_achievements_players_2018-07-01.csv",
    "itad": "itad_price_history_2025/steam_games_analysis.csv.gz",
}


@dataclass
class Dumps:
    """Everything the join reads, one :class:`DumpRead` per bundled file."""

    steamspy_2025: DumpRead[SteamSpyApp]
    steamspy_2023: DumpRead[SteamSpyApp]
    store_2019: DumpRead[StoreGame]
    hltb: DumpRead[HltbGame]
    players_2018: DumpRead[PlayerCount]
    itad: DumpRead[ItadGame]


@dataclass
class IngestReport:
    """Counts of one ingest: rows ``read``/kept (``rows``) per source, ``skipped`` rows per
    ``"<source>: <reason>"``, ``matched`` joins per ``"<source> <how>"``, ``joined`` records,
    rated-catalog ``dropped`` per rule reason, ``kept`` games and wall ``seconds``."""

    read: Counter[str] = field(default_factory=Counter)
    rows: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    matched: Counter[str] = field(default_factory=Counter)
    joined: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    kept: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """Given the report, return it as aligned human-readable lines."""
        lines = ["rows read (kept) per source:"]
        lines += [f"  {k:<16} {v:>7} ({self.rows[k]})" for k, v in self.read.items()]
        for title, counts in (("skipped", self.skipped), ("matched", self.matched)):
            lines.append(f"{title}:")
            lines += [f"  {k:<40} {v:>7}" for k, v in sorted(counts.items())]
        lines.append(f"records joined: {self.joined}")
        lines.append("rated-catalog drops:")
        lines += [f"  {k:<40} {v:>7}" for k, v in self.dropped.most_common()]
        lines.append(f"kept in rated catalog: {self.kept}")
        lines.append(f"wall time: {self.seconds:.1f} s")
        return "\n".join(lines)


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


def _hltb_by_appid(
    hltb: list[HltbGame],
    apps: dict[int, tuple[str, int | None]],
    report: IngestReport,
) -> dict[int, HltbGame]:
    """Given HLTB entries and ``appid -> (storefront title, store release year)``, return one
    HLTB entry per appid (see the module docstring) and count how each was matched."""
    grouped: defaultdict[int, list[HltbGame]] = defaultdict(list)
    for game in hltb:
        if game.steam_appid is not None and game.steam_appid in apps:
            grouped[game.steam_appid].append(game)
    chosen: dict[int, HltbGame] = {}
    for appid, games in grouped.items():
        if len(games) > 1:
            title = normalise_name(apps[appid][0])
            games = [g for g in games if normalise_name(g.name) == title]
            if len(games) != 1:
                report.matched["hltb: appid listed twice, unresolved"] += 1
                continue
            report.matched["hltb: appid listed twice, resolved by title"] += 1
        chosen[appid] = games[0]
    report.matched["hltb: by appid"] = len(chosen)
    by_name = sound_matches(
        {i: (g.name, g.release_year) for i, g in enumerate(hltb)}, apps, require_years=True
    )
    for index, appid in by_name.matches.items():
        game = hltb[index]
        if game.steam_appid is None and appid not in chosen:
            chosen[appid] = game
            report.matched["hltb: by sound title (no appid in HLTB)"] += 1
    return chosen


def _itad_by_appid(
    itad: list[ItadGame], apps: dict[int, tuple[str, int | None]], report: IngestReport
) -> dict[int, ItadGame]:
    """Given ITAD games and ``appid -> (title, release year)``, return the sound matches.

    Years are not compared: ITAD's release dates are noisy (placeholders such as 1970 and
    2010, e.g. Fallout 4 dated 2010), while both titles come from the one Steam catalog, where
    a title unique on both sides already names one app.
    """
    found = sound_matches(
        {i: (g.name, g.release_year) for i, g in enumerate(itad)}, apps, year_tolerance=None
    )
    report.matched["itad: by sound title"] = len(found.matches)
    report.matched["itad: title shared by several ITAD games"] = found.ambiguous_left
    report.matched["itad: title shared by several apps"] = found.ambiguous_right
    report.matched["itad: no equal title"] = found.unmatched
    return {appid: itad[index] for index, appid in found.matches.items()}


def _playtime(
    appid: int, spy_2023: dict[int, SteamSpyApp], store: dict[int, StoreGame]
) -> tuple[int, int, dt.date] | None:
    """Return (median, mean minutes, date) of the newest playtime data for appid, or None."""
    old = spy_2023.get(appid)
    if old is not None and old.median_forever_min > 0 and old.average_forever_min > 0:
        return old.median_forever_min, old.average_forever_min, PLAYTIME_2023_DATE
    game = store.get(appid)
    if game is not None and game.median_playtime_min > 0 and game.average_playtime_min > 0:
        return game.median_playtime_min, game.average_playtime_min, STORE_2019_DATE
    return None


def _historical_low(
    app: SteamSpyApp, old: SteamSpyApp | None, itad: ItadGame | None
) -> tuple[int, bool]:
    """Return (lowest price in cents, whether the ITAD-derived price is that lowest)."""
    assert app.price_cents is not None and app.list_price_cents is not None
    low = app.price_cents
    # A 2023 price of 0 next to a paid 2025 list price is "not on sale then", not "free".
    old_price = old.price_cents if old is not None else None
    if old_price is not None and (old_price > 0 or app.list_price_cents == 0):
        low = min(low, old_price)
    if itad is not None and app.list_price_cents > 0:
        # Rounded down to the cent, as Steam's sale prices are (19.99 at -75% sells at 4.99).
        from_itad = app.list_price_cents * (100 - itad.max_discount_percent) // 100
        if from_itad < low:
            return from_itad, True
    return low, False


def price_error(
    app: SteamSpyApp, earlier: SteamSpyApp | None = None, store: StoreGame | None = None
) -> str | None:
    """Given a SteamSpy 2025 app, the same app in SteamSpy 2023-02-04 and in the 2019 store
    dump (None where absent), return why its 2025 price cannot make a record, or None.

    Reasons: ``"no USD price"``, ``"price above list price"``, ``"discount disagrees with
    prices"``, and :data:`FREE_BUT_PAID_EARLIER` for a price and list price of 0 where either
    earlier dump shows it sold for money (2023 price or list price above 0, or a 2019 store
    price above 0). SteamSpy lists titles withdrawn from sale at 0 (Football Manager 2023,
    Out of the Park Baseball 18), so that 0 is no price; a game that really went free to play
    is dropped with them, since the dumps cannot tell the two apart. Games free in every dump
    where they appear (Dota 2, Team Fortress 2) or absent from both earlier dumps keep their 0.
    """
    if app.price_cents is None or app.list_price_cents is None or app.discount_percent is None:
        return "no USD price"
    if app.price_cents > app.list_price_cents:
        return "price above list price"
    if app.list_price_cents > 0:
        implied = 100 * (1 - app.price_cents / app.list_price_cents)
        if abs(implied - app.discount_percent) > 1:
            return "discount disagrees with prices"
        return None
    if app.discount_percent:
        return "discount disagrees with prices"
    paid_2023 = earlier is not None and bool(earlier.price_cents or earlier.list_price_cents)
    if paid_2023 or (store is not None and store.paid):
        return FREE_BUT_PAID_EARLIER
    return None


@dataclass
class _Indexes:
    """The non-base dumps keyed by storefront appid."""

    spy_2023: dict[int, SteamSpyApp]
    store: dict[int, StoreGame]
    hltb: dict[int, HltbGame]
    players: dict[int, PlayerCount]
    itad: dict[int, ItadGame]
    itad_date: dt.date | None


@functools.lru_cache(maxsize=64)
def _sources(
    player_stats: dt.date | None, play_length: dt.date | None, price_history: dt.date | None
) -> Sources:
    """Return the (frozen, shared) Sources for one combination of dates; wiki is never known."""
    return Sources(
        storefront=STOREFRONT_DATE,
        player_stats=player_stats,
        play_length=play_length,
        price_history=price_history,
    )


def _record(app: SteamSpyApp, ix: _Indexes, report: IngestReport) -> GameRecord:
    """Given a base app with valid prices and the indexes, return its joined record."""
    store, hltb, itad = ix.store.get(app.appid), ix.hltb.get(app.appid), ix.itad.get(app.appid)
    estimated: list[str] = []
    release_date = store.release_date if store else hltb.release_date if hltb else None
    release_year = store.release_date.year if store else hltb.release_year if hltb else None
    tags = store.tags if store and store.tags else itad.tags[:20] if itad else ()
    if not (store and store.tags) and tags:
        report.matched["tags from itad"] += 1
    main = hltb.main_story_hours if hltb else None
    playtime = _playtime(app.appid, ix.spy_2023, ix.store)
    finish_rate = None
    player_stats_date = playtime[2] if playtime else None
    if playtime and main:
        finish_rate = finish_rate_estimate(playtime[0], playtime[1], main)
        estimated.append("finish_rate")
        report.matched[f"finish_rate from playtime of {playtime[2]}"] += 1
    players = ix.players.get(app.appid)
    if player_stats_date is None and players is not None:
        player_stats_date = PLAYERS_2018_DATE
    low_cents, low_from_itad = _historical_low(app, ix.spy_2023.get(app.appid), itad)
    if low_from_itad:
        estimated.append("historical_low_usd")
        report.matched["historical low from itad discount"] += 1
    assert app.price_cents is not None and app.list_price_cents is not None
    return GameRecord(
        appid=app.appid,
        name=app.name,
        developer=app.developer,
        publisher=app.publisher,
        price_usd=app.price_cents / 100,
        list_price_usd=app.list_price_cents / 100,
        discount_percent=app.discount_percent or 0,
        review_positive=app.positive,
        review_negative=app.negative,
        release_date=release_date,
        release_year=release_year,
        storefront_genres=store.genres if store else (),
        tags=tags,
        play_length_genres=hltb.genres if hltb else (),
        main_story_hours=main,
        completionist_hours=hltb.completionist_hours if hltb else None,
        finish_rate=finish_rate,
        players_estimate=players.players if players else None,
        owners_range=app.owners,
        median_playtime_hours=playtime[0] / 60 if playtime else None,
        historical_low_usd=low_cents / 100,
        metacritic=itad.metacritic if itad else None,
        sources=_sources(
            player_stats_date,
            HLTB_DATE if hltb and (main or hltb.completionist_hours) else None,
            ix.itad_date if itad else None,
        ),
        estimated=tuple(estimated),
    )


def join_dumps(dumps: Dumps, *, progress: bool = False) -> tuple[list[GameRecord], IngestReport]:
    """Given the read dumps, return (one record per SteamSpy 2025 app with a valid USD price,
    sorted by appid; the report of rows read, skipped per reason and matches per source).

    Broken rows were already skipped by the readers; here an app whose prices cannot make a
    record (:func:`price_error`) is skipped under ``"steamspy_2025: <reason>"``. Never raises
    on data content.
    """
    report = IngestReport()
    for name in RAW_FILES:
        read: DumpRead[object] = getattr(dumps, name)
        report.read[name] = read.read
        report.rows[name] = len(read.rows)
        for reason, count in read.skipped.items():
            report.skipped[f"{name}: {reason}"] += count
    store = {g.appid: g for g in dumps.store_2019.rows}
    spy_2023 = {a.appid: a for a in dumps.steamspy_2023.rows}
    base: list[SteamSpyApp] = []
    for app in dumps.steamspy_2025.rows:
        error = price_error(app, spy_2023.get(app.appid), store.get(app.appid))
        if error:
            report.skipped[f"steamspy_2025: {error}"] += 1
        else:
            base.append(app)
    titles = {
        a.appid: (a.name, store[a.appid].release_date.year if a.appid in store else None)
        for a in base
    }
    hltb = _hltb_by_appid(dumps.hltb.rows, titles, report)
    years = {
        appid: (title, year if year else hltb[appid].release_year if appid in hltb else None)
        for appid, (title, year) in titles.items()
    }
    itad = _itad_by_appid(dumps.itad.rows, years, report)
    ix = _Indexes(
        spy_2023=spy_2023,
        store=store,
        hltb=hltb,
        players={p.appid: p for p in dumps.players_2018.rows},
        itad=itad,
        itad_date=max((g.last_seen for g in dumps.itad.rows), default=None),
    )
    report.matched["store_2019: by appid"] = sum(1 for a in base if a.appid in store)
    report.matched["steamspy_2023: by appid"] = sum(1 for a in base if a.appid in ix.spy_2023)
    report.matched["players_2018: by appid"] = sum(1 for a in base if a.appid in ix.players)
    records = []
    for app in tqdm(
        sorted(base, key=lambda a: a.appid), desc="joining", unit="game", disable=not progress
    ):
        try:
            records.append(_record(app, ix, report))
        except ValidationError as err:
            report.skipped[f"join: invalid record ({err.errors()[0]['loc']})"] += 1
    report.joined = len(records)
    return records, report
