"""What each bundled dump must give a build (issue 55): the observation fields it yields and
how many observations, within :data:`ROW_BAND` of what the last build read, as dbt's tests or
Great Expectations' suites declare a source's shape. A dump that fails its expectation stops
the build before anything is published, naming the file and the check: an emptied delisted
dump once re-rated 513 delisted games, and a review dump of another shape rated 54% fewer
games with no error.

The counts are the last build's, over the bundled dumps (measured 2026-12-02, every source
read in full): a dump replaced on purpose updates its line here in the same change.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bangscore.errors import CatalogError
from bangscore.ingest.resolve.observations import Observation

__all__ = ["EXPECTED", "ROW_BAND", "Expectation", "Watched"]

# How far a source's observation count may move from the last build's, as a fraction of it: a
# refreshed dump grows or shrinks by a few percent; a damaged one loses far more (a tenth of
# its rows kept, one shard of several emptied, a column renamed).
ROW_BAND = 0.05


@dataclass(frozen=True)
class Expectation:
    """What one source must yield: ``rows`` observations (within ``band`` of it, a fraction)
    and every field of ``fields`` at least once."""

    rows: int
    fields: frozenset[str]
    band: float = ROW_BAND

    def check(self, path: Path, rows: int, seen: Iterable[str]) -> None:
        """Given the dump's path, the observations read from it and the fields they had,
        raise CatalogError naming the file and the broken expectation, if one is."""
        missing = sorted(self.fields - set(seen))
        if missing:
            raise CatalogError(
                f"raw dump {path} fails its expectation 'required fields': no "
                f"{', '.join(missing)} observed (a renamed column or key, or another shape)"
            )
        low, high = self.rows * (1 - self.band), self.rows * (1 + self.band)
        if not low <= rows <= high:
            raise CatalogError(
                f"raw dump {path} fails its expectation 'row count': {rows:,} observations, "
                f"the last build read {self.rows:,} (at most {self.band:.0%} apart)"
            )


@dataclass
class Watched:
    """A reader's observations passed through, counting the fields seen (what
    :meth:`Expectation.check` needs; a set insert per observation)."""

    observations: Iterable[Observation]
    seen: set[str] = field(default_factory=set)

    def __iter__(self) -> Iterator[Observation]:
        seen = self.seen
        for observation in self.observations:
            seen.add(observation.field)
            yield observation


# Layer name -> the last build's observations and fields (every bundled source).
EXPECTED: dict[str, Expectation] = {
    "steam_pics_2026": Expectation(
        1_391_946,  # with the platform facets of issue 57 (Deck, controller, languages, AI)
        frozenset(
            {
                "app_type",
                "categories",
                "content_descriptors",
                "developer",
                "metacritic",
                "name",
                "publisher",
                "release_date",
                "review_count_floor",
                "review_score",
                "storefront_genres",
                "tags",
            }
        ),
    ),
    "steam_prices_usd_2026-07": Expectation(
        312_520,  # with unpriced_at, the newest row without a price (issue 53)
        frozenset({"price", "price_points", "usd_price_seen"}),
    ),
    "steam_delisted_2026-08": Expectation(22_343, frozenset({"delisted", "name"})),
    "steam_review_playtime_2026": Expectation(
        237_942,
        frozenset({"review_count", "review_count_floor", "review_score", "reviewer_playtime"}),
    ),
    "steamspy_2025-01-01": Expectation(
        671_308,
        frozenset(
            {
                "developer",
                "name",
                "owners_range",
                "paid_before",
                "price",
                "publisher",
                "review_count",
                "review_score",
                "usd_price_seen",
            }
        ),
    ),
    "steam_insights_2024": Expectation(
        1_702_987,
        frozenset(
            {
                "app_type",
                "developer",
                "free",
                "metacritic",
                "name",
                "owners_range",
                "paid_before",
                "price",
                "publisher",
                "release_date",
                "review_count",
                "review_score",
                "storefront_genres",
                "tags",
                "tags_unranked",
                "usd_price_seen",
            }
        ),
    ),
    "steamspy_2023-02-04": Expectation(
        346_381,
        frozenset(
            {
                "developer",
                "name",
                "owner_playtime",
                "paid_before",
                "price_seen",
                "publisher",
                "usd_price_seen",
            }
        ),
    ),
    "steam_store_2019": Expectation(
        166_060,
        frozenset(
            {
                "categories",
                "name",
                "owner_playtime",
                "paid_before",
                "release_date",
                "storefront_genres",
                "tags",
            }
        ),
    ),
    "hltb_steam_2025-12": Expectation(
        92_937, frozenset({"completionist_hours", "main_story_hours", "play_length_name"})
    ),
    "hltb_steam_2026": Expectation(2_159, frozenset({"completionist_hours", "main_story_hours"})),
    "hltb_2023": Expectation(
        121_441,
        frozenset(
            {
                "completionist_hours",
                "main_story_hours",
                "play_length_genres",
                "play_length_name",
                "play_length_release_year",
            }
        ),
    ),
    "hltb_2023 by title": Expectation(
        532,
        frozenset(
            {
                "completionist_hours",
                "main_story_hours",
                "play_length_genres",
                "play_length_name",
                "play_length_release_year",
            }
        ),
    ),
    "steam_rarest_achievement_2024-12": Expectation(
        17_482, frozenset({"rarest_achievement_percent"})
    ),
    "steam_players_2018": Expectation(13_281, frozenset({"players_estimate"})),
    "itad_2025": Expectation(2_128, frozenset({"deepest_discount_percent", "metacritic"})),
    "steam_reviews_window_2025-01": Expectation(1_236, frozenset({"early_window"})),
    "steam_reviews_popular_2024-04": Expectation(96, frozenset({"early_window"})),
    "steam_reviews_indie_2023-11": Expectation(286, frozenset({"early_window"})),
}
