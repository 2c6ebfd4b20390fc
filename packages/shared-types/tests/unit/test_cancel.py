"""Cancel: terminal status, files freed (poster kept), records kept."""

import pytest

from shared_types.cancel import cancel_job
from shared_types.errors import ConditionFailedError, JobStateError
from shared_types.keys import (
    data_tracks_key,
    final_key,
    output_segment_key,
    poster_key,
    segment_key,
    source_key,
    streams_key,
)
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, SegmentHeartbeat
from shared_types.testing.memory import memory_backend


def running_job(backend):
    job = Job(job_id="job-1", mode=OutputMode.SBS)
    backend.jobs.create(job)
    backend.input_storage.put_bytes(source_key("job-1"), b"src")
    backend.input_storage.put_bytes(streams_key("job-1"), b"audio")  # kept aside at chunking
    backend.input_storage.put_bytes(data_tracks_key("job-1"), b"gpmd")
    backend.input_storage.put_bytes(segment_key("job-1", 0, 2, "sbs"), b"s0")
    backend.output_storage.put_bytes(output_segment_key("job-1", 0), b"o0")
    backend.output_storage.put_bytes(poster_key("job-1"), b"jpg")
    backend.segment_status.mark_pending("job-1", 1)
    backend.heartbeats.beat(SegmentHeartbeat(job_id="job-1", segment_index=1, worker="w",
                                             frames_done=3, started_at=0))
    return backend.jobs.update("job-1", JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                                  total_segments=2))


def test_cancel_makes_the_job_terminal_and_frees_its_files():
    backend = memory_backend()
    job = running_job(backend)
    cancelled = cancel_job(backend, job)
    assert cancelled.status == JobStatus.CANCELLED
    assert cancelled.status.is_final
    assert [o.key for o in backend.input_storage.list("")] == []
    assert [o.key for o in backend.output_storage.list("")] == [poster_key("job-1")]
    assert backend.heartbeats.list("job-1") == []
    assert backend.jobs.get("job-1").status == JobStatus.CANCELLED


def test_a_final_job_cannot_be_cancelled():
    backend = memory_backend()
    job = running_job(backend)
    done = backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED,
                                                     final_key=final_key(job.job_id)))
    with pytest.raises(JobStateError):
        cancel_job(backend, done)
    # a stale view (the job finished meanwhile) loses the conditional update
    with pytest.raises(ConditionFailedError):
        cancel_job(backend, job)
    assert backend.input_storage.exists(source_key(job.job_id))


def test_cancelled_is_terminal_so_no_sweep_owns_it():
    from shared_types.models import IN_PROGRESS_STATUSES

    assert JobStatus.CANCELLED not in IN_PROGRESS_STATUSES


def test_cancel_aborts_the_jobs_unfinished_uploads_and_keeps_other_jobs_uploads():
    backend = memory_backend()
    job = Job(job_id="job-1", mode=OutputMode.SBS)
    backend.jobs.create(job)
    storage = backend.input_storage
    storage.start_multipart(source_key("job-1"))
    storage.start_multipart(source_key("job-1"))
    other = storage.start_multipart(source_key("job-2"))
    cancel_job(backend, job)
    assert storage.open_uploads(source_key("job-1")) == []
    assert storage.open_uploads(source_key("job-2")) == [other]
