"""``ports.JobChanges`` on the doorbell: a job's status change wakes its waiters.

Every process's ``SqliteJobStore`` rings ``CHANNEL`` once its write of a new
status has committed (a job created, moved on, deleted); a waiter
(``stereo-spot convert`` waiting for its job) listens on it and reads the job
again at once instead of at its next poll: the end of a job is seen when it
happens, and the video-workers' drain starts when reassembly does. Progress
inside a status (frames, segments) rings nothing: it changes many times a
second, and waiters read it at their own pace.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from local_adapters.doorbell import Doorbell, Ear

CHANNEL = "job-changes"


class RungJobChanges:
    """Job status changes, told through ``doorbell``."""

    def __init__(self, doorbell: Doorbell) -> None:
        self._doorbell = doorbell

    def listen(self) -> AbstractContextManager[Ear]:
        """An ear rung by every status change while the block runs."""
        return self._doorbell.listen(CHANNEL)

    def ring(self) -> None:
        """Tell every waiter (after the change has committed)."""
        self._doorbell.ring(CHANNEL)
