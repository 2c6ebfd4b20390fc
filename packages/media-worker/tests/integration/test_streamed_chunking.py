"""A job's first chunking run hands each segment to the video-workers as soon as
it is cut; a split that goes off its plan never completes that run and is
chunked again, whole."""

from __future__ import annotations

import dataclasses

import av
import pytest
from shared_types import keys
from shared_types.models import JobStatus, S3EventRecord
from stereo_media.testing.media import make_video
from stereo_media.testing.timing import frame_times, make_paused_video

from media_worker import chunking
from media_worker.chunking import handle_source_uploaded
from media_worker.errors import SplitOffPlanError

from .conftest import measure


def _record(backend, job_id):
    return S3EventRecord(bucket=backend.input_storage.bucket, key=keys.source_key(job_id))


def _reassembled(backend, worker, job_id, tmp_path):
    """The job's final video, once reassembly has run and the job completed."""
    assert worker.process_reassembly_once(wait_s=1)
    done = backend.jobs.get(job_id)
    assert done.status == JobStatus.COMPLETED, done.error
    final = tmp_path / "final.mp4"
    backend.output_storage.get_file(done.final_key, final)
    return final


def _real_time_split(local_backend, deps):
    """``deps`` whose split reads its source at its own pace (8 s of video: >= 8 s)
    and that note, as each segment is uploaded, which segment files had been begun."""
    runner, storage = deps.runner, local_backend.input_storage
    begun_when_published = {}

    class RealTime(type(runner)):
        def run(self, args, **kwargs):
            if "segment" in args:
                args = ["-readrate", "1", *args]
            return super().run(args, **kwargs)

    class Watching:
        def __getattr__(self, name):
            return getattr(storage, name)

        def put_file(self, key, path, **kwargs):
            if (parsed := keys.parse_segment_key(storage.bucket, key)) is not None:
                begun_when_published[parsed.segment_index] = sorted(
                    p.name for p in path.parent.glob("0*.mp4"))
                job = local_backend.jobs.get(parsed.job_id)  # the count, shown as progress
                assert (job.status, job.total_segments) == (
                    JobStatus.CHUNKING_IN_PROGRESS, parsed.total_segments)
            return storage.put_file(key, path, **kwargs)

    return dataclasses.replace(
        deps, runner=RealTime(runner.binary, timeout_s=runner.timeout_s, tick_s=0.05),
        backend=dataclasses.replace(local_backend, input_storage=Watching())
    ), begun_when_published


@pytest.mark.parametrize("gop", [None, 1000], ids=["keyframes", "re-encoded"])
def test_the_first_segments_are_handed_on_while_the_rest_is_still_being_cut(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path, gop):
    # gop 1000: one keyframe in all, so the split re-encodes on the way
    source = make_video(tmp_path / "s.mp4", seconds=8, gop=gop, audio=False)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    worker = worker_for(local_backend)
    deps, begun_when_published = _real_time_split(local_backend, worker.deps)

    total = handle_source_uploaded(_record(local_backend, job.job_id), deps)

    assert total == 4  # 2 s segments
    assert sorted(begun_when_published) == [0, 1, 2, 3]
    # segment 0 went out while the split had not yet begun the last segment
    assert "00003.mp4" not in begun_when_published[0], begun_when_published
    assert convert_segments(local_backend) == 4
    final = _reassembled(local_backend, worker, job.job_id, tmp_path)
    assert measure(final).frames == measure(source).frames


def test_the_side_streams_are_copied_once_the_first_segment_is_out(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path, monkeypatch):
    # the copy's own ffmpeg would share the cores with the split's before the
    # first conversion can begin
    source = make_video(tmp_path / "s.mp4", seconds=6, audio=True)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    worker = worker_for(local_backend)
    out_when_copied = []
    keep = chunking.keep_side_streams

    def watched(*args, **kwargs):
        out_when_copied.append(sorted(
            o.key for o in local_backend.input_storage.list(keys.segment_prefix(job.job_id))))
        return keep(*args, **kwargs)

    monkeypatch.setattr(chunking, "keep_side_streams", watched)

    assert handle_source_uploaded(_record(local_backend, job.job_id), worker.deps) == 3
    assert len(out_when_copied) == 1 and len(out_when_copied[0]) >= 1
    assert "00000_00003" in out_when_copied[0][0]
    assert convert_segments(local_backend) == 3
    final = _reassembled(local_backend, worker, job.job_id, tmp_path)
    with av.open(str(final)) as container:  # the side file still came before the last segment
        assert container.streams.audio


def test_a_split_off_its_plan_never_completes_its_run_and_is_chunked_again_whole(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path, monkeypatch):
    source = make_video(tmp_path / "s.mp4", seconds=6)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    worker = worker_for(local_backend)
    planned = chunking.planned_cuts
    # one cut too many (after the end): the plan says 4 segments, the split cuts 3
    monkeypatch.setattr(chunking, "planned_cuts",
                        lambda info, length: [*planned(info, length), 60.0])

    with pytest.raises(SplitOffPlanError, match="cut 3 segments where 4 were planned"):
        handle_source_uploaded(_record(local_backend, job.job_id), worker.deps)

    run_1 = [o.key for o in local_backend.input_storage.list(keys.segment_prefix(job.job_id))]
    assert run_1  # some went out while cutting...
    assert not any("00003_00004" in key for key in run_1)  # ...never the planned last one
    assert local_backend.jobs.get(job.job_id).status == JobStatus.CHUNKING_IN_PROGRESS

    # redelivered: the next run splits the whole source first, with the real count
    assert handle_source_uploaded(_record(local_backend, job.job_id), worker.deps) == 3
    job_after = local_backend.jobs.get(job.job_id)
    assert (job_after.status, job_after.run, job_after.total_segments) == (
        JobStatus.CHUNKING_COMPLETE, 2, 3)
    assert convert_segments(local_backend) >= 3
    final = _reassembled(local_backend, worker, job.job_id, tmp_path)
    assert measure(final).frames == measure(source).frames


def test_a_pause_in_a_source_re_encoded_on_the_way_is_kept_not_filled(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path):
    # one keyframe, and the picture paused 2 s at 1.5 s: re-encoded into the
    # segment muxer, whose constant rate would fill the pause with copies
    source = make_paused_video(tmp_path / "paused.mp4", seconds=5.0, flash_at=6.0, gop=1000)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    worker = worker_for(local_backend)

    assert handle_source_uploaded(_record(local_backend, job.job_id), worker.deps) >= 2
    assert convert_segments(local_backend) >= 2
    final = _reassembled(local_backend, worker, job.job_id, tmp_path)
    assert frame_times(final) == pytest.approx(frame_times(source), abs=0.001)
