import pytest

from shared_types.models import Job, JobStatus, OutputMode, SegmentCompletion, SegmentState
from shared_types.progress import merge_cells, percent_for, read_segments, segment_cells
from shared_types.testing.memory import memory_backend


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


def test_a_job_without_a_total_has_no_segments_to_show():
    backend = memory_backend()
    job = Job(job_id="j", mode=OutputMode.SBS, status=JobStatus.CHUNKING_IN_PROGRESS)
    backend.completions.put(SegmentCompletion(job_id="j", segment_index=0, output_key="k"))
    tally = read_segments(backend, job)
    assert (tally.total, tally.done, tally.cells()) == (None, frozenset(), [])


def test_a_failed_segment_that_later_completed_counts_as_done_not_failed():
    backend = memory_backend()
    job = Job(job_id="j", mode=OutputMode.SBS, status=JobStatus.CHUNKING_COMPLETE,
              total_segments=3)
    backend.segment_status.mark_failed("j", 0, "boom")
    backend.segment_status.mark_failed("j", 1, "boom")
    backend.completions.put(SegmentCompletion(job_id="j", segment_index=1, output_key="k"))
    tally = read_segments(backend, job)
    assert tally.done == {1}
    assert tally.failed == 1
    assert tally.cells() == ["failed", "done", "pending"]
