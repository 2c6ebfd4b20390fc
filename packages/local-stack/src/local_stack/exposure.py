"""What ``stereo-spot serve`` needs before it listens beyond this machine.

On loopback (the default, 127.0.0.1) there is one user and no login; the web
UI answers only loopback Host names (its DNS-rebinding guard). On any other
address anyone on the network could reach every job, so the stack then
requires a login and a Host check: the configured password
(``STEREO_SPOT_BASIC_AUTH_PASSWORD``), else a fresh random one printed once at
start; and only the names people use to reach it (``--allowed-host``,
``STEREO_SPOT_ALLOWED_HOSTS``, the host of ``public_base_url`` and the bound
address itself), and loopback names for this machine's own browser, are
answered: any other Host gets 400.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from pydantic import SecretStr

from local_stack.errors import ExposureError
from local_stack.settings import StackSettings

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")  # this machine's own browser


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the UI on this machine."""
    address = _address(host)
    return host == "localhost" or (address is not None and address.is_loopback)


def _names(settings: StackSettings) -> list[str]:
    """Host names the UI answers: configured ones, the public URL's host and
    the bound address, but never a wildcard (0.0.0.0, ::), which names nothing."""
    candidates = [*settings.allowed_hosts, urlsplit(settings.public_base_url).hostname or "",
                  settings.host]
    names = []
    for name in candidates:
        address = _address(name)
        if name and not (address is not None and address.is_unspecified) and name not in names:
            names.append(f"[{address}]" if address is not None and address.version == 6
                         else name)
    return names


@dataclass(frozen=True)
class Exposure:
    """The settings to serve with, and the password to print (one made now)."""

    settings: StackSettings
    new_password: str | None = None


def expose(settings: StackSettings,
           make_password: Callable[[], str] = lambda: secrets.token_urlsafe(18)) -> Exposure:
    """``settings`` made safe to serve on ``settings.host``. Raises
    ExposureError when a non-loopback address is asked for and no host name
    people could use is known."""
    if is_loopback(settings.host):
        return Exposure(settings)
    names = _names(settings)
    if not names:
        raise ExposureError(
            f"serving on {settings.host} answers only the host names people use to reach it: "
            "name them with --allowed-host (e.g. --allowed-host 192.168.1.20 --allowed-host "
            "stereo.lan) or STEREO_SPOT_ALLOWED_HOSTS")
    update: dict = {"allowed_hosts": [*names, *(n for n in LOOPBACK_NAMES if n not in names)]}
    new_password = None
    if settings.basic_auth_password is None:
        new_password = make_password()
        update["basic_auth_password"] = SecretStr(new_password)
    return Exposure(settings.model_copy(update=update), new_password)
