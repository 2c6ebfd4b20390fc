"""A job's segments become expirable only when the job ends (and Retry keeps them)."""

import pytest

from shared_types.errors import TransientStoreError
from shared_types.keys import output_segment_key, segment_key
from shared_types.models import Job, JobError, JobStatus, JobUpdate, OutputMode
from shared_types.retry import retry_job
from shared_types.segment_retention import (
    fail_and_release,
    fail_for_and_release,
    keep_segments,
    release_segments,
)
from shared_types.testing.memory import memory_backend

JOB = "job-1"


@pytest.fixture
def backend():
    b = memory_backend()
    b.jobs.create(Job(job_id=JOB, mode=OutputMode.SBS, status=JobStatus.CHUNKING_COMPLETE,
                      total_segments=2))
    for i in range(2):
        b.input_storage.put_bytes(segment_key(JOB, i, 2, OutputMode.SBS), b"in")
        b.output_storage.put_bytes(output_segment_key(JOB, i), b"out")
    b.output_storage.put_bytes("jobs/job-1/final.mp4", b"final")
    b.input_storage.put_bytes(segment_key("job-2", 0, 1, OutputMode.SBS), b"other")
    return b


def expirable(backend):
    return backend.input_storage.expirable | backend.output_storage.expirable


def test_a_running_job_has_nothing_expirable(backend):
    assert expirable(backend) == set()


def test_release_marks_both_kinds_of_segment_of_that_job_only(backend):
    assert release_segments(backend, JOB) == 4
    assert expirable(backend) == {
        segment_key(JOB, 0, 2, OutputMode.SBS), segment_key(JOB, 1, 2, OutputMode.SBS),
        output_segment_key(JOB, 0), output_segment_key(JOB, 1)}


def test_failing_a_job_releases_its_segments_once(backend):
    assert fail_and_release(backend, JOB, code="x", message="broke", stage="inference")
    assert len(expirable(backend)) == 4
    backend.output_storage.expirable.clear()
    # already ended: this call fails nothing and marks nothing
    assert not fail_for_and_release(backend, JOB, "inference", RuntimeError("again"))
    assert backend.output_storage.expirable == set()


def test_retry_keeps_the_segments_it_will_use_again(backend):
    fail_and_release(backend, JOB, code="x", message="broke", stage="inference")
    retry_job(backend, backend.jobs.get(JOB))
    assert expirable(backend) == set()
    assert backend.jobs.get(JOB).status != JobStatus.FAILED


def test_keep_counts_what_it_unmarked(backend):
    release_segments(backend, JOB)
    assert keep_segments(backend, JOB) == 4


def test_an_unreachable_store_leaves_segments_kept_and_the_job_ended(backend, monkeypatch):
    def down(prefix):
        raise TransientStoreError("throttled")

    monkeypatch.setattr(backend.output_storage, "mark_expirable", down)
    backend.jobs.update(JOB, JobUpdate(status=JobStatus.FAILED, error=JobError(
        code="x", message="m", stage="s")))
    release_segments(backend, JOB)  # logged, not raised
    assert backend.output_storage.expirable == set()
