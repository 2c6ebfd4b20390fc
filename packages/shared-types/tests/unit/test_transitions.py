import pytest

from shared_types import transitions
from shared_types.errors import ConditionFailedError
from shared_types.models import Job, JobError, JobStatus, JobUpdate, OutputMode
from shared_types.testing.memory import memory_backend

S = JobStatus


def seeded(status=S.CREATED, **fields):
    jobs = memory_backend().jobs
    jobs.create(Job(job_id="j", mode=OutputMode.SBS, status=status, **fields))
    return jobs


def test_a_job_is_created_only_in_an_initial_status():
    jobs = memory_backend().jobs
    transitions.create_job(jobs, Job(job_id="a", mode=OutputMode.SBS))
    transitions.create_job(jobs, Job(job_id="b", mode=OutputMode.SBS,
                                     status=S.AWAITING_CONFIRMATION))
    with pytest.raises(transitions.IllegalTransitionError):
        transitions.create_job(jobs, Job(job_id="c", mode=OutputMode.SBS, status=S.COMPLETED))
    assert jobs.get("c") is None


def test_a_claim_takes_the_next_run_and_fences_out_the_previous_one():
    jobs = seeded()
    job = jobs.get("j")
    claimed = transitions.claim_chunking(jobs, job, JobUpdate(source_etag="e"))
    assert (claimed.status, claimed.run, claimed.source_etag) == (S.CHUNKING_IN_PROGRESS, 1, "e")
    with pytest.raises(ConditionFailedError):  # the same read claims again: run moved on
        transitions.claim_chunking(jobs, job, JobUpdate())
    successor = transitions.claim_chunking(jobs, claimed, JobUpdate())
    assert successor.run == 2
    with pytest.raises(ConditionFailedError):
        transitions.finish_chunking(jobs, "j", run=1, total_segments=3)
    done = transitions.finish_chunking(jobs, "j", run=2, total_segments=3)
    assert (done.status, done.total_segments) == (S.CHUNKING_COMPLETE, 3)


def test_reassembly_starts_and_completes_the_job():
    jobs = seeded(S.CHUNKING_COMPLETE)
    assert transitions.start_reassembly(jobs, "j").status == S.REASSEMBLING
    done = transitions.complete_job(jobs, "j", final_key="jobs/j/final.mp4")
    assert (done.status, done.final_key) == (S.COMPLETED, "jobs/j/final.mp4")
    assert done.completed_at is not None
    with pytest.raises(ConditionFailedError):
        transitions.fail_job_now(jobs, "j", JobError(code="x", message="x", stage="s"))


def test_retry_reopens_only_a_failed_job_and_bumps_the_epoch():
    jobs = seeded(S.FAILED, error=JobError(code="stalled", message="m", stage="s"))
    reopened = transitions.reopen_failed(jobs, jobs.get("j"), S.CHUNKING_COMPLETE)
    assert (reopened.status, reopened.error, reopened.epoch) == (S.CHUNKING_COMPLETE, None, 1)
    with pytest.raises(ConditionFailedError):
        transitions.reopen_failed(jobs, reopened, S.CREATED)


def test_negative_control_a_move_the_table_does_not_list_writes_nothing():
    jobs = seeded(S.FAILED)
    with pytest.raises(transitions.IllegalTransitionError):
        transitions.reopen_failed(jobs, jobs.get("j"), S.COMPLETED)
    assert jobs.get("j").status == S.FAILED


def test_a_hold_is_confirmed_into_created_with_the_chosen_params():
    jobs = seeded(S.AWAITING_CONFIRMATION)
    params = jobs.get("j").params.model_copy(update={"divergence": 3.0})
    confirmed = transitions.confirm_hold(jobs, "j", params)
    assert (confirmed.status, confirmed.params.divergence) == (S.CREATED, 3.0)


def test_cancel_ends_any_job_that_has_not_ended():
    jobs = seeded(S.CHUNKING_IN_PROGRESS)
    assert transitions.cancel_job_now(jobs, "j").status == S.CANCELLED
    with pytest.raises(ConditionFailedError):
        transitions.cancel_job_now(jobs, "j")


def test_record_writes_fields_only_while_the_job_stays_in_a_status():
    jobs = seeded(S.CHUNKING_IN_PROGRESS, run=1)
    assert transitions.record(jobs, "j", JobUpdate(title="t"), while_in=[S.CHUNKING_IN_PROGRESS],
                              run=1).title == "t"
    with pytest.raises(ConditionFailedError):
        transitions.record(jobs, "j", JobUpdate(title="u"), while_in=[S.CREATED])
    with pytest.raises(transitions.IllegalTransitionError):
        transitions.record(jobs, "j", JobUpdate(status=S.COMPLETED))
    assert jobs.get("j").status == S.CHUNKING_IN_PROGRESS
