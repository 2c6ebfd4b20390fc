from shared_types import transitions
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode
from shared_types.testing.lifecycle_witness import WitnessedJobs
from shared_types.testing.memory import memory_backend

S = JobStatus


def test_moves_through_the_named_transitions_are_all_legal():
    jobs = WitnessedJobs(memory_backend().jobs)
    job = transitions.create_job(jobs, Job(job_id="j", mode=OutputMode.SBS))
    transitions.claim_chunking(jobs, job, JobUpdate())
    transitions.record(jobs, "j", JobUpdate(title="t"))
    transitions.finish_chunking(jobs, "j", run=1, total_segments=1)
    assert jobs.moves == [(None, S.CREATED), (S.CREATED, S.CHUNKING_IN_PROGRESS),
                          (S.CHUNKING_IN_PROGRESS, S.CHUNKING_COMPLETE)]
    assert jobs.illegal() == []


def test_negative_control_a_write_around_the_transitions_is_witnessed():
    jobs = WitnessedJobs(memory_backend().jobs)
    jobs.create(Job(job_id="j", mode=OutputMode.SBS, status=S.REASSEMBLING))
    jobs.update("j", JobUpdate(status=S.CREATED))
    assert jobs.illegal() == [(None, S.REASSEMBLING), (S.REASSEMBLING, S.CREATED)]
