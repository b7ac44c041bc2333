"""Posting to an address a customer gave (docs/API.md#webhooks), safely: the name is
resolved once, every address it resolves to is checked, and the connection goes to the
address checked (the name kept for ``Host`` and TLS), so a name that resolves to a public
address when checked and to a private one when connected (DNS rebinding) reaches nothing.
Redirects are never followed.

EgressRefused: any address that is not globally routable (private 10/8, 172.16/12, 192.168/16,
loopback, link-local 169.254/16 and fe80::/10, the cloud metadata address 169.254.169.254,
unique-local fc00::/7, multicast, reserved, unspecified), an IPv4-mapped IPv6 address
(``::ffff:127.0.0.1``) judged as the IPv4 address it maps, and any scheme but https. With
``allow_loopback`` (an operator's flag, for tests on one machine) http and loopback addresses
are let through, and nothing else more.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

import httpx

from bangscore.errors import EgressRefused

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# (host, port) -> the addresses it resolves to (socket.getaddrinfo's by default).
Resolve = Callable[[str, int], Sequence[str]]
TIMEOUT_SECONDS = 10.0


def system_resolve(host: str, port: int) -> list[str]:
    """Given a host and port, return the addresses the system resolver gives (TCP)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise EgressRefused(f"{host} does not resolve: {exc.strerror}") from exc
    return [str(info[4][0]) for info in infos]


def refusal(address: IpAddress, *, allow_loopback: bool = False) -> str | None:
    """Given an address, return why it must not be reached (None: it may be)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        reason = refusal(address.ipv4_mapped, allow_loopback=allow_loopback)
        return f"IPv4-mapped {reason}" if reason else None
    if address.is_loopback:
        return None if allow_loopback else f"{address} is a loopback address"
    if address.is_link_local:
        return f"{address} is a link-local address (cloud metadata lives there)"
    if address.is_private or not address.is_global:
        return f"{address} is a private or reserved address"
    if address.is_multicast:
        return f"{address} is a multicast address"
    return None


@dataclass(frozen=True)
class Target:
    """Where a post goes: the URL to connect to (the checked address in place of the host),
    the original host (for ``Host`` and TLS) and the address."""

    url: str
    host: str
    address: str


def check(url: str, *, allow_loopback: bool = False, resolve: Resolve = system_resolve) -> Target:
    """Given a URL, return where to post it; raise EgressRefused (with the reason) for a scheme
    other than https (http only with ``allow_loopback``), no host, a host that does not
    resolve, or one that resolves to any address :func:`refusal` refuses. Nothing is
    connected to."""
    parts = urlsplit(url)
    schemes = ("https", "http") if allow_loopback else ("https",)
    if parts.scheme not in schemes:
        raise EgressRefused(f"{parts.scheme or 'no'} scheme: webhooks are posted over https only")
    host = parts.hostname
    if not host:
        raise EgressRefused("the URL names no host")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    found = list(dict.fromkeys(resolve(host, port)))
    if not found:
        raise EgressRefused(f"{host} resolves to no address")
    addresses = [ipaddress.ip_address(a.split("%")[0]) for a in found]
    for address in addresses:
        reason = refusal(address, allow_loopback=allow_loopback)
        if reason is not None:
            raise EgressRefused(f"{host} resolves to {reason}")
    if allow_loopback and parts.scheme == "http" and not all(a.is_loopback for a in addresses):
        raise EgressRefused("http is allowed to loopback addresses only")
    chosen = addresses[0]
    literal = f"[{chosen}]" if chosen.version == 6 else str(chosen)
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    return Target(urlunsplit(parts._replace(netloc=netloc)), host, str(chosen))


@dataclass(frozen=True)
class PostOutcome:
    """A post's result: the status (None: no answer) and, when it failed, why."""

    status: int | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Return True for a 2xx answer."""
        return self.status is not None and 200 <= self.status < 300


def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    allow_loopback: bool = False,
    resolve: Resolve = system_resolve,
    timeout: float = TIMEOUT_SECONDS,
    client: httpx.Client | None = None,
) -> PostOutcome:
    """Given a URL, a JSON body and headers, post it to the checked address (:func:`check`),
    following no redirect; return the outcome (a refusal, a 3xx and a network error are
    failures with their reason; no exception escapes)."""
    try:
        target = check(url, allow_loopback=allow_loopback, resolve=resolve)
    except EgressRefused as exc:
        return PostOutcome(None, f"refused: {exc}")
    sent = {**headers, "Host": urlsplit(url).netloc, "Content-Type": "application/json"}
    own = client is None
    http = client or httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False)
    try:
        response = http.post(
            target.url, content=body, headers=sent, extensions={"sni_hostname": target.host}
        )
    except httpx.HTTPError as exc:
        return PostOutcome(None, f"{type(exc).__name__}: {exc}"[:200])
    finally:
        if own:
            http.close()
    if 300 <= response.status_code < 400:
        where = response.headers.get("location", "")[:100]
        return PostOutcome(response.status_code, f"redirect to {where!r} not followed")
    error = None if 200 <= response.status_code < 300 else f"answered {response.status_code}"
    return PostOutcome(response.status_code, error)
