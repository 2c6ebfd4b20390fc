"""MediaWorker: permanent failures fail the job (once, with a reason); transient
failures are redelivered and fail the job only on the last allowed attempt."""

from __future__ import annotations

from shared_types import keys
from shared_types.events import build_s3_event_body
from shared_types.models import JobStatus, JobUpdate, ReassemblyMessage, SegmentCompletion


def chunk_complete(backend, job_id, total=2):
    backend.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                          total_segments=total))


def test_a_permanent_reassembly_failure_fails_the_job_and_acks(
        mem_backend, new_job, worker_for):
    job = new_job(mem_backend)
    chunk_complete(mem_backend, job.job_id)
    lock = mem_backend.reassembly
    lock.complete(lock.take_lease(job.job_id, "gone:1:1", 60))  # done, but no final.mp4
    mem_backend.reassembly_queue.send(ReassemblyMessage(job_id=job.job_id).model_dump_json())
    worker = worker_for(mem_backend)

    assert worker.process_reassembly_once() is True

    failed = mem_backend.jobs.get(job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error.stage == "reassembly"
    assert failed.error.code == "final_missing"
    assert "missing" in failed.error.message
    stats = mem_backend.reassembly_queue.stats()
    assert stats.visible + stats.in_flight + stats.dead_letters == 0


def test_missing_segments_are_redelivered_then_fail_the_job_on_the_last_attempt(
        mem_backend, new_job, worker_for):
    job = new_job(mem_backend)
    chunk_complete(mem_backend, job.job_id)
    mem_backend.reassembly_queue.send(ReassemblyMessage(job_id=job.job_id).model_dump_json())
    worker = worker_for(mem_backend)
    worker.config.visibility_s = 0.01

    for _ in range(worker.config.max_attempts - 1):
        worker.process_reassembly_once(wait_s=1)
        assert mem_backend.jobs.get(job.job_id).status == JobStatus.CHUNKING_COMPLETE
    worker.process_reassembly_once(wait_s=1)

    failed = mem_backend.jobs.get(job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error.code == "retries_exhausted"
    assert "2 segments not complete" in failed.error.message


def test_a_malformed_chunking_message_is_dead_lettered_without_touching_jobs(
        mem_backend, new_job, worker_for):
    job = new_job(mem_backend)
    mem_backend.chunking_queue.send("this is not an S3 event")

    assert worker_for(mem_backend).process_chunking_once() is True
    assert mem_backend.chunking_queue.stats().dead_letters == 1
    assert mem_backend.jobs.get(job.job_id).status == JobStatus.CREATED


def test_one_unusable_source_in_a_message_fails_only_its_own_job(
        mem_backend, new_job, worker_for):
    bad, gone = new_job(mem_backend), new_job(mem_backend)
    mem_backend.jobs.update(gone.job_id, JobUpdate(status=JobStatus.COMPLETED))
    mem_backend.input_storage.put_bytes(keys.source_key(bad.job_id), b"")
    body = build_s3_event_body(mem_backend.input_storage.bucket, keys.source_key(bad.job_id),
                               size=0)
    mem_backend.chunking_queue.send(body)
    mem_backend.chunking_queue.send(build_s3_event_body(
        mem_backend.input_storage.bucket, keys.source_key(gone.job_id), size=0))
    worker = worker_for(mem_backend)

    assert worker.process_chunking_once()
    assert worker.process_chunking_once()

    failed = mem_backend.jobs.get(bad.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error.stage == "chunking"
    assert failed.error.message == "The file is empty (0 bytes); please upload the video again."
    assert mem_backend.jobs.get(gone.job_id).status == JobStatus.COMPLETED


def test_a_duplicate_that_keeps_finding_the_lease_busy_never_fails_the_job(
        mem_backend, new_job, worker_for):
    job = new_job(mem_backend)
    chunk_complete(mem_backend, job.job_id, total=1)
    out = keys.output_segment_key(job.job_id, 0)
    mem_backend.output_storage.put_bytes(out, b"x")
    mem_backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=0,
                                                  output_key=out))
    mem_backend.reassembly.take_lease(job.job_id, "busy-elsewhere:1:1", 600)
    mem_backend.reassembly_queue.send(ReassemblyMessage(job_id=job.job_id).model_dump_json())
    worker = worker_for(mem_backend)
    worker.config.visibility_s = 0.01

    for _ in range(worker.config.max_attempts + 1):
        worker.process_reassembly_once(wait_s=1)

    assert mem_backend.jobs.get(job.job_id).status == JobStatus.CHUNKING_COMPLETE
    assert mem_backend.reassembly_queue.stats().dead_letters == 1
