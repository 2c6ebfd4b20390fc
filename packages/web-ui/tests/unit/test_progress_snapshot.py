import pytest
from shared_types.keys import source_key
from shared_types.models import JobError, JobStatus, SegmentCompletion, SegmentState

from web_ui.eta import EtaEstimator
from web_ui.progress_snapshot import merge_cells, percent_for, segment_cells, snapshot

from .conftest import add_job


def complete(backend, job, index, at):
    backend.completions.put(SegmentCompletion(
        job_id=job.job_id, segment_index=index, output_key=f"k{index}", completed_at=at))
    backend.segment_status.mark_complete(job.job_id, index)


def test_segment_cells_show_each_segments_state():
    states = {0: SegmentState.COMPLETE, 1: SegmentState.PENDING, 2: SegmentState.FAILED}
    assert segment_cells(5, states, done={4}) == ["done", "running", "failed", "pending", "done"]


def test_a_merged_cell_shows_its_worst_segment():
    cells = ["done"] * 10 + ["failed"] + ["done"] * 9
    merged = merge_cells(cells, max_cells=4)
    assert merged == ["done", "done", "failed", "done"]
    assert merge_cells(["pending", "done"], max_cells=4) == ["pending", "done"]


@pytest.mark.parametrize(("status", "done", "total", "expected"), [
    (JobStatus.CREATED, 0, None, 0.0),
    (JobStatus.CHUNKING_IN_PROGRESS, 0, None, 2.0),
    (JobStatus.CHUNKING_COMPLETE, 0, 4, 5.0),
    (JobStatus.CHUNKING_COMPLETE, 2, 4, 47.5),
    (JobStatus.CHUNKING_COMPLETE, 4, 4, 90.0),
    (JobStatus.REASSEMBLING, 4, 4, 92.0),
    (JobStatus.COMPLETED, 4, 4, 100.0),
])
def test_percent_grows_through_the_stages(status, done, total, expected):
    assert percent_for(status, done, total) == expected


def test_snapshot_of_a_job_waiting_for_its_upload(backend):
    job = add_job(backend)
    snap = snapshot(backend, job, EtaEstimator(backend.jobs))
    assert snap.stage == "Waiting for upload"
    assert snap.percent == 0.0 and snap.strip == [] and snap.eta_seconds is None


def test_snapshot_notices_the_upload_and_estimates_from_its_size(backend):
    job = add_job(backend)
    backend.input_storage.put_bytes(source_key(job.job_id), b"x" * (2 * 1024 * 1024))
    snap = snapshot(backend, job, EtaEstimator(backend.jobs, seconds_per_mb=10.0))
    assert snap.stage == "Uploaded, waiting to be split"
    assert snap.eta_seconds == 20


def test_snapshot_while_converting_counts_segments_and_uses_the_jobs_pace(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=4)
    complete(backend, job, 0, at=100.0)
    complete(backend, job, 1, at=110.0)
    backend.segment_status.mark_pending(job.job_id, 2)
    snap = snapshot(backend, job, EtaEstimator(backend.jobs))
    assert (snap.segments_done, snap.segments_total) == (2, 4)
    assert snap.strip == ["done", "done", "running", "pending"]
    assert snap.percent == 47.5
    assert snap.eta_seconds == 20  # 2 segments left at 10 s each


def test_snapshot_of_a_failed_job_carries_the_reason(backend):
    err = JobError(code="invalid_media", message="Not a video.", stage="chunking")
    job = add_job(backend, status=JobStatus.FAILED, error=err)
    snap = snapshot(backend, job, EtaEstimator(backend.jobs, seconds_per_mb=1.0))
    assert snap.error == "Not a video." and snap.is_final and snap.eta_seconds is None


def test_event_id_changes_only_when_the_state_changes(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    eta = EtaEstimator(backend.jobs)
    first = snapshot(backend, job, eta).event_id()
    assert snapshot(backend, job, eta).event_id() == first
    complete(backend, job, 0, at=1.0)
    assert snapshot(backend, job, eta).event_id() != first
