"""Real local HTTP receivers for the webhook tests: one that records, one that
redirects, one that drips its answer (a tarpit) and one that holds the
connection until the test lets it go."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Seen:
    """What a receiver was sent."""

    requests: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)
    posted: threading.Event = field(default_factory=threading.Event)
    cut: threading.Event = field(default_factory=threading.Event)  # the sender hung up early
    release: threading.Event = field(default_factory=threading.Event)

    @property
    def paths(self) -> list[str]:
        return [path for _, path, _, _ in self.requests]


def _handler(seen: Seen, behaviour: str, status: int, location: str):
    class Handler(http.server.BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            seen.requests.append((self.command, self.path, headers, body))

        def do_GET(self):  # noqa: N802 (http.server's naming)
            self._record()
            self.send_response(200)
            self.end_headers()

        def do_POST(self):  # noqa: N802
            self._record()
            seen.posted.set()
            if behaviour == "drip":
                self._drip()
            elif behaviour == "hold":
                seen.release.wait(120)
                self.send_response(204)
                self.end_headers()
            else:
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.end_headers()

        def _drip(self) -> None:
            """One header line every 50 ms for up to 30 s, then a 200: a
            per-read timeout never fires; only a total deadline cuts it."""
            try:
                self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                for i in range(600):
                    self.wfile.write(f"X-Drip-{i}: 1\r\n".encode())
                    self.wfile.flush()
                    if seen.release.wait(0.05):
                        break
                self.wfile.write(b"Content-Length: 0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                seen.cut.set()

        def log_message(self, *args):
            pass

    return Handler


@contextmanager
def receiver(behaviour: str = "answer", *, status: int = 204, location: str = "",
             path: str = "/hook") -> Iterator[tuple[str, Seen]]:
    """A receiver on 127.0.0.1: its URL and what it saw."""
    seen = Seen()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             _handler(seen, behaviour, status, location))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}", seen
    finally:
        seen.release.set()
        server.shutdown()
        server.server_close()


def resolving(monkeypatch, answers: dict[str, list[str]]) -> list[str]:
    """Make getaddrinfo answer ``answers[name]`` in turn (the last one
    repeated); returns the list of names asked, one entry per resolution."""
    asked: list[str] = []
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        if host not in answers:
            return real(host, port, *args, **kwargs)
        asked.append(host)
        queue = answers[host]
        address = queue.pop(0) if len(queue) > 1 else queue[0]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    return asked
