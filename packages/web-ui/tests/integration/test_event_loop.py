"""SSE store reads run off the event loop: a stream stuck in a slow store call
does not stop the server from answering other requests."""

from __future__ import annotations

import dataclasses
import threading

import httpx
from shared_types.models import Job, JobStatus, OutputMode, new_job_id
from shared_types.testing.memory import MemoryJobStore, memory_backend
from shared_types.testing.serving import serve_in_thread

from web_ui.app import create_app
from web_ui.settings import WebSettings


class BlockingJobStore(MemoryJobStore):
    """get() blocks until released, like a store that hangs on the network."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def get(self, job_id):
        self.entered.set()
        self.release.wait(timeout=30)
        return super().get(job_id)


def test_a_blocked_store_call_in_a_stream_does_not_block_other_requests(tmp_path):
    jobs = BlockingJobStore()
    backend = dataclasses.replace(memory_backend(), jobs=jobs)
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.COMPLETED)
    jobs.create(job)
    app = create_app(WebSettings(data_dir=tmp_path, serve_storage=False, sse_poll_s=0.01),
                     backend)
    stream_text: list[str] = []
    with serve_in_thread(app) as base:
        def read_stream():
            with httpx.Client(timeout=30) as c:
                stream_text.append(c.get(f"{base}/jobs/{job.job_id}/events").text)

        reader = threading.Thread(target=read_stream)
        reader.start()
        try:
            assert jobs.entered.wait(timeout=20), "the stream never read the store"
            # The stream's store call is still blocked; the loop must stay free.
            health = httpx.get(f"{base}/healthz", timeout=10)
            assert health.json() == {"status": "ok"}
            assert not jobs.release.is_set()
        finally:
            jobs.release.set()
            reader.join(timeout=20)
    assert "event: done" in stream_text[0]
