from shared_types.keys import source_key
from shared_types.models import JobError, JobStatus, SegmentCompletion

from web_ui.eta import EtaEstimator
from web_ui.progress_snapshot import snapshot

from .conftest import add_job


def complete(backend, job, index, at):
    backend.completions.put(SegmentCompletion(
        job_id=job.job_id, segment_index=index, output_key=f"k{index}", completed_at=at))
    backend.segment_status.mark_complete(job.job_id, index)


def test_snapshot_of_a_job_waiting_for_its_upload(backend):
    job = add_job(backend)
    snap = snapshot(backend, job, EtaEstimator(backend))
    assert snap.stage == "Waiting for upload"
    assert snap.percent == 0.0
    assert snap.strip == []
    assert snap.eta_seconds is None


def test_snapshot_notices_the_upload_and_estimates_from_its_size(backend):
    job = add_job(backend)
    backend.input_storage.put_bytes(source_key(job.job_id), b"x" * (2 * 1024 * 1024))
    snap = snapshot(backend, job, EtaEstimator(backend, seconds_per_mb=10.0))
    assert snap.stage == "Uploaded, waiting to be split"
    assert snap.eta_seconds == 20


def test_snapshot_while_converting_counts_segments_and_uses_the_jobs_pace(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=4)
    complete(backend, job, 0, at=100.0)
    complete(backend, job, 1, at=110.0)
    backend.segment_status.mark_pending(job.job_id, 2)
    snap = snapshot(backend, job, EtaEstimator(backend))
    assert (snap.segments_done, snap.segments_total) == (2, 4)
    assert snap.strip == ["done", "done", "running", "pending"]
    assert snap.percent == 47.5
    assert snap.eta_seconds == 20  # 2 segments left at 10 s each


def test_snapshot_of_a_failed_job_carries_the_reason(backend):
    err = JobError(code="invalid_media", message="Not a video.", stage="chunking")
    job = add_job(backend, status=JobStatus.FAILED, error=err)
    snap = snapshot(backend, job, EtaEstimator(backend, seconds_per_mb=1.0))
    assert snap.error == "Not a video."
    assert snap.is_final
    assert snap.eta_seconds is None


def test_event_id_changes_only_when_the_state_changes(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    eta = EtaEstimator(backend)
    first = snapshot(backend, job, eta).event_id()
    assert snapshot(backend, job, eta).event_id() == first
    complete(backend, job, 0, at=1.0)
    assert snapshot(backend, job, eta).event_id() != first
