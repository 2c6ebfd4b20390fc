"""The named transitions: the only code that creates a job or writes its status.

Each one is a conditional write through the JobStore port, on the statuses
(and chunking run) it starts from, and each checks ``shared_types.lifecycle``:
a move the table does not list raises IllegalTransitionError before anything
is written. :func:`record` writes other fields of a job while it stays in a
status (a step's progress, its proof of life); it never moves the status.
A test (shared-types ``test_transitions_writers``) proves no other module
writes a job's status, conditions a write on it, or creates a job.

Every function raises JobNotFoundError, ConditionFailedError (the job was not
in the expected status or run: someone moved it meanwhile) and store errors
(TransientStoreError) from the port.
"""

from __future__ import annotations

from collections.abc import Collection

from shared_types.errors import JobStateError
from shared_types.lifecycle import INITIAL, may_move
from shared_types.models import (
    IN_PROGRESS_STATUSES,
    ConversionParams,
    Job,
    JobError,
    JobStatus,
    JobUpdate,
    now,
)
from shared_types.ports import JobStore

S = JobStatus
CHUNKABLE = (S.CREATED, S.CHUNKING_IN_PROGRESS)  # a successor run may take over a stalled one
REASSEMBLABLE = (S.CHUNKING_COMPLETE, S.REASSEMBLING)
HELD = (S.AWAITING_CONFIRMATION,)


class IllegalTransitionError(JobStateError):
    """A move the lifecycle table does not list (a bug in the caller, never the input's)."""


def _move(jobs: JobStore, job_id: str, sources: Collection[JobStatus], target: JobStatus,
          changes: JobUpdate | None = None, *, run: int | None = None) -> Job:
    illegal = [s.value for s in sources if not may_move(s, target)]
    if illegal:
        raise IllegalTransitionError(
            f"job {job_id}: the lifecycle has no move from {', '.join(illegal)} to "
            f"{target.value}")
    update = (changes or JobUpdate()).model_copy(update={"status": target})
    return jobs.update(job_id, update, expected_status=tuple(sources), expected_run=run)


def create_job(jobs: JobStore, job: Job) -> Job:
    """Insert ``job`` in one of the lifecycle's initial statuses and return it.
    Raises IllegalTransitionError for any other status, ConditionFailedError
    when the id exists."""
    if job.status not in INITIAL:
        raise IllegalTransitionError(f"job {job.job_id}: a job starts in "
                                     f"{' or '.join(sorted(INITIAL))}, not {job.status.value}")
    jobs.create(job)
    return job


def record(jobs: JobStore, job_id: str, changes: JobUpdate | None = None, *,
           while_in: Collection[JobStatus] | None = None, run: int | None = None) -> Job:
    """Write ``changes`` (never the status) while the job is in ``while_in``
    (any status when None) and, with ``run``, in that chunking run; also
    refreshes its proof of life (``updated_at``)."""
    changes = changes or JobUpdate()
    if changes.status is not None:
        raise IllegalTransitionError(f"job {job_id}: record() never moves a status; "
                                     "use a named transition")
    return jobs.update(job_id, changes,
                       expected_status=tuple(while_in) if while_in is not None else None,
                       expected_run=run)


def claim_chunking(jobs: JobStore, job: Job, changes: JobUpdate) -> Job:
    """Take the job's next chunking run (``job.run`` + 1) from ``created`` or a
    stalled ``chunking_in_progress``, conditional on the run read in ``job``."""
    return _move(jobs, job.job_id, CHUNKABLE, S.CHUNKING_IN_PROGRESS,
                 changes.model_copy(update={"run": job.run + 1}), run=job.run)


def finish_chunking(jobs: JobStore, job_id: str, *, run: int, total_segments: int,
                    left_out: list[str] | None = None) -> Job:
    """``chunking_in_progress`` -> ``chunking_complete`` with the segment count,
    only while ``run`` is still the job's run."""
    return _move(jobs, job_id, (S.CHUNKING_IN_PROGRESS,), S.CHUNKING_COMPLETE,
                 JobUpdate(total_segments=total_segments, left_out=left_out), run=run)


def start_reassembly(jobs: JobStore, job_id: str) -> Job:
    """A reassembler holding the lease: ``chunking_complete`` (or a retaken
    ``reassembling``) -> ``reassembling``."""
    return _move(jobs, job_id, REASSEMBLABLE, S.REASSEMBLING)


def complete_job(jobs: JobStore, job_id: str, *, final_key: str,
                 left_out: list[str] | None = None) -> Job:
    """The final video is written: -> ``completed``."""
    return _move(jobs, job_id, REASSEMBLABLE, S.COMPLETED,
                 JobUpdate(completed_at=now(), final_key=final_key, left_out=left_out))


def fail_job_now(jobs: JobStore, job_id: str, error: JobError) -> Job:
    """Any status that has not ended -> ``failed`` with ``error``
    (``shared_types.job_failure.fail_job`` is the caller)."""
    return _move(jobs, job_id, IN_PROGRESS_STATUSES, S.FAILED, JobUpdate(error=error))


def cancel_job_now(jobs: JobStore, job_id: str) -> Job:
    """Any status that has not ended -> ``cancelled`` (``shared_types.cancel``)."""
    return _move(jobs, job_id, IN_PROGRESS_STATUSES, S.CANCELLED)


def reopen_failed(jobs: JobStore, job: Job, target: JobStatus) -> Job:
    """Retry: ``failed`` -> ``target`` (``created`` to re-chunk, ``chunking_complete``
    to resume), its error cleared, re-sends reset and the epoch bumped (the
    reassembly trigger may fire once more; the fencing token is never reset)."""
    return _move(jobs, job.job_id, (S.FAILED,), target,
                 JobUpdate(clear_error=True, resends=0, epoch=job.epoch + 1))


def confirm_hold(jobs: JobStore, job_id: str, params: ConversionParams) -> Job:
    """"Convert the whole video": ``awaiting_confirmation`` -> ``created`` with ``params``."""
    return _move(jobs, job_id, HELD, S.CREATED, JobUpdate(params=params, resends=0))
