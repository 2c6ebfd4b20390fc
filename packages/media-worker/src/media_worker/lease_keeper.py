"""Keep a reassembly lease alive while long work runs, from the work's own ticks.

The ffmpeg runner calls its ``on_tick`` hook about every second while ffmpeg
runs, and reassembly calls :meth:`LeaseKeeper.tick` between downloads, so no
extra thread is needed: the lease is renewed whenever a third of it has passed.
"""

from __future__ import annotations

import logging
import time

from shared_types.errors import LeaseLostError
from shared_types.models import Lease
from shared_types.ports import ReassemblyLock

log = logging.getLogger(__name__)


class LeaseKeeper:
    """Holds the latest renewal of ``lease``.

    :meth:`tick` renews once ``lease_s / 3`` seconds passed since the last renewal;
    :meth:`check` renews now. Both raise LeaseLostError when the lease was retaken,
    which stops the work (an exception from ``on_tick`` stops ffmpeg) before the
    stale holder writes anything.
    """

    def __init__(self, lock: ReassemblyLock, lease: Lease, lease_s: float,
                 clock=time.monotonic):
        self._lock, self.lease, self._lease_s, self._clock = lock, lease, lease_s, clock
        self._renewed_at = clock()

    def tick(self) -> None:
        """Renew if a third of the lease has passed. Raises LeaseLostError."""
        if self._clock() - self._renewed_at >= self._lease_s / 3:
            self.check()

    def check(self) -> None:
        """Renew the lease now. Raises LeaseLostError if it was retaken or done."""
        try:
            self.lease = self._lock.renew(self.lease, self._lease_s)
        except LeaseLostError:
            log.warning("job_id=%s reassembly lease lost; stopping", self.lease.job_id)
            raise
        self._renewed_at = self._clock()

    def release(self) -> None:
        """Let the lease expire now (a renewal for 0 s), so that the next attempt
        takes it at once; its fencing token still grows. Never raises: a lease
        already lost or done needs no release."""
        try:
            self.lease = self._lock.renew(self.lease, 0)
        except Exception:  # noqa: BLE001 (lost, done or unreachable: it expires anyway)
            log.info("job_id=%s reassembly lease not released; it expires on its own",
                     self.lease.job_id, exc_info=True)
