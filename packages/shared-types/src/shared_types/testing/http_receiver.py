"""A real HTTP server on 127.0.0.1 that records what it is sent (webhook
receivers, and the URL a refused playlist must never reach)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: bytes


@dataclass
class Received:
    """The requests a receiver got, in order; ``arrived`` is set at the first."""

    requests: list[Request] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)

    @property
    def paths(self) -> list[str]:
        return [r.path for r in self.requests]


def _handler(received: Received, status: int):
    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            received.requests.append(Request(self.command, self.path, headers, body))
            self.send_response(status)
            self.end_headers()
            received.arrived.set()

        do_GET = do_POST = _answer  # noqa: N815 (http.server's naming)

        def log_message(self, *args):
            pass

    return Handler


@contextmanager
def http_receiver(status: int = 204, *, path: str = "") -> Iterator[tuple[str, Received]]:
    """Serve on a free port, answering every GET and POST with ``status``;
    yield (its URL, ending in ``path``; what it received)."""
    received = Received()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(received, status))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}", received
    finally:
        server.shutdown()
        server.server_close()
