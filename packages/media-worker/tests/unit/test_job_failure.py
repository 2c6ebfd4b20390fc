"""fail_job (as media-worker calls it) never overwrites a job that already ended."""

from __future__ import annotations

from shared_types.job_failure import fail_job_for as fail_job
from shared_types.models import JobStatus, JobUpdate
from stereo_media.errors import UnusableVideoError


def test_an_in_progress_job_is_failed_with_code_message_and_stage(mem_backend, new_job):
    job = new_job(mem_backend)
    assert fail_job(mem_backend.jobs, job.job_id, "chunking", UnusableVideoError("No video."))
    failed = mem_backend.jobs.get(job.job_id)
    assert failed.status == JobStatus.FAILED
    assert (failed.error.code, failed.error.message, failed.error.stage) == (
        "invalid_media", "No video.", "chunking")


def test_a_completed_job_stays_completed(mem_backend, new_job):
    job = new_job(mem_backend)
    mem_backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))
    assert not fail_job(mem_backend.jobs, job.job_id, "reassembly", RuntimeError("late"))
    assert mem_backend.jobs.get(job.job_id).status == JobStatus.COMPLETED


def test_an_unknown_job_is_not_an_error(mem_backend):
    assert not fail_job(mem_backend.jobs, "nobody", "chunking", RuntimeError("x"))
