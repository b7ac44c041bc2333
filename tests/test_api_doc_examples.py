"""docs/API.md's Python examples, run as written in ``make check`` (as pydantic runs its
documentation's examples): the client example against the answers a real server gave it
(tests/fixtures/api_examples, recorded by ``make docs``: tests/support/api_examples.py), and
the webhook receiver against an event signed as the server signs it."""

from __future__ import annotations

import json
import re
import textwrap
import time
from typing import Any

import pytest

from bangscore.mail.webhooks import sign
from bangscore.stores.webhooks import new_secret
from tests.support.api_examples import DOC, example, python_blocks, read_recorded, replay, run


def test_the_client_example_runs_as_written_on_recorded_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BANGSCORE_API_KEY", "bsk_recorded")
    printed = run(example(), "http://api.test", replay()).splitlines()
    assert printed[0].startswith("Portal 2 ")
    assert printed[1].startswith("Hades ")
    assert printed[2] == "[(410, 'not_a_game'), (271590, 'superseded')] [999999999]"
    facets = printed[3:-2]  # the Deck-verified games with German audio, every page
    assert facets and all(" verified " in line for line in facets)
    assert printed[-2:] == ["superseded 3240220", "0 None"]


def test_the_recording_is_every_request_the_example_makes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A changed example asks something never recorded: it fails here until `make docs`.
    monkeypatch.setenv("BANGSCORE_API_KEY", "bsk_recorded")
    recorded = read_recorded()
    assert any(key.startswith("GET /api/v1/lookup?") for key in recorded)
    missing = dict(recorded)
    lookup = next(key for key in missing if key.startswith("GET /api/v1/lookup?"))
    del missing[lookup]
    with pytest.raises(KeyError, match="lookup"):
        run(example(), "http://api.test", replay(missing))


def _webhook_example() -> str:
    (code,) = python_blocks(DOC, "### Webhooks")
    return textwrap.dedent(code)


def _event_body() -> bytes:
    """The event of the section's own example request, as its body."""
    text = DOC.read_text().split("### Webhooks\n", 1)[1]
    request = re.search(r"```http\n(.*?)```", text, re.S)
    assert request is not None
    body = request[1].split("\n\n", 1)[1]
    return json.dumps(json.loads(body)).encode()


def test_the_webhook_receiver_verifies_as_written() -> None:
    secret = new_secret()
    acted: list[tuple[str, dict[str, Any]]] = []
    ids: set[str] = set()

    def seen(message_id: str) -> bool:
        known = message_id in ids
        ids.add(message_id)
        return known

    scope: dict[str, Any] = {"seen": seen, "act_on": lambda kind, data: acted.append((kind, data))}
    exec(compile(_webhook_example().replace("whsec_...", secret), "<example>", "exec"), scope)
    receive = scope["receive"]
    body, stamp = _event_body(), int(time.time())
    headers = {
        "webhook-id": "msg_3f2a9c0d4b1e8f7a6c5d2e10",
        "webhook-timestamp": str(stamp),
        "webhook-signature": sign(secret, "msg_3f2a9c0d4b1e8f7a6c5d2e10", stamp, body),
    }
    assert receive(body, headers) == 200
    assert receive(body, headers) == 200  # the same id again: acknowledged, not acted on twice
    assert [(kind, data["appid"]) for kind, data in acted] == [("price.dropped", 620)]
    tampered = body.replace(b"1.99", b"0.99")
    assert receive(tampered, {**headers, "webhook-id": "msg_other"}) == 400
    assert len(acted) == 1
