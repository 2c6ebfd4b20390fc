"""Entry point of the ``web-ui`` console script: read settings once, serve."""

from __future__ import annotations

import logging

import uvicorn

from web_ui.app import create_app
from web_ui.settings import WebSettings


def server_options(settings: WebSettings) -> dict:
    """uvicorn's options: X-Forwarded-Proto/For are believed only from
    ``forwarded_allow_ips`` (behind the ALB: the VPC), so the app sees https
    there and its cookies are Secure."""
    return {"host": settings.host, "port": settings.port, "proxy_headers": True,
            "forwarded_allow_ips": settings.forwarded_allow_ips, "log_level": "info"}


def main() -> None:
    """Serve the web UI on ``settings.host:settings.port`` until interrupted."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = WebSettings()
    uvicorn.run(create_app(settings), **server_options(settings))


if __name__ == "__main__":
    main()
