"""How a JobUpdate changes a Job, and how jobs sort: shared by every JobStore."""

from __future__ import annotations

from collections.abc import Collection

from shared_types.errors import ConditionFailedError
from shared_types.models import Job, JobStatus, JobUpdate, now

# JobUpdate fields copied as they are when not None (every JobStore uses this list).
SIMPLE_FIELDS = ("status", "total_segments", "completed_at", "final_key", "source_size_bytes",
                 "title", "resends", "epoch", "notified_at", "source_etag", "params",
                 "preview_job_id", "source_duration_s", "thumbnails", "source_frames",
                 "source_width", "source_height", "source_timecode", "left_out", "started_at",
                 "run", "webhook_attempts")


def apply_job_update(job: Job, changes: JobUpdate) -> Job:
    """The job after ``changes`` (None fields stay unchanged; updated_at is now).

    Raises pydantic.ValidationError if the result is not a valid Job.
    """
    data = job.model_dump()
    for field in SIMPLE_FIELDS:
        value = getattr(changes, field)
        if value is not None:
            data[field] = value
    if changes.clear_error:
        data["error"] = None
    if changes.error is not None:
        data["error"] = changes.error.model_dump()
    data["updated_at"] = now()
    return Job.model_validate(data)


def condition_failure(job: Job, expected_status: Collection[JobStatus] | None,
                      expected_run: int | None) -> ConditionFailedError | None:
    """Why ``job`` fails a conditional update's expectations (the status first,
    then the run), or None when it meets them; every JobStore words it so."""
    if expected_status is not None and job.status not in expected_status:
        wanted = ", ".join(sorted(JobStatus(s).value for s in expected_status))
        return ConditionFailedError(
            f"job {job.job_id} is {job.status.value}, expected one of: {wanted}")
    if expected_run is not None and job.run != expected_run:
        return ConditionFailedError(f"job {job.job_id} is in run {job.run}, not {expected_run}")
    return None


def job_sort_time(job: Job) -> float:
    """Newest-first sort key: completed_at for completed jobs, created_at otherwise."""
    if job.status == JobStatus.COMPLETED and job.completed_at is not None:
        return job.completed_at
    return job.created_at
