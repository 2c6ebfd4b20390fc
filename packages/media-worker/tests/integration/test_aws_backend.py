"""The same worker on the AWS adapters (moto in-process): S3 events from real
bucket notifications drive chunking; reassembly writes final.mp4 to S3."""

from __future__ import annotations

import pytest
from shared_types import keys
from shared_types.models import JobStatus
from stereo_media.testing.media import make_video

from media_worker.bootstrap import build_worker
from media_worker.settings import MediaWorkerSettings

try:
    from aws_adapters.testing.moto_server import moto_server_url  # noqa: F401
except ImportError:  # without aws-adapters every test here skips
    pass


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


@pytest.fixture
def aws_server_settings(tmp_path, request):
    """The data plane on moto_server: ffmpeg reads presigned S3 URLs over HTTP,
    which in-process moto cannot answer."""
    pytest.importorskip("aws_adapters")
    from aws_adapters.provision import create_data_plane

    url = request.getfixturevalue("moto_server_url")
    base = MediaWorkerSettings(backend="aws", work_dir=tmp_path / "work", segment_seconds=2,
                               visibility_s=10, lease_s=10, sqs_wait_s=0, backoff_base_s=0.01,
                               aws_endpoint_url=url)
    provisioned = create_data_plane(base)
    return MediaWorkerSettings(**{**base.model_dump(), **provisioned.model_dump()})


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


def test_a_preview_then_the_whole_video_on_the_aws_adapters(
        aws_server_settings, upload, convert_segments, tmp_path):
    """The held job's strip in S3 and its fields in DynamoDB; the clip message on
    SQS cut from the parent's S3 source (read by ffmpeg over a presigned URL);
    then the whole video."""
    from shared_types.models import ConversionParams, Job, OutputMode, new_job_id
    from shared_types.preview import THUMBNAILS, convert_whole, start_clip

    worker = build_worker(aws_server_settings)
    backend = worker.deps.backend
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, status=JobStatus.AWAITING_CONFIRMATION)
    backend.jobs.create(job)
    upload(backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=6))
    while worker.process_chunking_once(wait_s=1):
        pass
    held = backend.jobs.get(job.job_id)
    assert (held.status, held.thumbnails) == (JobStatus.AWAITING_CONFIRMATION, THUMBNAILS)
    assert abs(held.source_duration_s - 6.0) < 0.2
    assert all(backend.output_storage.exists(keys.thumbnail_key(job.job_id, i))
               for i in range(THUMBNAILS))
    assert list(backend.input_storage.list(keys.segment_prefix(job.job_id))) == []

    params = ConversionParams(divergence=3.0)
    clip = start_clip(backend, held, 1.0, params, seconds=3.0)
    assert worker.process_chunking_once(wait_s=1)
    chunked = backend.jobs.get(clip.job_id)
    assert (chunked.status, chunked.clip_start_s) == (JobStatus.CHUNKING_COMPLETE, 1.0)
    assert convert_segments(backend) == chunked.total_segments >= 1
    assert worker.process_reassembly_once(wait_s=1)
    assert backend.jobs.get(clip.job_id).status == JobStatus.COMPLETED

    convert_whole(backend, backend.jobs.get(job.job_id), params)
    assert worker.process_chunking_once(wait_s=1)
    whole = backend.jobs.get(job.job_id)
    assert (whole.status, whole.params) == (JobStatus.CHUNKING_COMPLETE, params)
