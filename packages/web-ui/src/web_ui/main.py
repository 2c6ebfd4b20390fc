"""Entry point of the ``web-ui`` console script: read settings once, serve."""

from __future__ import annotations

import logging

import uvicorn

from web_ui.app import create_app
from web_ui.settings import WebSettings


def main() -> None:
    """Serve the web UI on ``settings.host:settings.port`` until interrupted."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = WebSettings()
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                proxy_headers=True, log_level="info")


if __name__ == "__main__":
    main()
