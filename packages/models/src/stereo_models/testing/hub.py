"""A local stand-in for the Hugging Face hub: the part of its HTTP protocol that
``huggingface_hub.hf_hub_download`` speaks (tests point ``endpoint`` or
``HF_ENDPOINT`` at it).

``HEAD``/``GET /{owner}/{repo}/resolve/{revision}/{file}`` with the headers the
client reads (``X-Repo-Commit``, ``ETag``; ``X-Linked-Etag`` = SHA-256 and
``X-Linked-Size`` for weights, as LFS files have), byte ranges (206), and
``X-Error-Code: EntryNotFound`` for a missing file. Faults on demand: cut the
first transfer of a file after some bytes (the client must resume), or serve
other bytes than the published checksum says.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class FakeHub:
    repos: dict[str, dict[str, bytes]]  # repo id -> file name -> content
    cut_after: dict[str, int] = field(default_factory=dict)  # file -> bytes of the 1st GET
    corrupt: set[str] = field(default_factory=set)  # files served with a wrong checksum
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    url: str = ""

    def lookup(self, path: str) -> tuple[bytes, str] | None:
        parts = path.split("?")[0].strip("/").split("/")
        if len(parts) < 5 or parts[2] != "resolve":
            return None
        repo, filename = "/".join(parts[:2]), "/".join(parts[4:])
        content = self.repos.get(repo, {}).get(filename)
        return None if content is None else (content, filename)


def _handler(hub: FakeHub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def do_HEAD(self):
            self._serve(body=False)

        def do_GET(self):
            self._serve(body=True)

        def _serve(self, *, body: bool) -> None:
            hub.requests.append((self.command, self.path, self.headers.get("Range")))
            found = hub.lookup(self.path)
            if found is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            content, filename = found
            is_weights = filename.endswith(".safetensors")
            etag = hashlib.sha256(content).hexdigest() if is_weights else hashlib.sha1(
                content).hexdigest()
            if filename in hub.corrupt and body:
                content = content[::-1]
            start = 0
            ranged = self.headers.get("Range")
            if ranged and ranged.startswith("bytes="):
                start = int(ranged[6:].split("-")[0] or 0)
            self.send_response(206 if start else 200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{etag}"')
            if is_weights:
                self.send_header("X-Linked-Etag", f'"{etag}"')
                self.send_header("X-Linked-Size", str(len(content)))
            if start:
                self.send_header("Content-Range",
                                 f"bytes {start}-{len(content) - 1}/{len(content)}")
            self.send_header("Content-Length", str(len(content) - start))
            self.end_headers()
            if not body:
                return
            cut = hub.cut_after.pop(filename, None) if not start else None
            if cut is not None:  # a dropped connection half-way through
                self.wfile.write(content[:cut])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(content[start:])

    return Handler


@contextmanager
def serve_hub(hub: FakeHub, *, pin: bool = True) -> Iterator[FakeHub]:
    """Serve ``hub`` on a free port of 127.0.0.1; ``hub.url`` is its endpoint.

    ``pin``: while it serves, the catalogue cards of its repositories pin
    :data:`COMMIT` and the SHA-256 of the files it serves (what a release
    pins for real weights), so downloads of test bytes pass the check.
    ``pin=False`` keeps the catalogue's real pins: the hub then serves bytes
    that do not match them (the control of the checksum check)."""
    with _pinned_to(hub) if pin else nullcontext():
        with _serving(hub):
            yield hub


@contextmanager
def _pinned_to(hub: FakeHub) -> Iterator[None]:
    from stereo_models.depth_models import CATALOG

    saved = dict(CATALOG)
    for name, card in saved.items():
        files = hub.repos.get(card.repo)
        if files is not None:
            served = {f: hashlib.sha256(content).hexdigest() for f, content in files.items()}
            CATALOG[name] = replace(card, revision=COMMIT, sha256={**card.sha256, **served})
    try:
        yield
    finally:
        CATALOG.clear()
        CATALOG.update(saved)


@contextmanager
def _serving(hub: FakeHub) -> Iterator[FakeHub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
