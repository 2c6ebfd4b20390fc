import threading

from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, SegmentCompletion
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from shared_types.testing.memory import memory_backend


def job_with_segments(backend, *, total, done, status=JobStatus.CHUNKING_COMPLETE):
    backend.jobs.create(Job(job_id="j1", mode=OutputMode.SBS))
    backend.jobs.update("j1", JobUpdate(status=status, total_segments=total))
    for i in range(done):
        backend.completions.put(
            SegmentCompletion(job_id="j1", segment_index=i, output_key=f"jobs/j1/segments/{i}.mp4"))


def test_nothing_is_sent_before_every_segment_is_complete():
    b = memory_backend()
    job_with_segments(b, total=3, done=2)
    assert trigger_reassembly_if_ready(b, "j1") is False
    assert b.reassembly_queue.stats().visible == 0


def test_nothing_is_sent_while_chunking_is_still_running():
    b = memory_backend()
    job_with_segments(b, total=2, done=2, status=JobStatus.CHUNKING_IN_PROGRESS)
    assert trigger_reassembly_if_ready(b, "j1") is False


def test_concurrent_callers_send_exactly_one_message():
    b = memory_backend()
    job_with_segments(b, total=2, done=2)
    results = []
    threads = [threading.Thread(target=lambda: results.append(trigger_reassembly_if_ready(b, "j1")))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 1
    assert b.reassembly_queue.stats().visible == 1
