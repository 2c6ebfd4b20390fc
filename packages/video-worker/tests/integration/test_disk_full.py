"""A video-worker whose work folder fills up while the engine writes a segment
(a real tmpfs, the real engine in-process): the step is retried with backoff,
then the job fails ``disk_full`` at ``inference`` with a sentence that names the
folder; nothing is left in the folder, and the segment is not marked failed
for its input (Retry converts it again once space is freed)."""

from shared_types.keys import segment_key
from shared_types.models import JobStatus, OutputMode, SegmentState
from shared_types.testing.disk import entries, fill, small_disk
from stereo_media.testing.media import make_video

from video_worker import testing as h
from video_worker.bootstrap import build_worker

from .test_permanent_failures import MAX_ATTEMPTS, attempt_until_settled, worker_settings


def test_a_segment_whose_output_fills_the_work_folder_fails_the_job_as_disk_full(tmp_path):
    with small_disk(tmp_path / "disk", 2 * 1024 * 1024) as disk:
        settings = worker_settings(tmp_path).model_copy(update={"work_dir": disk / "work"})
        from local_adapters import build_backend

        backend = build_backend(settings)
        h.make_job(backend, "job-p", total=1, depth_model="heuristic")
        clip = make_video(tmp_path / "clip.mp4", seconds=2, size=(320, 192), fps=24)
        backend.input_storage.put_file(segment_key("job-p", 0, 1, OutputMode.HALF_SBS), clip)
        fill(disk, leave_bytes=int(1.3 * clip.stat().st_size))  # the copy fits, not the output

        attempts = attempt_until_settled(build_worker(settings, backend))

        job = backend.jobs.get("job-p")
        assert attempts == MAX_ATTEMPTS  # retried, then given up: no storm
        assert job.status == JobStatus.FAILED
        assert (job.error.code, job.error.stage) == ("disk_full", "inference")
        assert f"no space was left in {disk / 'work'}" in job.error.message
        assert entries(disk / "work") == []  # no vw-* folder, no partial output
        assert backend.segment_status.get("job-p", 0).state == SegmentState.PENDING
