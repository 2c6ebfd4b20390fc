"""JobStore contract: conditional updates, newest-first lists, cursor pagination."""

from __future__ import annotations

import pytest

from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.models import (
    ConversionParams,
    Job,
    JobError,
    JobStatus,
    JobUpdate,
    OutputMode,
)
from shared_types.testing.contracts import run_concurrently


def make_job(job_id: str, *, created_at: float = 1000.0, status: JobStatus = JobStatus.CREATED,
             completed_at: float | None = None) -> Job:
    """A job with fixed timestamps so ordering contracts are deterministic."""
    return Job(job_id=job_id, mode=OutputMode.HALF_SBS, status=status, created_at=created_at,
               completed_at=completed_at, title=f"title {job_id}")


def test_create_then_get_returns_an_equal_job(job_store):
    job = make_job("job-a")
    job_store.create(job)
    got = job_store.get("job-a")
    assert got is not None
    assert got.model_dump() == job.model_dump()


def test_the_owner_is_stored_and_kept_by_updates(job_store):
    job_store.create(make_job("job-a").model_copy(update={"owner": "user-1"}))
    job_store.create(make_job("job-b", created_at=1001.0))
    job_store.update("job-a", JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS))
    assert job_store.get("job-a").owner == "user-1"
    assert job_store.get("job-b").owner is None
    listed = {job.job_id: job.owner for job in job_store.list_in_progress(limit=10)}
    assert listed == {"job-a": "user-1", "job-b": None}


def test_get_of_unknown_job_is_none(job_store):
    assert job_store.get("nope") is None


def test_create_twice_raises_condition_failed_and_keeps_the_first(job_store):
    job_store.create(make_job("job-a"))
    with pytest.raises(ConditionFailedError):
        job_store.create(make_job("job-a", created_at=5.0))
    assert job_store.get("job-a").created_at == 1000.0


def test_update_applies_changes_and_returns_the_new_job(job_store):
    job_store.create(make_job("job-a"))
    new = job_store.update("job-a", JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=7))
    assert (new.status, new.total_segments) == (JobStatus.CHUNKING_COMPLETE, 7)
    stored = job_store.get("job-a")
    assert (stored.status, stored.total_segments, stored.title) == (
        JobStatus.CHUNKING_COMPLETE, 7, "title job-a")


def test_an_empty_update_refreshes_updated_at_and_resends_is_counted(job_store):
    job_store.create(make_job("job-a").model_copy(update={"updated_at": 1000.0}))
    touched = job_store.update("job-a", JobUpdate(), expected_status=[JobStatus.CREATED])
    assert touched.updated_at > 1000.0 and touched.resends == 0
    job_store.update("job-a", JobUpdate(resends=2, epoch=1, source_etag="abc"))
    stored = job_store.get("job-a")
    assert (stored.resends, stored.epoch, stored.source_etag, stored.status) == (
        2, 1, "abc", JobStatus.CREATED)


def test_update_with_matching_expected_status_succeeds(job_store):
    job_store.create(make_job("job-a"))
    job_store.update("job-a", JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS),
                     expected_status={JobStatus.CREATED})
    assert job_store.get("job-a").status == JobStatus.CHUNKING_IN_PROGRESS


def test_update_with_other_expected_status_raises_and_changes_nothing(job_store):
    job_store.create(make_job("job-a", status=JobStatus.FAILED))
    with pytest.raises(ConditionFailedError, match="job job-a is failed, expected one of: "
                       "chunking_complete, reassembling"):
        job_store.update("job-a", JobUpdate(status=JobStatus.COMPLETED, final_key="k"),
                         expected_status=[JobStatus.REASSEMBLING, JobStatus.CHUNKING_COMPLETE])
    job = job_store.get("job-a")
    assert (job.status, job.final_key) == (JobStatus.FAILED, None)


def test_a_claim_takes_the_next_run_once_and_a_stale_run_cannot_write(job_store):
    job_store.create(make_job("job-a"))
    claimed = job_store.update("job-a", JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS, run=1),
                               expected_status=[JobStatus.CREATED], expected_run=0)
    assert claimed.run == 1
    with pytest.raises(ConditionFailedError,  # a second claim of the same run number
                       match="job job-a is in run 1, not 0"):
        job_store.update("job-a", JobUpdate(run=1), expected_run=0)
    job_store.update("job-a", JobUpdate(run=2), expected_run=1)  # a successor's claim
    with pytest.raises(ConditionFailedError):  # the zombie of run 1 cannot finish
        job_store.update("job-a", JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                            total_segments=3),
                         expected_status=[JobStatus.CHUNKING_IN_PROGRESS], expected_run=1)
    job = job_store.get("job-a")
    assert (job.run, job.status, job.total_segments) == (
        2, JobStatus.CHUNKING_IN_PROGRESS, None)


def test_concurrent_claims_of_one_run_let_exactly_one_through(job_store):
    job_store.create(make_job("job-a"))

    def claim() -> bool:
        try:
            job_store.update("job-a", JobUpdate(run=1), expected_run=0)
        except ConditionFailedError:
            return False
        return True
    assert sorted(run_concurrently(claim, 4)) == [False, False, False, True]


def test_update_of_unknown_job_raises_job_not_found(job_store):
    with pytest.raises(JobNotFoundError):
        job_store.update("nope", JobUpdate(status=JobStatus.FAILED))


