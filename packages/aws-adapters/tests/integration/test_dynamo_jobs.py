import pytest
from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.models import Job, JobError, JobStatus, JobUpdate, OutputMode

from aws_adapters.errors import AwsPermanentError


def make_job(job_id: str, *, created_at: float = 1000.0, **fields) -> Job:
    return Job(job_id=job_id, mode=OutputMode.SBS, created_at=created_at, **fields)


def test_a_created_job_reads_back_equal(backend):
    job = make_job("j1", title="Holiday", source_size_bytes=1234)
    backend.jobs.create(job)
    got = backend.jobs.get("j1")
    assert got == job
    assert isinstance(got.created_at, float)
    assert got.params.divergence == 2.0


def test_creating_an_existing_id_fails(backend):
    backend.jobs.create(make_job("j1"))
    with pytest.raises(ConditionFailedError):
        backend.jobs.create(make_job("j1"))


def test_update_applies_only_when_status_matches(backend):
    backend.jobs.create(make_job("j1"))
    job = backend.jobs.update("j1", JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS),
                              expected_status={JobStatus.CREATED})
    assert job.status == JobStatus.CHUNKING_IN_PROGRESS
    with pytest.raises(ConditionFailedError) as caught:
        backend.jobs.update("j1", JobUpdate(status=JobStatus.COMPLETED),
                            expected_status=[JobStatus.CREATED])
    assert "chunking_in_progress" in str(caught.value)
    assert backend.jobs.get("j1").status == JobStatus.CHUNKING_IN_PROGRESS


def test_update_of_a_missing_job_raises_not_found(backend):
    with pytest.raises(JobNotFoundError):
        backend.jobs.update("nope", JobUpdate(total_segments=3))
    with pytest.raises(JobNotFoundError):
        backend.jobs.update("nope", JobUpdate(total_segments=3),
                            expected_status=[JobStatus.CREATED])


def test_error_is_set_then_cleared(backend):
    backend.jobs.create(make_job("j1"))
    failed = backend.jobs.update("j1", JobUpdate(status=JobStatus.FAILED, error=JobError(
        code="bad_media", message="not a video", stage="chunking", at=5.5)))
    assert failed.error.message == "not a video"
    assert failed.error.at == 5.5
    cleared = backend.jobs.update("j1", JobUpdate(status=JobStatus.CREATED, clear_error=True))
    assert cleared.error is None
    assert backend.jobs.get("j1").error is None


def test_completing_without_a_time_still_lists_as_completed(backend):
    backend.jobs.create(make_job("j1"))
    job = backend.jobs.update("j1", JobUpdate(status=JobStatus.COMPLETED))
    assert job.completed_at is not None
    assert [j.job_id for j in backend.jobs.list_by_status(JobStatus.COMPLETED).items] == ["j1"]


def test_completed_jobs_page_newest_completed_first(backend):
    for i in range(5):
        backend.jobs.create(make_job(f"j{i}", created_at=100.0 + i))
        backend.jobs.update(f"j{i}", JobUpdate(status=JobStatus.COMPLETED,
                                               completed_at=500.0 - i))
    seen, cursor = [], None
    pages = 0
    while True:
        page = backend.jobs.list_by_status(JobStatus.COMPLETED, limit=2, cursor=cursor)
        seen += [j.job_id for j in page.items]
        pages += 1
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ["j0", "j1", "j2", "j3", "j4"]
    assert pages == 3


def test_an_exact_last_page_has_no_cursor(backend):
    for i in range(4):
        backend.jobs.create(make_job(f"j{i}", created_at=100.0 + i))
    first = backend.jobs.list_by_status(JobStatus.CREATED, limit=2)
    second = backend.jobs.list_by_status(JobStatus.CREATED, limit=2, cursor=first.next_cursor)
    assert [j.job_id for j in first.items + second.items] == ["j3", "j2", "j1", "j0"]
    assert second.next_cursor is None


def test_a_tampered_cursor_is_rejected_clearly(backend):
    with pytest.raises(AwsPermanentError, match="cursor"):
        backend.jobs.list_by_status(JobStatus.CREATED, cursor="not-base64!!")


def test_in_progress_merges_statuses_newest_created_first(backend):
    statuses = [JobStatus.CREATED, JobStatus.CHUNKING_IN_PROGRESS, JobStatus.REASSEMBLING,
                JobStatus.COMPLETED, JobStatus.CHUNKING_COMPLETE, JobStatus.FAILED]
    for i, status in enumerate(statuses):
        backend.jobs.create(make_job(f"j{i}", created_at=100.0 + i, status=status))
    assert [j.job_id for j in backend.jobs.list_in_progress()] == ["j4", "j2", "j1", "j0"]
    assert [j.job_id for j in backend.jobs.list_in_progress(limit=2)] == ["j4", "j2"]


def test_delete_is_quiet_for_missing_jobs(backend):
    backend.jobs.create(make_job("j1"))
    backend.jobs.delete("j1")
    backend.jobs.delete("j1")
    assert backend.jobs.get("j1") is None
