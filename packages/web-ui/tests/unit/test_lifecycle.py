
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


class RecordsStatuses:
    """A JobStore that remembers each status written (a fake, not a mock)."""

    def __init__(self, inner):
        self.inner = inner
        self.written = []

    def update(self, job_id, changes, **kwargs):
        self.written.append(changes.status)
        return self.inner.update(job_id, changes, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_deleting_a_running_job_cancels_it_first(backend):
    from dataclasses import replace

    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    jobs = RecordsStatuses(backend.jobs)
    delete_job(replace(backend, jobs=jobs), job.job_id)
    # workers watching the job see it cancelled (they stop, and free what they write)
    assert jobs.written == [JobStatus.CANCELLED]
    assert backend.jobs.get(job.job_id) is None


def test_delete_removes_every_object_of_the_job_and_aborts_its_uploads(backend):
    from shared_types.keys import data_tracks_key, poster_key, streams_key, thumbnail_key

    job = add_job(backend, status=JobStatus.AWAITING_CONFIRMATION)
    inp, out = backend.input_storage, backend.output_storage
    for key in (source_key(job.job_id), streams_key(job.job_id), data_tracks_key(job.job_id)):
        inp.put_bytes(key, b"x")
    for key in (poster_key(job.job_id), thumbnail_key(job.job_id, 3)):
        out.put_bytes(key, b"jpg")
    inp.start_multipart(source_key(job.job_id))
    inp.start_multipart(source_key(job.job_id))

    delete_job(backend, job.job_id)

    assert list(inp.list("")) == [] and list(out.list("")) == []
    assert inp.open_uploads(source_key(job.job_id)) == []
