"""The lifecycle state machine (local_stack.testing.lifecycle_machine) on the memory
backend: random adversarial runs, plus the hardest moves replayed as fixed scenarios."""

import pytest
from shared_types.models import JobStatus
from shared_types.runs import STALE_RUN_WRITES, run_completions

from local_stack.testing.lifecycle_machine import (
    LATE_ZOMBIE_CHUNKER,
    STUCK_S,
    FirstChoice,
    Pipeline,
    PipelineWithEnding,
    property_test,
    replay,
)

test_every_job_ends_terminal_and_correct_under_an_adversary = property_test(
    PipelineWithEnding, examples=30, steps=30)


# The hardest moves, replayed as fixed scenarios (the random search finds them only
# sometimes).

def test_a_trigger_whose_send_is_lost_still_ends_completed():
    jobs = replay(("upload", 1), ("deliver", "chunking"), ("deliver", "video-worker"),
                  ("fail_the_next_sends", "reassembly", 1), ("deliver", "segment-output"))
    assert jobs["job-0"].status == JobStatus.COMPLETED


def test_a_reassembler_killed_mid_join_is_replaced():
    jobs = replay(("upload", 2), ("deliver", "chunking"), ("deliver", "video-worker"),
                  ("deliver", "video-worker"), ("deliver", "segment-output"),
                  ("deliver", "segment-output"), ("crash_the_reassembler_mid_join",))
    assert jobs["job-0"].status == JobStatus.COMPLETED


def test_a_retry_whose_sends_fail_is_not_stranded():
    jobs = replay(("upload", 2), ("deliver", "chunking"), ("deliver", "video-worker"),
                  ("deliver", "segment-output"), ("fail_a_job",),
                  ("fail_the_next_sends", "video-worker", 2), ("press_retry", FirstChoice()))
    job = jobs["job-0"]
    assert job.epoch == 1  # Retry ran, its send failed, the sweep picked the job up
    assert job.status == JobStatus.COMPLETED




def test_a_zombie_chunker_writing_late_without_a_check_is_never_joined():
    stale = STALE_RUN_WRITES.count()
    jobs = replay(*LATE_ZOMBIE_CHUNKER)
    job = jobs["job-0"]
    assert (job.status, job.run) == (JobStatus.COMPLETED, 2)  # the final holds run 2 only
    assert STALE_RUN_WRITES.count("inference") - stale >= 2  # run 1's segments refused


def test_a_zombie_chunker_that_checks_stops_before_its_first_write():
    stale = STALE_RUN_WRITES.count()
    jobs = replay(("upload", 1), ("stall_a_chunker",), ("let_time_pass", STUCK_S + 1),
                  ("deliver", "chunking"), ("wake_a_stalled_chunker", True))
    assert jobs["job-0"].status == JobStatus.COMPLETED
    assert STALE_RUN_WRITES.count() == stale  # it stopped: nothing of run 1 was written


def test_a_zombie_converters_late_output_of_an_old_run_is_refused():
    stale = STALE_RUN_WRITES.count("segment_output")
    jobs = replay(("upload", 1), ("stall_a_chunker",), ("let_time_pass", STUCK_S + 1),
                  ("deliver", "chunking"), ("wake_a_stalled_chunker", False),
                  ("deliver", "video-worker"), ("stall_a_converter",),
                  ("wake_a_stalled_converter", False))
    assert (jobs["job-0"].status, jobs["job-0"].run) == (JobStatus.COMPLETED, 2)
    assert STALE_RUN_WRITES.count("segment_output") - stale >= 1


def test_negative_control_the_invariant_sees_a_late_write_that_landed():
    machine = Pipeline()  # no ending checks: the run is broken on purpose
    machine.start(None)
    try:
        machine.upload(1)
        machine.deliver("chunking")
        machine.deliver("video-worker")
        machine.deliver("segment-output")
        job = machine.backend.jobs.get("job-0")
        [completion] = run_completions(machine.backend, job)
        # what an old run's converter would do if outputs did not carry the run
        machine.backend.output_storage.put_bytes(completion.output_key, b"[zombie]")
        with pytest.raises(AssertionError):
            machine.no_late_write_of_a_lost_run_is_joined()
    finally:
        machine.teardown()


def test_a_job_cancelled_mid_conversion_ends_cancelled_by_moves_the_table_lists():
    jobs = replay(("upload", 2), ("deliver", "chunking"), ("deliver", "video-worker"),
                  ("press_cancel", FirstChoice()), ("deliver", "video-worker"),
                  ("deliver", "segment-output"), ("janitor",))
    assert jobs["job-0"].status == JobStatus.CANCELLED


def test_negative_control_a_status_write_around_the_transitions_breaks_the_machine():
    from shared_types.models import JobUpdate

    machine = Pipeline()
    machine.start(None)
    try:
        machine.upload(1)
        machine.every_status_change_is_one_the_lifecycle_lists()
        machine.backend.jobs.update("job-0", JobUpdate(status=JobStatus.COMPLETED))
        with pytest.raises(AssertionError):
            machine.every_status_change_is_one_the_lifecycle_lists()
    finally:
        machine.teardown()
