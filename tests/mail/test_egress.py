"""Posting to a customer's address (mail/egress.py): every private, loopback, link-local and
mapped form refused with its reason and no connection made, a redirect never followed, and a
loopback receiver reached only under the operator's flag."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bangscore.errors import EgressRefused
from bangscore.mail.egress import Resolve, check, post
from tests.support.receiver import receiver


def table(answers: dict[str, Sequence[str]]) -> Resolve:
    """Given names and the addresses they resolve to, return a resolver of them (a DNS
    zone of our own: the names are ours, the checks run on what they resolve to)."""

    def resolve(host: str, _: int) -> Sequence[str]:
        return answers[host]

    return resolve


REFUSED = [
    pytest.param("https://127.0.0.1/hook", "loopback", id="loopback-literal"),
    pytest.param("https://localhost/hook", "loopback", id="localhost"),
    pytest.param("https://10.1.2.3/hook", "private", id="10/8"),
    pytest.param("https://169.254.169.254/latest/meta-data", "link-local", id="metadata"),
    pytest.param("https://[::1]/hook", "loopback", id="ipv6-loopback"),
    pytest.param("https://[::ffff:127.0.0.1]/hook", "IPv4-mapped", id="mapped-loopback"),
    pytest.param("https://[::ffff:10.0.0.1]/hook", "IPv4-mapped", id="mapped-private"),
    pytest.param("https://[fd00::1]/hook", "private", id="unique-local"),
    pytest.param("http://example.com/hook", "https only", id="http"),
    pytest.param("ftp://example.com/hook", "https only", id="ftp"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_every_private_form_is_refused_with_its_reason(url: str, reason: str) -> None:
    with pytest.raises(EgressRefused, match=reason):
        check(url)


@pytest.mark.parametrize(
    ("name", "addresses", "reason"),
    [
        pytest.param("loop.test", ["127.0.0.1"], "loopback", id="to-127.0.0.1"),
        pytest.param("ten.test", ["10.20.30.40"], "private", id="to-10/8"),
        pytest.param("meta.test", ["169.254.169.254"], "link-local", id="to-metadata"),
        pytest.param("six.test", ["::1"], "loopback", id="to-::1"),
        pytest.param("mapped.test", ["::ffff:169.254.169.254"], "IPv4-mapped", id="to-mapped"),
        pytest.param("mixed.test", ["93.184.215.14", "10.0.0.1"], "private", id="one-of-two"),
    ],
)
def test_a_name_resolving_to_a_private_address_is_refused_and_not_connected(
    name: str, addresses: list[str], reason: str
) -> None:
    resolve = table({name: addresses})
    with pytest.raises(EgressRefused, match=reason):
        check(f"https://{name}/hook", resolve=resolve)
    # Posting says why and connects to nothing: a loopback receiver on the same machine
    # would have seen the request had it been made.
    with receiver() as rx:
        outcome = post(f"https://{name}/hook", b"{}", {}, resolve=resolve)
        assert rx.received == []
    assert outcome.status is None and outcome.error is not None and reason in outcome.error


def test_a_public_name_is_posted_to_the_address_checked() -> None:
    target = check(
        "https://hooks.test:8443/a?b=1", resolve=table({"hooks.test": ["93.184.215.14"]})
    )
    assert (target.url, target.host) == ("https://93.184.215.14:8443/a?b=1", "hooks.test")


def test_loopback_is_reached_only_under_the_operators_flag() -> None:
    with receiver() as rx:
        refused = post(rx.url, b"{}", {})
        assert rx.received == []
        sent = post(rx.url, b'{"a":1}', {"webhook-id": "m1"}, allow_loopback=True)
        assert sent.ok and sent.status == 200
        assert [r.body for r in rx.received] == [b'{"a":1}']
    assert refused.error is not None and "scheme" in refused.error
    # The flag lets loopback through and nothing else.
    with pytest.raises(EgressRefused, match="private"):
        check("http://10.0.0.1/hook", allow_loopback=True)


def test_a_redirect_to_the_metadata_address_is_not_followed() -> None:
    with receiver([302], location="http://169.254.169.254/latest/meta-data") as rx:
        outcome = post(rx.url, b"{}", {}, allow_loopback=True)
        assert len(rx.received) == 1
    assert outcome.status == 302 and not outcome.ok
    assert outcome.error is not None and "169.254.169.254" in outcome.error
    assert "not followed" in outcome.error
