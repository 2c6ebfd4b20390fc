"""Keep a job's liveness proof fresh while a long step works on it.

Every non-terminal job status has one proof that its owner is alive:
``Job.updated_at`` (docs/ARCHITECTURE.md, "Lifecycle"). A step that may run
longer than a few minutes (chunking, reassembly) calls :meth:`JobKeepAlive.tick`
from its progress hook; the janitor only touches a job whose proof is older
than its ``stuck_after_s``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from shared_types.errors import TransientError
from shared_types.models import JobStatus
from shared_types.ports import JobStore
from shared_types.transitions import record

log = logging.getLogger(__name__)

DEFAULT_EVERY_S = 60.0


class JobKeepAlive:
    """Refreshes ``updated_at`` of a job in ``status`` (and, with ``run``, in that
    chunking run) every ``every_s`` seconds.

    :meth:`tick` raises ConditionFailedError when the job left ``status`` or
    ``run`` (a sweep failed it, a person cancelled it, another run took it
    over): the step must stop before its next side effect. A store that is
    briefly unreachable only skips a beat.
    """

    def __init__(self, jobs: JobStore, job_id: str, status: JobStatus, *,
                 every_s: float = DEFAULT_EVERY_S, run: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._jobs, self.job_id, self.status, self.run = jobs, job_id, status, run
        self._every_s, self._clock = every_s, clock
        self._last = clock()

    def tick(self) -> None:
        """Refresh if ``every_s`` passed since the last refresh. Raises ConditionFailedError."""
        if self._clock() - self._last >= self._every_s:
            self.touch()

    def touch(self) -> None:
        """Refresh now. Raises ConditionFailedError (job moved on) or JobNotFoundError."""
        try:
            record(self._jobs, self.job_id, while_in=[self.status], run=self.run)
        except TransientError:
            log.warning("job_id=%s liveness refresh skipped (store unreachable)", self.job_id,
                        exc_info=True)
            return
        self._last = self._clock()
