"""The web-ui entry point's uvicorn options: forwarded headers from the ALB only."""

from __future__ import annotations

import asyncio

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from web_ui.main import server_options
from web_ui.settings import WebSettings


def _scheme_seen(trusted: str, client_ip: str) -> str:
    seen = {}

    async def app(scope, receive, send):
        seen["scheme"] = scope["scheme"]

    scope = {"type": "http", "scheme": "http", "client": (client_ip, 40000), "server": None,
             "headers": [(b"x-forwarded-proto", b"https"), (b"x-forwarded-for", b"203.0.113.9")]}
    asyncio.run(ProxyHeadersMiddleware(app, trusted_hosts=trusted)(scope, None, None))
    return seen["scheme"]


def test_behind_the_alb_the_app_sees_https_so_cookies_are_secure():
    options = server_options(WebSettings(_env_file=None, forwarded_allow_ips="10.40.0.0/16"))
    assert options["proxy_headers"] is True
    assert _scheme_seen(options["forwarded_allow_ips"], "10.40.3.7") == "https"


def test_forwarded_headers_from_anyone_else_are_ignored():
    options = server_options(WebSettings(_env_file=None))
    assert options["forwarded_allow_ips"] == "127.0.0.1"
    assert _scheme_seen(options["forwarded_allow_ips"], "10.40.3.7") == "http"
