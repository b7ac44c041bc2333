"""The ranking read as a player would read it (issue 25 item 8): a plain-text report of the
scored catalogue and its verdicts.

``python -m bench.ranking [--catalog FILE] [--as-of YYYY-MM-DD]`` (or ``make ranking``) scores
the bundled dumps (as that day knew them, with ``--as-of``) or a catalog file written by
``bangscore ingest`` / :func:`bangscore.ingest.catalog.write_catalog`, for the day a build would
be made for (``--as-of``, else today, UTC: the verdicts' sale forecast starts from it, as
``bangscore build`` does, never from ``prices_as_of``), and prints: the top 50, each genre's
top 10, the 2025 and 2026 top 20, twenty games a player knows with their verdicts and prices,
the verdict counts, the share of paid ``buy_now`` games priced at twice or more a price seen
in the 365 days before ``prices_as_of`` (the rule allows it only where waiting would save under
$2), and the score's round-6 targets (:mod:`bangscore.scoring.calibration.targets`). Reads
only; writes nothing but stdout.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bangscore.build.buyer import buyer_fields, sightings
from bangscore.ingest.catalog import load_bundled_catalog, read_catalog
from bangscore.scoring import flags
from bangscore.scoring.calibration.targets import read_anchors, target_lines
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.verdict import past_year

# Twenty games a player knows, by appid: big releases, indie hits, free-to-play staples.
KNOWN: tuple[int, ...] = (
    1086940,  # Baldur's Gate 3
    1771300,  # Kingdom Come: Deliverance II
    1569580,  # Blue Prince
    2807960,  # Battlefield 6
    1091500,  # Cyberpunk 2077
    292030,  # The Witcher 3: Wild Hunt
    1174180,  # Red Dead Redemption 2
    413150,  # Stardew Valley
    1145360,  # Hades
    1145350,  # Hades II
    2379780,  # Balatro
    1245620,  # Elden Ring
    367520,  # Hollow Knight
    1030300,  # Hollow Knight: Silksong
    1903340,  # Clair Obscur: Expedition 33
    730,  # Counter-Strike 2
    570,  # Dota 2
    105600,  # Terraria
    620,  # Portal 2
    271590,  # Grand Theft Auto V
)

Row = tuple[ScoredGame, dict[str, Any]]


def _flags(game: ScoredGame) -> str:
    marks = []
    if flags.early_access(game.record):
        marks.append("EA")
    if flags.adult(game.record):
        marks.append("adult")
    if flags.provisional_reasons(game.record):
        marks.append("prov:" + ",".join(flags.provisional_reasons(game.record)))
    return " [" + " ".join(marks) + "]" if marks else ""


def line(game: ScoredGame, fields: dict[str, Any]) -> str:
    """Given a scored game and its buyer fields, return one report line: score, tier, name,
    year, genre, price, length and source, verdict and flags."""
    rec = game.record
    hours = f"{rec.main_story_hours:.1f} h {rec.length_source}" if rec.main_story_hours else "-"
    return (
        f"{game.bang_score:3d} {game.tier:8s} {rec.name[:44]:44s} {rec.release_year or '----'} "
        f"{game.genre:11s} ${rec.price_usd:6.2f} {hours:24s} {fields['verdict']}{_flags(game)}"
    )


def rows_for(games: Sequence[ScoredGame], prices_as_of: dt.date, day: dt.date) -> list[Row]:
    """Given scored games in list order, the catalogue's ``prices_as_of`` day and the day the
    snapshot is built for, return each game with its buyer fields as that build gives them
    (:func:`bangscore.build.buyer.buyer_fields`): the evidence window ends at ``prices_as_of``,
    the sale forecast starts from ``day`` (the next seasonal sale ending on or after it)."""
    return list(zip(games, buyer_fields(games, prices_as_of, day), strict=True))


def sections(rows: Sequence[Row], as_of: dt.date, day: dt.date | None = None) -> Iterator[str]:
    """Given the games in list order with their buyer fields (:func:`rows_for`), the
    catalogue's as-of day and the day the build is for (None: the as-of day), yield the
    report's lines."""
    built = f", built for {day}" if day is not None and day != as_of else ""
    yield f"Ranking as a player reads it: {len(rows)} rated games, prices as of {as_of}{built}"
    yield "\n== Top 50"
    yield from (line(*row) for row in rows[:50])
    yield "\n== Bottom 50"
    yield from (line(*row) for row in rows[-50:])
    for genre in GENRES:
        yield f"\n== Top 10 {genre}"
        yield from (line(*row) for row in [r for r in rows if r[0].genre == genre][:10])
    for year in (2025, 2026):
        yield f"\n== Top 20 of {year}"
        yield from (
            line(*row) for row in [r for r in rows if r[0].record.release_year == year][:20]
        )
    yield "\n== Games a player knows"
    by_appid = {row[0].record.appid: row for row in rows}
    for appid in KNOWN:
        if appid in by_appid:
            game, fields = by_appid[appid]
            yield line(game, fields)
            yield f"      {fields['verdict_text']}"
        else:
            yield f"  --  not rated: appid {appid}"
    counts = Counter(fields["verdict"] for _, fields in rows)
    yield "\n== Verdicts"
    yield ", ".join(f"{name} {count}" for name, count in counts.most_common())
    paid = twice = twice_over_2 = 0
    for game, fields in rows:
        rec = game.record
        if fields["verdict"] != "buy_now" or rec.price_usd <= 0:
            continue
        paid += 1
        low = min((s.price_usd for s in past_year(sightings(rec), as_of)), default=rec.price_usd)
        if rec.price_usd >= 2 * low:
            twice += 1
            twice_over_2 += rec.price_usd - low >= 2
    yield (
        f"paid buy_now at >= 2x a price seen in the past year: {twice} of {paid} "
        f"({100 * twice / max(paid, 1):.1f}%); of those saving $2 or more by waiting: "
        f"{twice_over_2}"
    )
    free = [g for g, _ in rows if g.record.price_usd == 0 and g.record.list_price_usd == 0]
    yield (
        f"free games: {len(free)}, highest score {max((g.bang_score for g in free), default=0)}; "
        f"lengths from play: {sum(g.record.length_source == 'playtime' for g, _ in rows)}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Print the report for the bundled dumps or ``--catalog``; return 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, help="a catalog file (default: the bundled dumps)")
    parser.add_argument(
        "--as-of",
        type=dt.date.fromisoformat,
        help="the day the build is for, YYYY-MM-DD (default: today, UTC), as `bangscore build "
        "--as-of`: the bundled dumps as that day knew them, the sale forecast from it",
    )
    args = parser.parse_args(argv)
    today = dt.datetime.now(dt.UTC).date()
    if args.as_of is not None and args.catalog:
        parser.error("--as-of reads the bundled dumps; drop --catalog")
    if args.as_of is not None and args.as_of > today:
        parser.error(f"--as-of {args.as_of} is after today ({today}, UTC)")
    day = args.as_of or today
    if args.catalog:
        catalog = read_catalog(args.catalog)
    else:
        catalog, _ = load_bundled_catalog(Path(__file__).parent.parent / "data", as_of=args.as_of)
    games = score_catalog(catalog.games)
    as_of = catalog.prices_as_of.date() if catalog.prices_as_of is not None else day
    for text in sections(rows_for(games, as_of, day), as_of, day):
        print(text)
    print()
    for text in target_lines(games, read_anchors()):
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
