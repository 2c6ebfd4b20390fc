"""A JobStore that witnesses every status change made through it, for tests.

It wraps a real store (memory, SQLite, DynamoDB on moto) and records each
creation and each status write as a move; :meth:`WitnessedJobs.illegal` lists
the moves ``shared_types.lifecycle`` does not allow. The lifecycle property
test checks it after every step, so the table in code is what the stores did.
"""

from __future__ import annotations

from shared_types.lifecycle import INITIAL, may_move
from shared_types.models import Job, JobStatus, JobUpdate
from shared_types.ports import JobStore

Move = tuple[JobStatus | None, JobStatus]  # (None, status) is a creation


class WitnessedJobs:
    """``inner`` with every move recorded in :attr:`moves`."""

    def __init__(self, inner: JobStore) -> None:
        self._inner = inner
        self.moves: list[Move] = []

    def create(self, job: Job) -> None:
        self._inner.create(job)
        self.moves.append((None, job.status))

    def update(self, job_id: str, changes: JobUpdate, **conditions) -> Job:
        before = self._inner.get(job_id)
        after = self._inner.update(job_id, changes, **conditions)
        if before is not None and (changes.status is not None or before.status != after.status):
            self.moves.append((before.status, after.status))
        return after

    def illegal(self) -> list[Move]:
        """The moves the lifecycle table does not list, in the order they were made."""
        return [(source, target) for source, target in self.moves
                if (target not in INITIAL if source is None else not may_move(source, target))]

    def __getattr__(self, name: str):
        return getattr(self._inner, name)
