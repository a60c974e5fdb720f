"""Where a webhook may be sent: public unicast addresses only, unless inside WEBHOOK_ALLOWED_NETWORKS.

Checked twice: when subscribing (a 422 naming why) and at every connection, where the address checked is the
one connected to (the URL's host is resolved here, each address checked, and the request goes to that
address with the name kept for Host and TLS), so a DNS answer that changes cannot move a request inside.
Redirects are never followed (httpx's default; the delivery treats a 3xx as a failure).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import httpx

from app.platform.errors import Unprocessable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]
MAX_URL_LENGTH = 2048
SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT
DOCUMENTATION = tuple(
    ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")
)


class DestinationRefused(Unprocessable):
    """A webhook URL that is not http(s), too long, carries credentials, or reaches a refused address."""

    type, title = "webhook-destination-refused", "The webhook's URL is refused"


async def system_resolver(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def networks(cidrs: Sequence[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one stands for (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, 6to4)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if int(address) >> 32 == 0 and int(address) > 1:  # ::a.b.c.d (:: and ::1 are themselves)
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _kind(address: IPAddress) -> str | None:
    """Why an address is not public unicast, or None when it is."""
    checks = (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("shared (100.64.0.0/10)", address in SHARED),
        ("documentation", any(address in net for net in DOCUMENTATION if net.version == address.version)),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
    )
    for name, applies in checks:
        if applies:
            return name
    return None if address.is_global else "not public"


def refusal(text: str, allowed: Sequence[Network]) -> str | None:
    """Why this address may not be reached, or None when it may."""
    address = ipaddress.ip_address(text.split("%", 1)[0])
    embedded = _embedded_ipv4(address)
    candidates = [address] if embedded is None else [embedded]  # an IPv4 in IPv6 form is judged as that IPv4
    if any(candidate in net for candidate in candidates for net in allowed if net.version == candidate.version):
        return None
    for candidate in candidates:
        kind = _kind(candidate)
        if kind is not None:
            return f"{text} is a {kind} address" if candidate is address else f"{text} stands for {candidate}, {kind}"
    return None


def inside(text: str, allowed: Sequence[Network]) -> bool:
    address = ipaddress.ip_address(text.split("%", 1)[0])
    return any(address in net for net in allowed if net.version == address.version)


def _literal(host: str) -> str | None:
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


async def checked_addresses(url: httpx.URL, allowed: Sequence[Network], resolver: Resolver) -> list[str]:
    """The addresses the URL's host may be reached at; DestinationRefused naming why when none may."""
    host = url.host
    if not host:
        raise DestinationRefused("The URL has no host.")
    literal = _literal(host)
    try:
        addresses = [literal] if literal else await resolver(host, url.port or (443 if url.scheme == "https" else 80))
    except OSError as error:
        raise DestinationRefused(f"The host {host} does not resolve: {error}.") from error
    if not addresses:
        raise DestinationRefused(f"The host {host} does not resolve.")
    for address in addresses:
        why = refusal(address, allowed)
        if why is not None:
            raise DestinationRefused(f"The host {host} resolves to a refused address: {why}.")
        if url.scheme == "http" and not inside(address, allowed):
            raise DestinationRefused(
                f"http:// is allowed only inside WEBHOOK_ALLOWED_NETWORKS; {host} is not: use https."
            )
    return addresses


def check_shape(text: str) -> httpx.URL:
    """The URL's form: http(s), not too long, no credentials in it."""
    if len(text) > MAX_URL_LENGTH:
        raise DestinationRefused(f"The URL is longer than {MAX_URL_LENGTH} characters.")
    try:
        url = httpx.URL(text)
    except httpx.InvalidURL as error:
        raise DestinationRefused(f"The URL is not valid: {error}.") from error
    if url.scheme not in ("http", "https"):
        raise DestinationRefused(
            f"The URL's scheme must be https (or http inside the allowed networks), not {url.scheme!r}."
        )
    if url.userinfo:
        raise DestinationRefused("The URL must not carry credentials (user:password@); put secrets in the path.")
    return url


async def check_url(text: str, allowed: Sequence[Network], resolver: Resolver) -> None:
    await checked_addresses(check_shape(text), allowed, resolver)


def new_transport() -> httpx.AsyncBaseTransport:
    """The transport that really connects (the test suite replaces it with one that reaches loopback only)."""
    return httpx.AsyncHTTPTransport(retries=0)


class GuardedTransport(httpx.AsyncBaseTransport):
    """Every request goes to an address checked here, just before the connection: the inner transport is
    handed the address itself (the name kept in Host and for TLS's SNI and certificate check)."""

    def __init__(self, allowed: Sequence[Network], resolver: Resolver, inner: httpx.AsyncBaseTransport | None = None):
        self.allowed = tuple(allowed)
        self.resolver = resolver
        self.inner = inner or new_transport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        addresses = await checked_addresses(request.url, self.allowed, self.resolver)
        if _literal(host) is None:
            request.extensions = {**request.extensions, "sni_hostname": host}
            request.url = request.url.copy_with(host=addresses[0])
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def guarded_client(allowed: Sequence[Network], resolver: Resolver, timeout: float, **kwargs: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=GuardedTransport(allowed, resolver, kwargs.pop("inner", None)),
        timeout=timeout,
        follow_redirects=False,
        trust_env=False,  # no proxy from the environment: the connection is to the checked address itself
        **kwargs,
    )
