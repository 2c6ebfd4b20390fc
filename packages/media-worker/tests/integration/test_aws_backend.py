"""The same worker on the AWS adapters (moto in-process): S3 events from real
bucket notifications drive chunking; reassembly writes final.mp4 to S3."""

from __future__ import annotations

import pytest
from shared_types import keys
from shared_types.models import JobStatus
from shared_types.testing.media import make_video

from media_worker.bootstrap import build_worker
from media_worker.settings import MediaWorkerSettings


@pytest.fixture
def aws_settings(tmp_path):
    pytest.importorskip("aws_adapters")
    moto = pytest.importorskip("moto")
    from aws_adapters.provision import create_data_plane

    with moto.mock_aws():
        base = MediaWorkerSettings(backend="aws", work_dir=tmp_path / "work", segment_seconds=2,
                                   visibility_s=10, lease_s=10, sqs_wait_s=0,
                                   backoff_base_s=0.01)
        provisioned = create_data_plane(base)
        yield MediaWorkerSettings(**{**base.model_dump(), **provisioned.model_dump()})


def test_a_video_is_chunked_and_reassembled_on_the_aws_adapters(
        aws_settings, new_job, upload, convert_segments, tmp_path):
    worker = build_worker(aws_settings)
    backend = worker.deps.backend
    job = new_job(backend)
    upload(backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=4))

    handled = 0
    while worker.process_chunking_once(wait_s=1):  # S3 sends an s3:TestEvent first
        handled += 1
    assert handled >= 1
    chunked = backend.jobs.get(job.job_id)
    assert chunked.status == JobStatus.CHUNKING_COMPLETE, chunked.error
    assert convert_segments(backend) == chunked.total_segments >= 2
    assert worker.process_reassembly_once(wait_s=1)

    done = backend.jobs.get(job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert backend.output_storage.head(keys.final_key(job.job_id)).size > 0
