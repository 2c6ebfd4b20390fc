"""What the load balancer's OIDC sign-in does in front of web-ui, for the
deployment harness: a proxy per signed-in person that forwards every request
to web-ui with that person's signed ``x-amzn-oidc-data`` header (and drops
any such header the caller sent, as the ALB does), keeping the Host header,
so web-ui's CSRF and host checks see what they see behind the ALB."""

from __future__ import annotations

import http.client
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from stereo_spot_deploy.testing.loopback_server import serving

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
               "proxy-authorization", "proxy-authenticate"}


def _handler(target: str, identity: Callable[[], dict[str, str]]
             ) -> type[BaseHTTPRequestHandler]:
    parts = urlsplit(target)
    host = parts.hostname or "127.0.0.1"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in _HOP_BY_HOP and not k.lower().startswith("x-amzn-oidc")}
            headers.update(identity())
            conn = http.client.HTTPConnection(host, parts.port, timeout=120)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
            finally:
                conn.close()
            self.send_response(resp.status)
            for key, value in resp.getheaders():
                if key.lower() not in _HOP_BY_HOP and key.lower() != "content-length":
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward  # noqa: N815

        def log_message(self, *_args: Any) -> None:
            pass

    return Handler


@contextmanager
def alb_proxy(target: str, identity: Callable[[], dict[str, str]]) -> Iterator[str]:
    """Serve a sign-in proxy to ``target`` on 127.0.0.1 while the block runs;
    ``identity()`` gives the headers of each request (a fresh token each time).
    Yields the proxy's base URL."""
    with serving(_handler(target, identity)) as url:
        yield url
