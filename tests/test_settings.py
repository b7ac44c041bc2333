"""Typed configuration (bangscore/settings.py): what is refused when the settings are read."""

from __future__ import annotations

import ipaddress

import pytest
from pydantic import ValidationError

from bangscore.settings import Settings, allowed_networks


@pytest.mark.parametrize(
    ("listed", "networks"),
    [
        pytest.param("", [], id="empty: every client"),
        pytest.param("127.0.0.1", ["127.0.0.1/32"], id="an address"),
        pytest.param(" 10.0.0.7/8 , ::1 ,", ["10.0.0.0/8", "::1/128"], id="host bits, spaces"),
        pytest.param("2001:db8::/32", ["2001:db8::/32"], id="ipv6 network"),
    ],
)
def test_allowed_networks(listed: str, networks: list[str]) -> None:
    assert allowed_networks(listed) == tuple(ipaddress.ip_network(n) for n in networks)


@pytest.mark.parametrize(
    "listed",
    [
        pytest.param("prometheus.internal", id="host name"),
        pytest.param("127.0.0.1, localhost", id="a name among addresses"),
        pytest.param("10.0.0.0/33", id="prefix too long"),
        pytest.param("10.0.0.0/8/8", id="garbage"),
    ],
)
def test_metrics_allow_ips_with_anything_but_addresses_is_refused(listed: str) -> None:
    """Issue 45 finding 10: a host name started, then every scrape was a 500."""
    with pytest.raises(ValidationError) as refused:
        Settings(metrics_allow_ips=listed)
    [error] = refused.value.errors()
    assert error["loc"] == ("metrics_allow_ips",)
    assert "is not an IP address or network" in error["msg"]
