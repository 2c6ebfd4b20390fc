"""One outbound POST to a URL a user typed (a job's webhook), made safe to send.

A user-supplied URL must not turn the server into a proxy into its own
network (SSRF). So:

- the scheme is ``https`` (``http`` only where the operator allows it);
- the host is resolved once, here, and every address it resolves to is checked:
  loopback, private, link-local, shared (CGNAT), multicast, reserved,
  unspecified, IPv4-mapped/compatible, 6to4 and Teredo addresses are refused
  (unless the operator allows private networks);
- the connection goes to the address that was checked, never to a second
  resolution of the name (no DNS rebinding between check and use), while TLS
  SNI, certificate checks and the Host header still use the name;
- redirects are never followed (``http.client`` follows none; a 3xx is an answer);
- one deadline covers the whole exchange: a watchdog shuts the socket down when
  it passes, so a receiver that drips its answer a byte at a time is cut there.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from web_ui.errors import OutboundRefusedError

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_SHARED_V4 = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT: not global


@dataclass(frozen=True)
class OutboundPolicy:
    """What the operator allows outbound calls to reach."""

    allow_http: bool = False  # plain http:// receivers
    allow_private: bool = False  # receivers on loopback or private networks (a LAN, tests)


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect and what to ask for."""

    scheme: str
    host: str
    port: int
    path: str


class DeliveryError(Exception):
    """The receiver could not be reached or did not answer within the deadline."""


def refused_address(ip: IpAddress) -> str | None:
    """Why ``ip`` may not be called from the server, or None when it is public."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return "an IPv4-mapped IPv6 address"
        if ip.sixtofour is not None or ip.teredo is not None:
            return "a tunnelled (6to4/Teredo) IPv6 address"
        if ip in ipaddress.ip_network("::/96"):
            return "an IPv4-compatible IPv6 address"
    for flag in ("is_loopback", "is_link_local", "is_multicast", "is_unspecified",
                 "is_reserved", "is_private"):
        if getattr(ip, flag):
            return f"a {flag[3:].replace('_', '-')} address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED_V4:
        return "a shared (carrier-grade NAT) address"
    if not ip.is_global:
        return "not a public address"
    return None


def check_url(url: str, policy: OutboundPolicy) -> Target:
    """The parts of ``url`` if its scheme and form are allowed (addresses are
    checked by :func:`resolve`). Raises OutboundRefusedError."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise OutboundRefusedError(f"The webhook URL is not valid: {exc}.") from exc
    schemes = ("https", "http") if policy.allow_http else ("https",)
    if parts.scheme not in schemes:
        raise OutboundRefusedError(
            "The webhook URL must start with " + " or ".join(f"{s}://" for s in schemes) + ".")
    if not parts.hostname or parts.username is not None or parts.password is not None:
        raise OutboundRefusedError("The webhook URL needs a host name and no user:password@.")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80),
                  path)


def resolve(target: Target, policy: OutboundPolicy) -> str:
    """The one address to connect to for ``target``: every address its host
    resolves to must be allowed (a name that mixes a public and a private
    address is refused). Raises OutboundRefusedError, or DeliveryError when the
    name does not resolve."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise DeliveryError(f"{target.host} does not resolve: {exc}") from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if not policy.allow_private:
        for ip in addresses:
            why = refused_address(ip)
            if why is not None:
                raise OutboundRefusedError(
                    f"The webhook host {target.host} resolves to {ip}, {why}; "
                    "webhooks only call public addresses.")
    if not addresses:
        raise DeliveryError(f"{target.host} resolves to no address")
    return str(addresses[0])


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to a checked address; the Host header keeps the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """TLS to a checked address; SNI, certificate name and Host keep the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float,
                 context: ssl.SSLContext) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self.address, self.tls = address, context

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self.tls.wrap_socket(raw, server_hostname=self.host)


def post(url: str, body: bytes, headers: dict[str, str], *, policy: OutboundPolicy,
         deadline_s: float, tls: ssl.SSLContext | None = None) -> int:
    """POST ``body`` to ``url`` and return the answer's status (a 3xx is
    returned, never followed). The whole exchange, connect to status line and
    headers, ends by ``deadline_s``. Raises OutboundRefusedError for a URL or
    address that may not be called, DeliveryError otherwise."""
    target = check_url(url, policy)
    started = time.monotonic()
    address = resolve(target, policy)
    left = max(0.001, deadline_s - (time.monotonic() - started))
    if target.scheme == "https":
        conn: http.client.HTTPConnection = _PinnedHTTPS(
            target.host, target.port, address, left, tls or ssl.create_default_context())
    else:
        conn = _PinnedHTTP(target.host, target.port, address, left)
    expired = threading.Event()

    def cut() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(left, cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        conn.request("POST", target.path, body=body, headers=headers)
        status = conn.getresponse().status
        if expired.is_set():  # the cut ends the headers early: it is no answer
            raise DeliveryError(f"no answer within {deadline_s:g} s")
        return status
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise DeliveryError(f"no answer within {deadline_s:g} s") from exc
        raise DeliveryError(str(exc) or type(exc).__name__) from exc
    finally:
        watchdog.cancel()
        conn.close()
