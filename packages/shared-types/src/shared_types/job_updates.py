"""How a JobUpdate changes a Job, and how jobs sort: shared by every JobStore."""

from __future__ import annotations

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


def job_sort_time(job: Job) -> float:
    """Newest-first sort key: completed_at for completed jobs, created_at otherwise."""
    if job.status == JobStatus.COMPLETED and job.completed_at is not None:
        return job.completed_at
    return job.created_at
