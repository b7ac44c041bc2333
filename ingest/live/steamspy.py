"""SteamSpy adapter: owner ranges and playtime (the player-statistics source, with achievements).

Endpoint: ``steamspy.com/api.php?request=appdetails&appid=<id>`` (one app; SteamSpy asks for at
most one request per second) and ``request=all&page=<n>`` (1,000 apps a page, one request per
minute). Both return the same per-app object: ``owners`` as a range string
("1,000,000 .. 2,000,000"), ``average_forever`` and ``median_forever`` in minutes, plus ``tags``
and ``genre`` on ``appdetails`` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bangscore.ingest.live.http import PoliteClient
from bangscore.ingest.resolve.names import display_name
from bangscore.scoring.records import GameRecord, SourceName


@dataclass(frozen=True)
class SteamSpyApp:
    """One SteamSpy app: owners range string, playtimes in minutes (0 = SteamSpy has none)."""

    appid: int
    name: str
    owners_range: str | None
    average_forever_minutes: int
    median_forever_minutes: int


def parse_steamspy_app(obj: Mapping[str, Any]) -> SteamSpyApp | None:
    """Given one SteamSpy app object, return it parsed; None for an unknown app (null name)."""
    name = obj.get("name")
    if not name:
        return None
    owners = str(obj.get("owners") or "").strip()
    return SteamSpyApp(
        appid=int(obj["appid"]),
        name=display_name(str(name)),
        owners_range=owners or None,
        average_forever_minutes=int(obj.get("average_forever") or 0),
        median_forever_minutes=int(obj.get("median_forever") or 0),
    )


def steamspy_fields(app: SteamSpyApp) -> dict[str, object]:
    """Given a parsed app, return the GameRecord fields it fills.

    ``owners_range`` verbatim; ``median_playtime_hours`` = median minutes / 60, rounded to 0.1 h,
    left out when SteamSpy reports 0 (it has no playtime for the app, not "nobody played").
    """
    fields: dict[str, object] = {}
    if app.owners_range:
        fields["owners_range"] = app.owners_range
    if app.median_forever_minutes > 0:
        fields["median_playtime_hours"] = round(app.median_forever_minutes / 60, 1)
    return fields


@dataclass(frozen=True)
class SteamSpyAdapter:
    """Adapter: refresh ``owners_range`` and ``median_playtime_hours`` from SteamSpy appdetails."""

    base: str
    name: str = "steamspy"
    source: SourceName = "player_stats"

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return its SteamSpy fields, or None if SteamSpy lacks it."""
        params: dict[str, str | int] = {"request": "appdetails", "appid": record.appid}
        app = parse_steamspy_app(client.get_json(f"{self.base.rstrip('/')}/api.php", params))
        if app is None:
            return None
        return steamspy_fields(app) or None
