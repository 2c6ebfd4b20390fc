"""A job cancelled while media-worker works on it: what was written is freed."""

from __future__ import annotations

from shared_types import keys
from shared_types.cancel import cancel_job
from shared_types.models import JobStatus
from stereo_media.testing.media import make_video


def test_segments_written_after_a_cancel_are_freed(local_backend, new_job, upload, worker_for,
                                                   tmp_path):
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=4))
    storage = local_backend.input_storage
    original = storage.put_file

    def put_then_cancel(key, path, **kw):
        info = original(key, path, **kw)
        if key.startswith(keys.segment_prefix(job.job_id)) and \
                local_backend.jobs.get(job.job_id).status != JobStatus.CANCELLED:
            cancel_job(local_backend, local_backend.jobs.get(job.job_id))  # the person cancels
        return info

    storage.put_file = put_then_cancel
    worker_for(local_backend).process_chunking_once(wait_s=1)

    assert local_backend.jobs.get(job.job_id).status == JobStatus.CANCELLED
    assert list(storage.list(keys.segment_prefix(job.job_id))) == []
    assert not storage.exists(keys.source_key(job.job_id))
    assert [o.key for o in local_backend.output_storage.list(keys.output_prefix(job.job_id))] \
        == [keys.poster_key(job.job_id)]


def test_a_source_uploaded_after_a_cancel_is_freed(local_backend, new_job, upload, worker_for,
                                                   tmp_path):
    # the page's upload form was handed out before the person pressed Cancel; the
    # storage takes the POST (its signature is still good) and the event follows
    job = new_job(local_backend)
    cancel_job(local_backend, job)
    upload(local_backend, job.job_id, make_video(tmp_path / "late.mp4", seconds=2))
    storage = local_backend.input_storage
    assert storage.exists(keys.source_key(job.job_id))

    assert worker_for(local_backend).process_chunking_once(wait_s=1)

    assert local_backend.jobs.get(job.job_id).status == JobStatus.CANCELLED
    assert not storage.exists(keys.source_key(job.job_id))
    stats = local_backend.chunking_queue.stats()
    assert stats.visible + stats.in_flight + stats.dead_letters == 0
