"""What a client's allowances count it as: an IPv4 address, an IPv6 /64 (issue 45)."""

from __future__ import annotations

import pytest

from bangscore.shim.clients import client_group, network_of


@pytest.mark.parametrize(
    ("ip", "group"),
    [
        pytest.param("203.0.113.7", "203.0.113.7", id="ipv4-as-is"),
        pytest.param("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64", id="ipv6-its-64"),
        pytest.param("2001:db8:1:2::1", "2001:db8:1:2::/64", id="ipv6-same-64"),
        pytest.param("2001:db8:1:3::1", "2001:db8:1:3::/64", id="ipv6-next-64"),
        pytest.param("::ffff:203.0.113.7", "203.0.113.7", id="ipv4-mapped-is-ipv4"),
        pytest.param("::1", "::/64", id="ipv6-loopback"),
        pytest.param("unknown", "unknown", id="no-address-as-given"),
    ],
)
def test_client_group(ip: str, group: str) -> None:
    assert client_group(ip) == group


@pytest.mark.parametrize(
    ("ip", "v4", "v6", "network"),
    [
        pytest.param("203.0.113.7", 24, 64, "203.0.113.0/24", id="ipv4-24"),
        pytest.param("::ffff:203.0.113.7", 24, 64, "203.0.113.0/24", id="mapped-not-one-ipv6-64"),
        pytest.param("2001:db8:1:2::9", 24, 48, "2001:db8:1::/48", id="ipv6-48"),
        pytest.param("testclient", 24, 64, "testclient", id="not-an-address"),
    ],
)
def test_network_of(ip: str, v4: int, v6: int, network: str) -> None:
    assert network_of(ip, v4, v6) == network
