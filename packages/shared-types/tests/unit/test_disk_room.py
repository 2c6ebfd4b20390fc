"""What the jobs in progress may still write is counted against a new source."""

from shared_types import keys
from shared_types.disk_room import ROOM_FACTOR, room_reserved
from shared_types.models import JobStatus, JobUpdate
from shared_types.testing.contracts.job_store import make_job
from shared_types.testing.memory import memory_backend


def test_each_job_in_progress_reserves_its_share_less_what_it_wrote():
    backend = memory_backend()
    for job_id, size in (("a", 1000), ("b", 500), ("unknown", None), ("done", 9000)):
        backend.jobs.create(make_job(job_id, status=JobStatus.CHUNKING_IN_PROGRESS))
        if size:
            backend.jobs.update(job_id, JobUpdate(source_size_bytes=size))
    backend.jobs.update("done", JobUpdate(status=JobStatus.COMPLETED))
    backend.input_storage.put_bytes(keys.source_key("a"), b"x" * 1000)
    backend.output_storage.put_bytes(keys.output_segment_key("a", 0), b"x" * 200)
    backend.input_storage.put_bytes(keys.source_key("b"), b"x" * 5000)  # more than its share

    assert room_reserved(backend) == ROOM_FACTOR * 1000 - 1200  # b: never below 0
    assert room_reserved(backend, besides="a") == 0
