"""A job with an imported depth video is chunked into one segment: the depth
video follows the whole source frame for frame."""

from __future__ import annotations

from shared_types import keys
from shared_types.models import S3EventRecord
from stereo_media.testing.media import make_video

from media_worker.chunking import handle_source_uploaded


def test_an_imported_depth_video_makes_one_segment(local_backend, new_job, upload, worker_for,
                                                   tmp_path):
    source = make_video(tmp_path / "s.mp4", seconds=6, audio=False)
    plain, imported = new_job(local_backend), new_job(local_backend)
    local_backend.input_storage.put_bytes(keys.depth_video_key(imported.job_id), b"depth")
    deps = worker_for(local_backend).deps
    counts = []
    for job in (plain, imported):
        upload(local_backend, job.job_id, source)
        record = S3EventRecord(bucket=local_backend.input_storage.bucket,
                               key=keys.source_key(job.job_id))
        counts.append(handle_source_uploaded(record, deps))
    assert counts[0] > 1  # negative: without one, the source is cut as usual
    assert counts[1] == 1
