"""Chunking decisions that need no ffmpeg: what is ignored and what is refused early."""

from __future__ import annotations

import pytest
from shared_types import keys
from shared_types.models import JobStatus, JobUpdate, S3EventRecord
from stereo_media.errors import UnusableVideoError
from stereo_media.probe_limits import ProbeLimits

from media_worker.chunking import handle_source_uploaded
from media_worker.deps import MediaDeps


class NoFfmpeg:
    def run(self, *args, **kwargs):
        raise AssertionError("ffmpeg must not run here")


def deps_for(backend, tmp_path, max_bytes=10**9):
    return MediaDeps(backend=backend, runner=NoFfmpeg(),
                     limits=ProbeLimits(max_bytes, 3600, 8000, 8000), work_dir=tmp_path)


def record(backend, key):
    return S3EventRecord(bucket=backend.input_storage.bucket, key=key)


@pytest.mark.parametrize("status", [JobStatus.CHUNKING_COMPLETE, JobStatus.REASSEMBLING,
                                    JobStatus.COMPLETED, JobStatus.FAILED])
def test_a_replayed_upload_event_leaves_a_job_past_chunking_alone(
        mem_backend, new_job, tmp_path, status):
    job = new_job(mem_backend)
    mem_backend.jobs.update(job.job_id, JobUpdate(status=status, total_segments=2))
    mem_backend.input_storage.put_bytes(keys.source_key(job.job_id), b"whatever")

    assert handle_source_uploaded(record(mem_backend, keys.source_key(job.job_id)),
                                  deps_for(mem_backend, tmp_path)) is None
    assert mem_backend.jobs.get(job.job_id).status == status


def test_an_upload_for_an_unknown_job_is_removed(mem_backend, tmp_path):
    # a deleted job's upload form used late: the file must not stay forever
    key = keys.source_key("no-such-job")
    mem_backend.input_storage.put_bytes(key, b"x")
    assert handle_source_uploaded(record(mem_backend, key), deps_for(mem_backend, tmp_path)) \
        is None
    assert not mem_backend.input_storage.exists(key)


@pytest.mark.parametrize("key", ["input/j1/other.mp4", "segments/j1/00000_00001_sbs.mp4",
                                 "input/../source.mp4"])
def test_keys_that_are_not_a_source_upload_are_ignored(mem_backend, tmp_path, key):
    assert handle_source_uploaded(record(mem_backend, key), deps_for(mem_backend, tmp_path)) \
        is None


def test_an_event_from_another_bucket_is_ignored(mem_backend, new_job, tmp_path):
    job = new_job(mem_backend)
    foreign = S3EventRecord(bucket="someone-elses", key=keys.source_key(job.job_id))
    assert handle_source_uploaded(foreign, deps_for(mem_backend, tmp_path)) is None
    assert mem_backend.jobs.get(job.job_id).status == JobStatus.CREATED


def test_a_source_over_the_size_limit_is_refused_before_download(mem_backend, new_job, tmp_path):
    job = new_job(mem_backend)
    mem_backend.input_storage.put_bytes(keys.source_key(job.job_id), b"x" * 2048)

    with pytest.raises(UnusableVideoError, match="too large"):
        handle_source_uploaded(record(mem_backend, keys.source_key(job.job_id)),
                               deps_for(mem_backend, tmp_path, max_bytes=1024))
    assert not list(tmp_path.iterdir())


def test_a_source_that_vanished_is_refused_with_a_reason(mem_backend, new_job, tmp_path):
    job = new_job(mem_backend)
    with pytest.raises(UnusableVideoError, match="could not be found"):
        handle_source_uploaded(record(mem_backend, keys.source_key(job.job_id)),
                               deps_for(mem_backend, tmp_path))


def test_a_second_different_upload_during_chunking_is_ignored(mem_backend, new_job, tmp_path):
    job = new_job(mem_backend)
    mem_backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS,
                                                  source_etag="etag-of-the-first-upload"))
    mem_backend.input_storage.put_bytes(keys.source_key(job.job_id), b"another video")
    before = mem_backend.jobs.get(job.job_id)
    assert handle_source_uploaded(record(mem_backend, keys.source_key(job.job_id)),
                                  deps_for(mem_backend, tmp_path)) is None
    after = mem_backend.jobs.get(job.job_id)
    assert (after.status, after.source_etag, after.updated_at) == (
        before.status, "etag-of-the-first-upload", before.updated_at)


def test_the_same_upload_redelivered_during_chunking_is_chunked_again(
        mem_backend, new_job, tmp_path):
    # negative control: the first upload's own event (same etag) goes on to the probe
    job = new_job(mem_backend)
    info = mem_backend.input_storage.put_bytes(keys.source_key(job.job_id), b"not a video")
    mem_backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS,
                                                  source_etag=info.etag))
    with pytest.raises(UnusableVideoError):
        handle_source_uploaded(record(mem_backend, keys.source_key(job.job_id)),
                               deps_for(mem_backend, tmp_path))


def test_a_source_replaced_between_claim_and_download_fails_with_a_reason(
        mem_backend, new_job, tmp_path):
    from media_worker.errors import SourceReplacedError

    job = new_job(mem_backend)
    key = keys.source_key(job.job_id)
    mem_backend.input_storage.put_bytes(key, b"first")
    storage = mem_backend.input_storage
    real_get = storage.get_file

    def replaced_then_read(k, path):
        storage.put_bytes(k, b"second, a different video")  # the URL used again meanwhile
        return real_get(k, path)

    storage.get_file = replaced_then_read
    with pytest.raises(SourceReplacedError, match="replaced by another upload"):
        handle_source_uploaded(record(mem_backend, key), deps_for(mem_backend, tmp_path))
