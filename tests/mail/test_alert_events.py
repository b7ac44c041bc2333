"""The event watches (docs/API.md#watches) end to end: ``bangscore watch add --event``, real
builds, the real SQLite store and a real SMTP server (aiosmtpd) whose received bytes are read:
"when its next sale starts" alerts once when a sale starts, "at or below its recent low" when
the price reaches the record's recent low, and the mail says which."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import orjson
import pytest

from bangscore.contract.objects import detail_key
from bangscore.manifest import read_body, read_manifest
from bangscore.storage import LocalStorage
from tests.mail.test_alerts import PLAYER, bangscore, build  # noqa: F401 -- fixture
from tests.support.smtp_server import SMTPServer as LiveSMTP
from tests.support.smtp_server import body_text

HOLLOW_KNIGHT = "367520"


def record(tmp_path: Path) -> dict[str, Any]:
    """Hollow Knight's detail record in the current snapshot."""
    storage = LocalStorage(tmp_path / "snapshots")
    pointer = storage.read_pointer()
    assert pointer is not None
    entry = read_manifest(storage, pointer).entries[detail_key(int(HOLLOW_KNIGHT))]
    parsed: dict[str, Any] = orjson.loads(read_body(storage, entry))
    return parsed


def parsed(raw: bytes) -> EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def test_event_watches_alert_when_the_sale_starts_and_at_the_recent_low(
    tmp_path: Path,
    bangscore: Callable[..., int],  # noqa: F811
    smtp_server: LiveSMTP,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BANGSCORE_SESSION_SECRET", "a secret shared with the servers")
    snapshots = str(tmp_path / "snapshots")
    seen = "(price seen 1 Jan 2025)"
    on_sale = f"Hollow Knight is on sale: $7.49 (50% off $14.99) {seen}"

    def at_low(price: str) -> str:
        return f"Hollow Knight: {price}, at or below its recent low of {price} {seen}"

    def send(price: float) -> list[str]:
        """Build with the price, run alerts send and return the new mails' subjects."""
        before = len(smtp_server.inbox.raw_to(PLAYER))
        build(tmp_path, bangscore, price)
        assert bangscore("alerts", "send", "--snapshot", snapshots) == 0
        return sorted(str(parsed(r)["Subject"]) for r in smtp_server.inbox.raw_to(PLAYER)[before:])

    build(tmp_path, bangscore, 14.99)
    for event in ("next_sale", "recent_low"):
        assert bangscore("watch", "add", "--account", PLAYER, "--appid", HOLLOW_KNIGHT,
                         "--event", event, "--snapshot", snapshots) == 0  # fmt: skip
    # No lower price seen yet: the list price is the recent low; no sale.
    assert send(14.99) == [at_low("$14.99")]
    assert (record(tmp_path)["recent_low_usd"], record(tmp_path)["discount_percent"]) == (14.99, 0)
    # The sale starts; the recent low watch has fired and still holds (this catalogue keeps
    # no older sighting, so its recent low is today's price), so it stays quiet.
    assert send(7.49) == [on_sale]
    assert record(tmp_path)["recent_low_usd"] == 7.49
    # The sale ends: the next-sale watch re-arms, nothing is sent; the next sale alerts again.
    assert send(14.99) == []
    assert send(7.49) == [on_sale]
    for message in map(parsed, smtp_server.inbox.raw_to(PLAYER)):
        text = body_text(message)
        if "on sale" in str(message["Subject"]):
            assert "your watch (when its next sale starts) has come true" in text
        else:
            assert "your watch (at or below its recent low) has come true" in text
            assert "Recent low: $" in text and "Recent low" in body_text(message, "html")


@pytest.mark.parametrize("event", ["tomorrow", ""], ids=["unknown", "empty"])
def test_watch_add_refuses_an_unknown_event(
    tmp_path: Path,
    bangscore: Callable[..., int],  # noqa: F811
    event: str,
) -> None:
    with pytest.raises(SystemExit) as exit_:
        bangscore("watch", "add", "--account", PLAYER, "--appid", HOLLOW_KNIGHT, "--event", event)
    assert exit_.value.code == 2
