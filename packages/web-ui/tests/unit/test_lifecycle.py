
from shared_types.keys import final_key, output_segment_key, segment_key, source_key
from shared_types.models import (
    JobError,
    JobStatus,
    OutputMode,
    SegmentCompletion,
)

from web_ui.lifecycle import delete_job

from .conftest import add_job

ERR = JobError(code="boom", message="it broke", stage="inference")


def drain(queue):
    return [m.body for m in queue.receive(max_messages=100)]


def failed_job(backend, **changes):
    return add_job(backend, status=JobStatus.FAILED, error=ERR, mode=OutputMode.SBS, **changes)


def test_delete_removes_objects_and_records(backend):
    job = add_job(backend, status=JobStatus.COMPLETED, total_segments=1)
    other = add_job(backend)
    backend.input_storage.put_bytes(source_key(job.job_id), b"v")
    backend.input_storage.put_bytes(segment_key(job.job_id, 0, 1, job.mode), b"s")
    backend.input_storage.put_bytes(source_key(other.job_id), b"keep")
    backend.output_storage.put_bytes(output_segment_key(job.job_id, 0), b"o")
    backend.output_storage.put_bytes(final_key(job.job_id), b"f")
    backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=0,
                                              output_key="x"))
    backend.segment_status.mark_complete(job.job_id, 0)
    backend.reassembly.trigger(job.job_id)

    delete_job(backend, job.job_id)

    assert backend.jobs.get(job.job_id) is None
    assert list(backend.input_storage.list(f"input/{job.job_id}/")) == []
    assert list(backend.input_storage.list(f"segments/{job.job_id}/")) == []
    assert list(backend.output_storage.list(f"jobs/{job.job_id}/")) == []
    assert backend.completions.count(job.job_id) == 0
    assert backend.segment_status.list(job.job_id) == []
    assert not backend.reassembly.is_triggered(job.job_id)
    assert backend.input_storage.exists(source_key(other.job_id))
