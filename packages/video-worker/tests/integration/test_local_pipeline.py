"""The worker on the real local backend (SQLite + folders) with the real engine."""

import av
from shared_types.keys import segment_key
from shared_types.models import JobStatus, JobUpdate, OutputMode, SegmentState
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from stereo_media.testing.media import make_video

from video_worker import testing as h
from video_worker.bootstrap import build_worker


def upload_segments(backend, tmp_path, job_id, total, mode=OutputMode.HALF_SBS):
    for i in range(total):
        clip = make_video(tmp_path / f"seg{i}.mp4", seconds=1.0, size=(160, 96), fps=24)
        backend.input_storage.put_file(segment_key(job_id, i, total, mode), clip)


def drain(worker):
    while worker.process_inference_once() or worker.process_segment_output_once():
        pass


def test_segments_flow_from_upload_events_to_one_reassembly_message(settings, local_backend,
                                                                    tmp_path):
    backend = local_backend
    h.make_job(backend, "job-a", status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    upload_segments(backend, tmp_path, "job-a", 2)  # the storage raises the S3 events
    backend.jobs.update("job-a", JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=2))
    trigger_reassembly_if_ready(backend, "job-a")  # what media-worker does: nothing ready yet
    worker = build_worker(settings, backend)
    drain(worker)
    assert [c.segment_index for c in backend.completions.list("job-a")] == [0, 1]
    assert all(s.state == SegmentState.COMPLETE for s in backend.segment_status.list("job-a"))
    [msg] = backend.reassembly_queue.receive(max_messages=5)
    assert msg.body == '{"job_id":"job-a"}'
    out = tmp_path / "out.mp4"
    backend.output_storage.get_file("jobs/job-a/segments/1.mp4", out)
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(stream))
        assert (stream.codec_context.width, stream.codec_context.height) == (160, 96)
    assert frames == 24
    # a replayed upload event is acknowledged without converting again
    backend.input_storage.put_file(segment_key("job-a", 0, 2, OutputMode.HALF_SBS),
                                   tmp_path / "seg0.mp4")
    drain(worker)
    assert backend.segment_status.get("job-a", 0).attempts == 1
    assert backend.reassembly_queue.receive(max_messages=5) == []


def test_a_segment_that_is_not_a_video_fails_the_job_with_a_reason(settings, local_backend):
    backend = local_backend
    h.make_job(backend, "job-b", total=1)
    backend.input_storage.put_bytes(segment_key("job-b", 0, 1, OutputMode.ANAGLYPH),
                                    b"this is text, not a video")
    worker = build_worker(settings, backend)
    assert worker.process_inference_once()
    job = backend.jobs.get("job-b")
    assert job.status == JobStatus.FAILED
    assert job.error.stage == "inference"
    assert backend.segment_status.get("job-b", 0).state == SegmentState.FAILED
    stats = backend.video_queue.stats()
    assert (stats.visible, stats.in_flight, stats.dead_letters) == (0, 0, 0)  # acknowledged
