"""A TCP relay in front of a storage endpoint that counts the bytes the
storage sent back: what a reader (ffmpeg over a presigned URL) really fetched."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse


class CountingProxy:
    def __init__(self, upstream_url: str) -> None:
        up = urlparse(upstream_url)
        self.upstream = (up.hostname or "127.0.0.1", up.port or 80)
        self.served = 0
        self._lock = threading.Lock()
        self._closed = threading.Condition(self._lock)  # notified as a relay ends
        self.connections = 0  # relayed connections still open
        self.accepted = 0  # connections accepted so far (each relay's number)
        self._live: set[int] = set()  # numbers of the relays still running
        self._stop = threading.Event()
        self._relays: list[threading.Thread] = []
        self._open: set[socket.socket] = set()
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}"
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        with self._server:
            while not self._stop.is_set():
                try:
                    client, _ = self._server.accept()
                except TimeoutError:
                    continue
                with self._lock:
                    number = self.accepted
                    self.accepted += 1
                    self._live.add(number)
                relay = threading.Thread(target=self._relay, args=(client, number), daemon=True)
                self._relays.append(relay)
                relay.start()

    def _relay(self, client: socket.socket, number: int) -> None:
        try:
            upstream = socket.create_connection(self.upstream)
        except OSError:
            with self._lock:
                self._live.discard(number)
                self._closed.notify_all()
            client.close()
            return
        with self._lock:
            self._open.update((client, upstream))
            self.connections += 1
        try:
            back = threading.Thread(target=self._pipe, args=(upstream, client, True))
            back.start()
            self._pipe(client, upstream, False)
            back.join()
        finally:
            with self._lock:
                self._open.difference_update((client, upstream))
                self.connections -= 1
                self._live.discard(number)
                self._closed.notify_all()
            client.close()
            upstream.close()

    def _pipe(self, src: socket.socket, dst: socket.socket, count: bool) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
                if count:
                    with self._lock:
                        self.served += len(data)
        except OSError:
            pass
        for sock in (src, dst):  # one side hung up: end the other direction too
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def wait_ended(self, since: int, timeout_s: float = 10.0) -> bool:
        """Wait until every connection accepted since ``accepted`` was ``since`` has
        ended: what a reader closed is relayed to its end and counted in
        ``served`` (connections opened before, a client's kept-alive ones, do
        not count, whichever of them close meanwhile)."""
        with self._closed:
            return self._closed.wait_for(lambda: not any(n >= since for n in self._live),
                                         timeout_s)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        with self._lock:
            for sock in self._open:  # kept-alive connections still waiting
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for relay in self._relays:
            relay.join(timeout=10)


@contextmanager
def counting_proxy(upstream_url: str) -> Iterator[CountingProxy]:
    """A :class:`CountingProxy` in front of ``upstream_url``, stopped on exit."""
    proxy = CountingProxy(upstream_url)
    try:
        yield proxy
    finally:
        proxy.close()
