"""The storefront's app list with change times: which apps changed since the last refresh.

Endpoint (Steam Web API, a Web API key needed): ``GET api.steampowered.com/IStoreService/
GetAppList/v1/?key=...&if_modified_since=<Unix s>&include_games=true&last_appid=<cursor>&
max_results=50000`` -> ``{"response": {"apps": [{"appid", "name", "last_modified",
"price_change_number"}], "have_more_results": bool, "last_appid": int}}``, pages in appid
order, continued from ``last_appid`` while ``have_more_results``. Shape as public clients
record it (a TypeScript ``IGetAppList`` interface; a data pipeline's documented request with
``include_games``, ``max_results=50000`` and the ``last_appid`` cursor), found with the
``search`` tool; no field beyond those.

A catalogue app in the list changed on the store since ``if_modified_since``: it gets the
per-game ``appdetails`` call, which carries what no batch does (genres, credits, metacritic).
An app in the list that the catalogue does not know is new: counted, not rated here (a new game
needs a play length and player statistics that only the slower sources give).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from bangscore.ingest.live.http import PoliteClient

__all__ = ["MAX_RESULTS", "AppListAdapter", "AppListChanges", "parse_app_list_page"]

MAX_RESULTS: Final = 50_000
# A runaway cursor (a host that keeps saying "more") stops here: 50 pages cover 2.5M apps.
MAX_PAGES: Final = 50


def parse_app_list_page(payload: Mapping[str, Any]) -> tuple[list[int], int | None]:
    """Given one GetAppList answer, return its appids and the cursor of the next page (None:
    the last page). Raises KeyError/TypeError/ValueError on a malformed answer."""
    response = payload.get("response") or {}
    appids = [int(app["appid"]) for app in response.get("apps") or ()]
    more = bool(response.get("have_more_results"))
    return appids, (int(response["last_appid"]) if more else None)


@dataclass
class AppListChanges:
    """Apps the list names as changed since the last refresh: ``known`` (in the catalogue)
    and ``new`` (not in it), and the requests it took."""

    known: set[int] = field(default_factory=set)
    new: set[int] = field(default_factory=set)
    requests: int = 0


@dataclass(frozen=True)
class AppListAdapter:
    """Adapter: the games changed on the store since a time, from GetAppList."""

    api_base: str
    api_key: str = field(repr=False)
    name: str = "app_list"

    def changes(
        self, client: PoliteClient, since: dt.datetime, catalogue: set[int]
    ) -> AppListChanges:
        """Given a client, the time of the last refresh (UTC) and the appids the catalogue
        knows (rated or not), return the games changed since then. Raises as the client
        does, KeyError/TypeError/ValueError on a malformed answer."""
        url = f"{self.api_base.rstrip('/')}/IStoreService/GetAppList/v1/"
        out = AppListChanges()
        cursor: int | None = 0
        while cursor is not None and out.requests < MAX_PAGES:
            params: dict[str, str | int] = {
                "key": self.api_key,
                "if_modified_since": int(since.timestamp()),
                "include_games": "true",
                "max_results": MAX_RESULTS,
                "last_appid": cursor,
            }
            appids, cursor = client.get_json(url, params, parse=parse_app_list_page)
            out.requests += 1
            for appid in appids:
                (out.known if appid in catalogue else out.new).add(appid)
        return out