def test_error_is_recorded_then_cleared(job_store):
    job_store.create(make_job("job-a"))
    error = JobError(code="invalid_media", message="not a video", stage="chunking")
    job_store.update("job-a", JobUpdate(status=JobStatus.FAILED, error=error))
    assert job_store.get("job-a").error.message == "not a video"
    job_store.update("job-a", JobUpdate(status=JobStatus.CREATED, clear_error=True))
    assert job_store.get("job-a").error is None


def test_list_by_status_is_newest_created_first_and_filters_status(job_store):
    for i, t in enumerate([10.0, 30.0, 20.0]):
        job_store.create(make_job(f"job-{i}", created_at=t))
    job_store.create(make_job("other", created_at=40.0, status=JobStatus.FAILED))
    page = job_store.list_by_status(JobStatus.CREATED)
    assert [j.job_id for j in page.items] == ["job-1", "job-2", "job-0"]
    assert page.next_cursor is None


def test_completed_jobs_are_listed_newest_completed_first(job_store):
    job_store.create(make_job("early", created_at=1.0, status=JobStatus.COMPLETED,
                              completed_at=50.0))
    job_store.create(make_job("late", created_at=2.0, status=JobStatus.COMPLETED,
                              completed_at=40.0))
    page = job_store.list_by_status(JobStatus.COMPLETED)
    assert [j.job_id for j in page.items] == ["early", "late"]


def test_status_change_moves_a_job_between_lists(job_store):
    job_store.create(make_job("job-a"))
    job_store.update("job-a", JobUpdate(status=JobStatus.COMPLETED, completed_at=99.0))
    assert job_store.list_by_status(JobStatus.CREATED).items == []
    assert [j.job_id for j in job_store.list_by_status(JobStatus.COMPLETED).items] == ["job-a"]


def test_cursor_pages_through_every_job_once_in_order(job_store):
    times = [float(t) for t in (5, 3, 9, 1, 7, 7, 2)]  # a tie on 7.0 too
    for i, t in enumerate(times):
        job_store.create(make_job(f"job-{i}", created_at=t))
    seen, cursor = [], None
    for _ in range(10):
        page = job_store.list_by_status(JobStatus.CREATED, limit=3, cursor=cursor)
        assert len(page.items) <= 3
        seen += page.items
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(j.job_id for j in seen) == sorted(f"job-{i}" for i in range(len(times)))
    created = [j.created_at for j in seen]
    assert created == sorted(created, reverse=True)


def test_list_in_progress_merges_statuses_newest_first(job_store):
    job_store.create(make_job("a", created_at=1.0, status=JobStatus.CREATED))
    job_store.create(make_job("b", created_at=4.0, status=JobStatus.CHUNKING_IN_PROGRESS))
    job_store.create(make_job("c", created_at=3.0, status=JobStatus.CHUNKING_COMPLETE))
    job_store.create(make_job("d", created_at=2.0, status=JobStatus.REASSEMBLING))
    job_store.create(make_job("e", created_at=9.0, status=JobStatus.COMPLETED, completed_at=9.5))
    job_store.create(make_job("f", created_at=8.0, status=JobStatus.FAILED))
    assert [j.job_id for j in job_store.list_in_progress()] == ["b", "c", "d", "a"]
    assert [j.job_id for j in job_store.list_in_progress(limit=2)] == ["b", "c"]


def test_delete_removes_the_job_and_is_idempotent(job_store):
    job_store.create(make_job("job-a"))
    job_store.delete("job-a")
    job_store.delete("job-a")
    assert job_store.get("job-a") is None
    assert job_store.list_by_status(JobStatus.CREATED).items == []


def test_a_held_job_and_its_clip_round_trip_and_list_by_status(job_store):
    held = make_job("held", status=JobStatus.AWAITING_CONFIRMATION)
    clip = make_job("clip").model_copy(update={
        "parent_job_id": "held", "clip_start_s": 12.5, "clip_duration_s": 10.0})
    job_store.create(held)
    job_store.create(clip)
    assert job_store.get("clip").model_dump() == clip.model_dump()
    assert [j.job_id for j in job_store.list_by_status(JobStatus.AWAITING_CONFIRMATION).items] \
        == ["held"]
    assert "held" in {j.job_id for j in job_store.list_in_progress()}


def test_confirming_a_held_job_sets_its_params_and_preview_fields(job_store):
    job_store.create(make_job("held", status=JobStatus.AWAITING_CONFIRMATION))
    job_store.update("held", JobUpdate(thumbnails=12, source_duration_s=3723.25,
                                       preview_job_id="clip"),
                     expected_status=[JobStatus.AWAITING_CONFIRMATION])
    chosen = ConversionParams(divergence=3.5, convergence=0.25)
    new = job_store.update("held", JobUpdate(status=JobStatus.CREATED, params=chosen),
                           expected_status=[JobStatus.AWAITING_CONFIRMATION])
    stored = job_store.get("held")
    assert new.model_dump() == stored.model_dump()
    assert (stored.status, stored.params, stored.thumbnails, stored.source_duration_s,
            stored.preview_job_id) == (JobStatus.CREATED, chosen, 12, 3723.25, "clip")
    with pytest.raises(ConditionFailedError):  # confirmed once: no second confirmation
        job_store.update("held", JobUpdate(params=chosen),
                         expected_status=[JobStatus.AWAITING_CONFIRMATION])


__all__ = [name for name in dir() if name.startswith("test_")] + ["make_job"]
