"""Keep a reassembly lease alive while long work runs."""

from __future__ import annotations

import logging
import threading

from shared_types.errors import LeaseLostError
from shared_types.models import Lease
from shared_types.ports import ReassemblyLock

log = logging.getLogger(__name__)


class LeaseKeeper:
    """Renews ``lease`` every ``lease_s / 3`` seconds in a background thread.

    ``lease`` always holds the latest renewal; :meth:`check` raises LeaseLostError
    once a renewal found the lease retaken, so the holder stops before writing.
    """

    def __init__(self, lock: ReassemblyLock, lease: Lease, lease_s: float):
        self._lock, self.lease, self._lease_s = lock, lease, lease_s
        self._done = threading.Event()
        self._lost: LeaseLostError | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="lease-keeper")

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._done.wait(self._lease_s / 3):
            try:
                self.lease = self._lock.renew(self.lease, self._lease_s)
            except LeaseLostError as exc:
                log.warning("job_id=%s reassembly lease lost: %s", self.lease.job_id, exc)
                self._lost = exc
                return
            except Exception:  # a missed renewal is not fatal; the next may work
                log.warning("job_id=%s lease renewal failed", self.lease.job_id, exc_info=True)

    def check(self) -> None:
        """Raise LeaseLostError if the lease was lost; otherwise renew it now."""
        if self._lost is not None:
            raise self._lost
        self.lease = self._lock.renew(self.lease, self._lease_s)
