"""Who a request comes from (docs/API.md#allowances-without-a-key): the client's address and
what its per-client allowances count against.

One IPv6 subscriber holds a whole /64 (usually more) and its hosts pick addresses in it at
will, so an allowance keyed by the IPv6 address would let one client be 2**64 clients: the
anonymous and page allowances and the sign-in and sign-up limits count an IPv6 client by its
/64, an IPv4 client by its address (an IPv4-mapped IPv6 address, ``::ffff:a.b.c.d``, which a
dual-stack socket reports for an IPv4 peer, is that IPv4 address). The watch and abuse-report
limits group wider still (:func:`network_of`).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from starlette.requests import HTTPConnection

IPV6_CLIENT_PREFIX = 64  # one subscriber's LAN: the block a client's addresses come from
UNKNOWN = "unknown"  # the client of a request whose server reported no peer


def client_ip(connection: HTTPConnection) -> str:
    """Given a request, return its client's address as the server saw it (uvicorn applies a
    trusted proxy's ``X-Forwarded-For``), ``unknown`` when the server has none."""
    return connection.client.host if connection.client else UNKNOWN


@lru_cache(maxsize=4096)
def client_group(ip: str) -> str:
    """Given a client IP (text), return what its allowances count it as: an IPv4 address as it
    is, an IPv6 address as its /64 network (``2001:db8:1:2::/64``), an IPv4-mapped IPv6
    address as its IPv4 address; text that is no address (``unknown``) as given."""
    return network_of(ip, 32, IPV6_CLIENT_PREFIX)


def client_subject(kind: str, connection: HTTPConnection) -> str:
    """Given a subject kind (``ip``, ``page``) and a request, return the allowance subject its
    client counts against (``ip:203.0.113.7``, ``page:2001:db8:1:2::/64``)."""
    return f"{kind}:{client_group(client_ip(connection))}"


def network_of(ip: str, v4_prefix: int, v6_prefix: int) -> str:
    """Given a client IP (text) and the prefix lengths to group by, return the address's
    network (``203.0.113.0/24``; a /32 is the bare address), an IPv4-mapped IPv6 address
    grouped as IPv4; text that is no address as given."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if isinstance(address, ipaddress.IPv4Address):
        if v4_prefix == 32:
            return str(address)
        return str(ipaddress.ip_network(f"{address}/{v4_prefix}", strict=False))
    return str(ipaddress.ip_network(f"{address}/{v6_prefix}", strict=False))
