"""Wait for a long-running AWS operation by polling (injectable clock for tests)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from stereo_spot_deploy.errors import DeployTimeoutError

T = TypeVar("T")


@dataclass
class Poller:
    """Calls a probe every ``interval_s`` until it returns a value, for at most ``timeout_s``."""

    interval_s: float = 15.0
    timeout_s: float = 3600.0
    sleep: Callable[[float], None] = field(default=time.sleep)
    clock: Callable[[], float] = field(default=time.monotonic)

    def until(self, probe: Callable[[], T | None], what: str) -> T:
        """The first non-None result of ``probe``. Raises DeployTimeoutError."""
        deadline = self.clock() + self.timeout_s
        while True:
            result = probe()
            if result is not None:
                return result
            if self.clock() >= deadline:
                raise DeployTimeoutError(f"{what} did not finish within {self.timeout_s:.0f} s")
            self.sleep(self.interval_s)
