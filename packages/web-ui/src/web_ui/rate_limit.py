"""A per-client rate limit: a token bucket for each client (its user and
address), so one client opening jobs and uploads in a loop is slowed down
without slowing anyone else.

The buckets live in this process (one web UI process per task); the table is
bounded, the clients idle longest are forgotten first (a forgotten client
starts again with a full bucket, which only errs towards letting one in).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from web_ui.errors import NotAllowedError

MAX_CLIENTS = 10_000


class RateLimiter:
    """``rate_per_s`` requests a second per client, with bursts of ``burst``."""

    def __init__(self, rate_per_s: float, burst: int, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str) -> None:
        """Spend one request of ``client``'s. Raises NotAllowedError (with the
        seconds to wait) when its bucket is empty."""
        now = self.clock()
        with self._lock:
            tokens, at = self._buckets.pop(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate_per_s)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                wait = math.ceil((1.0 - tokens) / self.rate_per_s)
                raise NotAllowedError(f"Too many requests; try again in {wait} s.")
            self._buckets[client] = (tokens - 1.0, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
