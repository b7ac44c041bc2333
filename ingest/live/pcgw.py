"""PCGamingWiki adapter: the community wiki's infobox, looked up by Steam appid (Cargo API).

Endpoint: ``GET www.pcgamingwiki.com/w/api.php?action=cargoquery&format=json&tables=Infobox_game``
with ``where=Infobox_game.Steam_AppID HOLDS "<appid>"`` (``Steam_AppID`` is a list field: one page
may list the game and its editions). Cargo answers ``{"cargoquery": [{"title": {...}}]}`` with the
field names' underscores shown as spaces.

Fields taken, and why:
- ``Steam_AppID``: to confirm the page really lists this appid.
- ``Developers``, ``Publishers`` (``Company:`` prefixed lists): fill ``developer``/``publisher``
  when the storefront left them empty (the detail record shows both).
- ``Released`` (ISO date): fills ``release_date`` when the storefront has no full date (its
  year, ``release_year``, feeds the score and the year filters).
- ``Genres``: parsed and returned by :func:`parse_infobox` for the genre mapping to consult, but
  not stored: the record has no wiki-genre field and the mapping runs on storefront genres/tags.
The wiki never overrides a storefront value: it only fills gaps.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bangscore.ingest.live.http import PoliteClient
from bangscore.ingest.resolve.names import display_cell
from bangscore.scoring.records import GameRecord, SourceName

FIELDS = (
    "Infobox_game._pageName=Page",
    "Infobox_game.Steam_AppID",
    "Infobox_game.Developers",
    "Infobox_game.Publishers",
    "Infobox_game.Released",
    "Infobox_game.Genres",
)


@dataclass(frozen=True)
class WikiInfobox:
    """One PCGamingWiki infobox row: page, appids, companies, first release date, genres."""

    page: str
    appids: tuple[int, ...]
    developers: tuple[str, ...]
    publishers: tuple[str, ...]
    released: dt.date | None
    genres: tuple[str, ...]


def cargo_params(appid: int) -> dict[str, str | int]:
    """Given an appid, return the query of a Cargo lookup of its Infobox_game row."""
    return {
        "action": "cargoquery",
        "format": "json",
        "tables": "Infobox_game",
        "fields": ",".join(FIELDS),
        "where": f'Infobox_game.Steam_AppID HOLDS "{appid}"',
        "limit": 5,
    }


def _split(value: Any) -> tuple[str, ...]:
    parts = (p.strip() for p in str(value or "").split(","))
    return tuple(p.removeprefix("Company:").strip() for p in parts if p)


def _first_date(value: Any) -> dt.date | None:
    # Released may list several dates (one per platform/region): keep the earliest valid one.
    dates = []
    for part in _split(value):
        try:
            dates.append(dt.date.fromisoformat(part[:10]))
        except ValueError:
            continue
    return min(dates) if dates else None


def parse_infobox(payload: Mapping[str, Any], appid: int) -> WikiInfobox | None:
    """Given a ``cargoquery`` response, return the row whose Steam AppID list holds ``appid``."""
    for row in payload.get("cargoquery") or []:
        title = row.get("title") or {}
        appids = tuple(int(p) for p in _split(title.get("Steam AppID")) if p.isdigit())
        if appid in appids:
            return WikiInfobox(
                page=str(title.get("Page", "")),
                appids=appids,
                developers=_split(title.get("Developers")),
                publishers=_split(title.get("Publishers")),
                released=_first_date(title.get("Released")),
                genres=_split(title.get("Genres")),
            )
    return None


def wiki_fields(box: WikiInfobox, record: GameRecord) -> dict[str, object]:
    """Given an infobox and the record, return the gaps it fills (never overriding a value)."""
    fields: dict[str, object] = {}
    developer = display_cell(box.developers[0]) if box.developers else None
    publisher = display_cell(box.publishers[0]) if box.publishers else None
    if record.developer is None and developer:
        fields["developer"] = developer
    if record.publisher is None and publisher:
        fields["publisher"] = publisher
    if record.release_date is None and box.released is not None:
        fields["release_date"] = box.released
    return fields


@dataclass(frozen=True)
class PcgwAdapter:
    """Adapter: fill developer, publisher and release date gaps from PCGamingWiki."""

    base: str
    name: str = "pcgw"
    source: SourceName = "wiki"

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return the gaps the wiki fills; {} if none; None if absent.

        An empty dict still dates the wiki as consulted today.
        """
        payload = client.get_json(f"{self.base.rstrip('/')}/w/api.php", cargo_params(record.appid))
        box = parse_infobox(payload, record.appid)
        return None if box is None else wiki_fields(box, record)
