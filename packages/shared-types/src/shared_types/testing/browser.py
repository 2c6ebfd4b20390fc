"""Headless Chromium for the browser tests of every package: Debian's chromium
driven by the Playwright Python package (no ``playwright install``), and where
screenshots of each page state go."""

from __future__ import annotations

import os
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
REPO_ROOT = Path(__file__).resolve().parents[5]
UPDATE_ENV = "STEREO_SPOT_UPDATE_SCREENSHOTS"


def screenshots_dir(artifacts: Path) -> Path:
    """docs/screenshots with ``STEREO_SPOT_UPDATE_SCREENSHOTS=1``, else
    ``artifacts/screenshots`` (so a plain test run leaves the checkout clean)."""
    if os.environ.get(UPDATE_ENV) == "1":
        return REPO_ROOT / "docs" / "screenshots"
    return artifacts / "screenshots"


def chromium_missing() -> str | None:
    """Why the browser tests cannot run here (None when they can)."""
    if Path(CHROMIUM).exists():
        return None
    return f"{CHROMIUM} is not installed (apt-get install -y chromium)"
