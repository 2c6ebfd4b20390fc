"""Shared fixtures: settings on a tmp folder, backends, jobs, and a stand-in for
the video-worker (copies each segment to its output key and records completion)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from shared_types import keys
from shared_types.events import build_s3_event_body, parse_s3_event_body
from shared_types.models import Job, OutputMode, SegmentCompletion, new_job_id
from shared_types.ports import Backend
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from shared_types.testing.memory import memory_backend

from media_worker.bootstrap import build_worker
from media_worker.settings import MediaWorkerSettings


@pytest.fixture
def settings(tmp_path: Path) -> MediaWorkerSettings:
    return MediaWorkerSettings(
        backend="local", data_dir=tmp_path / "data", work_dir=tmp_path / "work",
        segment_seconds=2, visibility_s=10, lease_s=10, backoff_base_s=0.01, sqs_wait_s=0,
    )


@pytest.fixture
def mem_backend() -> Backend:
    return memory_backend(max_receives=5)


@pytest.fixture
def local_backend(settings: MediaWorkerSettings) -> Backend:
    local_adapters = pytest.importorskip("local_adapters")
    return local_adapters.build_backend(settings)


@pytest.fixture
def new_job() -> Callable[..., Job]:
    def make(backend: Backend, mode: OutputMode = OutputMode.HALF_SBS) -> Job:
        job = Job(job_id=new_job_id(), mode=mode)
        backend.jobs.create(job)
        return job

    return make


def upload_source(backend: Backend, job_id: str, path: Path) -> None:
    """Put a source; a backend without notifications (memory) gets the event sent by hand."""
    key = keys.source_key(job_id)
    before = backend.chunking_queue.stats().visible
    info = backend.input_storage.put_file(key, path, content_type="video/mp4")
    if backend.chunking_queue.stats().visible == before:
        backend.chunking_queue.send(
            build_s3_event_body(backend.input_storage.bucket, key, size=info.size))


def fake_video_worker(backend: Backend) -> int:
    """Drain the video-worker queue: each segment becomes its own "converted" output."""
    done = 0
    while messages := backend.video_queue.receive(max_messages=10, visibility_s=30):
        for message in messages:
            for record in parse_s3_event_body(message.body):
                seg = keys.parse_segment_key(record.bucket, record.key)
                if seg is None:
                    continue
                out_key = keys.output_segment_key(seg.job_id, seg.segment_index, seg.run)
                backend.output_storage.put_bytes(out_key, backend.input_storage.get_bytes(seg.key))
                backend.completions.put(SegmentCompletion(
                    job_id=seg.job_id, segment_index=seg.segment_index, output_key=out_key,
                    total_segments=seg.total_segments, run=seg.run))
                trigger_reassembly_if_ready(backend, seg.job_id)
                done += 1
            backend.video_queue.delete(message)
    return done


@pytest.fixture
def upload() -> Callable[[Backend, str, Path], None]:
    return upload_source


@pytest.fixture
def convert_segments() -> Callable[[Backend], int]:
    return fake_video_worker


@pytest.fixture
def worker_for(settings: MediaWorkerSettings):
    def make(backend: Backend):
        return build_worker(settings, backend=backend)

    return make
