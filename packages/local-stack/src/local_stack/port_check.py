"""``serve``'s listening port, checked before anything starts.

Without this check a port held by another program made the web UI exit at
start-up, and the supervisor restarted it every few seconds, forever. Binding
the address once here (with ``SO_REUSEADDR``, as uvicorn binds it, so a port
left in TIME_WAIT by a previous run is not mistaken for a busy one) turns that
into one clear line before any service starts.
"""

from __future__ import annotations

import errno
import socket

from local_stack.errors import PortInUseError


def ensure_port_free(host: str, port: int) -> None:
    """Raise PortInUseError when ``host``:``port`` cannot be listened on because
    another program holds it (or this user may not bind it). Port 0 (any free
    port) is always usable."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise PortInUseError(f"cannot listen on {host}:{port}: {exc.strerror}; "
                             "check --host") from exc
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortInUseError(
                    f"port {port} on {host} is already in use by another program; "
                    f"stop it or choose another port with --port") from exc
            raise PortInUseError(f"cannot listen on port {port} of {host} ({exc.strerror}); "
                                 "choose another port with --port") from exc
