"""The lifecycle state machine (local_stack.testing.lifecycle_machine) on the memory
backend: random adversarial runs, plus the hardest moves replayed as fixed scenarios."""

from shared_types.models import JobStatus

from local_stack.testing.lifecycle_machine import (
    FirstChoice,
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


