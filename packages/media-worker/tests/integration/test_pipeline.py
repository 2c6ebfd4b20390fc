"""Split + concat with real ffmpeg on the local adapters: frame counts and audio/video
durations survive within one frame, for awkward sources too."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import av
import pytest
from shared_types import keys
from shared_types.errors import ConditionFailedError
from shared_types.job_failure import fail_job
from shared_types.models import (
    Container,
    ConversionParams,
    Job,
    JobStatus,
    JobUpdate,
    OutputMode,
    S3EventRecord,
    new_job_id,
)
from shared_types.runs import STALE_RUN_WRITES
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.captions import track_cues
from stereo_media.testing.media import (
    make_broadcast_recording,
    make_multiplex_recording,
    make_video,
)
from stereo_media.testing.timing import (
    beep_time,
    flash_time,
    frame_times,
    make_joined_recording,
    make_paused_video,
    make_raw_stream,
)

from media_worker.bootstrap import build_worker
from media_worker.chunking import handle_source_uploaded
from media_worker.deps import MediaDeps

from .conftest import REENCODED, measure


def run_pipeline(backend, worker, convert_segments, job_id):
    assert worker.process_chunking_once(wait_s=1)
    job = backend.jobs.get(job_id)
    assert job.status == JobStatus.CHUNKING_COMPLETE, job.error
    assert convert_segments(backend) == job.total_segments
    assert worker.process_reassembly_once(wait_s=1)
    return backend.jobs.get(job_id)


def segment_listing(backend, job_id):
    return {o.key: o.size for o in backend.input_storage.list(keys.segment_prefix(job_id))}


@pytest.mark.parametrize("fps", [24, "30000/1001"])
def test_every_frame_keeps_its_source_time_across_cuts_pauses_included(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path, fps):
    # the pause (1.5 s -> 3.5 s) falls between two 2 s segments' cuts
    source = make_paused_video(tmp_path / "paused.mp4", seconds=7.0, fps=fps, flash_at=7.5)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    assert done.total_segments >= 4
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    assert frame_times(final) == pytest.approx(frame_times(source), abs=0.001)
    assert flash_time(final) == pytest.approx(flash_time(source), abs=0.001)
    assert beep_time(final) == pytest.approx(beep_time(source), abs=0.001)


# Sources with no one timeline of their own: (source, frames, when its flash
# and beep play, how close)
OFF_TIMELINE = {
    # three recordings joined with cat; their clocks jump forwards, then
    # backwards; the flash and beep 2 parts of 3 s, then 1 s in
    "joined-recording": (lambda d: make_joined_recording(
        d / "joined.ts", clocks=(20.0, 200.0, 7.0), gop=25), 225, 7.0, 0.06),
    # no container and no timestamps; coded out of display order (B-frames);
    # at the 30 a second the stream states (FFmpeg's 25 would put it at 4.8 s)
    **{f"raw-{codec}": (lambda d, codec=codec: make_raw_stream(
        d / f"camera.{codec}", codec=codec, seconds=5.0, fps=30, flash_at=4.0,
        size=(96, 64)), 150, 4.0, 1.5 / 30) for codec in ("h264", "hevc")},
}


@pytest.mark.parametrize("kind", sorted(OFF_TIMELINE))
def test_a_source_off_one_timeline_is_converted_as_it_plays(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path, kind):
    make, frames, flash_at, close = OFF_TIMELINE[kind]
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make(tmp_path))

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    assert done.source_frames == frames and done.total_segments >= 2
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    times = frame_times(final)
    assert len(times) == frames and times == sorted(times)
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) < 0.08
    assert flash_time(final) == pytest.approx(flash_at, abs=close)
    if kind == "joined-recording":  # the raw streams carry no sound
        assert beep_time(final) == pytest.approx(flash_at, abs=close)


def test_split_and_concat_keep_every_frame_and_the_av_timeline(
        local_backend, new_job, upload, convert_segments, worker_for, source_video, tmp_path,
        caplog):
    kind, source = source_video
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    caplog.set_level("INFO")

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    assert done.status == JobStatus.COMPLETED
    assert done.final_key == keys.final_key(job.job_id)
    assert done.total_segments >= 2
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    before, after = measure(source), measure(final)
    one_frame = 1 / before.fps
    assert after.frames == before.frames
    assert after.size == before.size
    assert after.video_s == pytest.approx(before.video_s, abs=one_frame)
    assert after.audio_s == pytest.approx(before.audio_s, abs=one_frame)
    reencoded = "re-encoding once" in caplog.text
    assert reencoded == (kind in REENCODED)


def _starts(path) -> dict[str, float]:
    import av

    with av.open(str(path)) as container:
        return {s.type: float(s.start_time * s.time_base) for s in container.streams
                if s.type in ("video", "audio")}


def _with_a_tone(tmp_path: Path, name: str, *, seconds: float, picture_at: float,
                 sound_at: float, sound_s: float) -> Path:
    """A generated picture of ``seconds`` from ``picture_at`` and a tone of
    ``sound_s`` from ``sound_at`` (seconds), muxed into ``name``."""
    video = make_video(tmp_path / "video.mp4", seconds=seconds, audio=False)
    source = tmp_path / name
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error",
                    "-itsoffset", str(picture_at), "-i", str(video),
                    "-itsoffset", str(sound_at), "-f", "lavfi",
                    "-i", f"sine=frequency=300:duration={sound_s}",
                    "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "aac", str(source)],
                   check=True, timeout=60)
    return source


def _through_the_pipeline(source: Path, tmp_path: Path, local_backend, new_job, upload,
                          convert_segments, worker_for) -> Path:
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    return final


def _starts_kept(source: Path, tmp_path: Path, *fixtures) -> tuple[dict, dict]:
    """``_starts`` of ``source`` and of its final file, once it went through the
    pipeline with every frame kept (``fixtures``: ``_through_the_pipeline``'s)."""
    final = _through_the_pipeline(source, tmp_path, *fixtures)
    assert measure(final).frames == measure(source).frames
    return _starts(source), _starts(final)


def test_a_video_that_begins_after_its_audio_still_begins_there(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path):
    # the audio starts at 0, the picture at 1 s
    before, after = _starts_kept(
        _with_a_tone(tmp_path, "late-video.mp4", seconds=3, picture_at=1, sound_at=0, sound_s=4),
        tmp_path, local_backend, new_job, upload, convert_segments, worker_for)
    assert before["video"] - before["audio"] == pytest.approx(1.0, abs=0.01)
    assert after["video"] - after["audio"] == pytest.approx(1.0, abs=1 / 24)


def test_a_soundtrack_that_begins_after_the_picture_still_begins_there(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path):
    # the side file begins at its first stream, the audio: joined to the picture
    # from 0, the sound came 1 s early (the picture starts at 0, the audio at 1 s)
    before, after = _starts_kept(
        _with_a_tone(tmp_path, "late-audio.mp4", seconds=4, picture_at=0, sound_at=1, sound_s=2),
        tmp_path, local_backend, new_job, upload, convert_segments, worker_for)
    assert before["audio"] - before["video"] == pytest.approx(1.0, abs=0.03)
    assert after["audio"] - after["video"] == pytest.approx(before["audio"] - before["video"],
                                                            abs=0.002)


def _dispositions(path) -> list[tuple[str, str, int]]:
    with av.open(str(path)) as container:
        return [(s.type, s.metadata.get("language", ""), int(s.disposition) & 0xFF)
                for s in container.streams if s.type in ("audio", "subtitle")]


def test_a_subtitle_track_the_source_leaves_off_stays_off(
        local_backend, upload, convert_segments, worker_for, tmp_path):
    # two subtitle tracks, neither default (a forced one for the signs): copied
    # aside, ffmpeg marked the first one default, and players showed it by itself
    srt = tmp_path / "cues.srt"
    srt.write_text("1\n00:00:00,500 --> 00:00:01,500\nHello\n", encoding="utf-8")
    source = tmp_path / "film.mkv"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error",
                    "-i", str(make_video(tmp_path / "v.mp4", seconds=3, audio=True)),
                    "-i", str(srt), "-i", str(srt), "-map", "0:v", "-map", "0:a", "-map", "0:a",
                    "-map", "1:s", "-map", "2:s", "-c", "copy",
                    "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
                    "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=fra",
                    "-disposition:a:0", "default", "-disposition:a:1", "comment",
                    "-disposition:s:0", "0", "-disposition:s:1", "forced", str(source)],
                   check=True, timeout=60)
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS, container=Container.MKV)
    local_backend.jobs.create(job)
    upload(local_backend, job.job_id, source)

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    final = tmp_path / "final.mkv"
    local_backend.output_storage.get_file(done.final_key, final)
    assert _dispositions(source) == [("audio", "eng", 0x1), ("audio", "fra", 0x8),
                                     ("subtitle", "eng", 0), ("subtitle", "fra", 0x40)]
    assert _dispositions(final) == _dispositions(source)


def test_a_replayed_chunking_takes_a_new_run_with_the_same_segments(
        local_backend, new_job, upload, worker_for, tmp_path):
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=4))
    worker = worker_for(local_backend)
    deps: MediaDeps = worker.deps
    record = S3EventRecord(bucket=local_backend.input_storage.bucket,
                           key=keys.source_key(job.job_id))
    first = handle_source_uploaded(record, deps)
    listing = segment_listing(local_backend, job.job_id)
    # a crash before the final update: the event is redelivered to a job still chunking
    local_backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS))
    second = handle_source_uploaded(record, deps)
    # and a plain duplicate after chunking completed changes nothing
    third = handle_source_uploaded(record, deps)

    again = segment_listing(local_backend, job.job_id)
    assert first == second == len(listing) >= 2
    assert third is None
    assert all(key.startswith(f"segments/{job.job_id}/r1/") for key in listing)
    run_2 = {k: v for k, v in again.items() if k.startswith(f"segments/{job.job_id}/r2/")}
    assert {k.replace("/r1/", "/r2/"): v for k, v in listing.items()} == run_2
    job_after = local_backend.jobs.get(job.job_id)
    assert (job_after.status, job_after.total_segments, job_after.run) == (
        JobStatus.CHUNKING_COMPLETE, first, 2)


def test_chunking_sends_reassembly_when_every_segment_was_already_done(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path):
    """The race: all segments finished before total_segments was written."""
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=3))
    worker = worker_for(local_backend)
    jobs = local_backend.jobs

    class ConvertsFirst:  # every segment is converted just before chunking_complete lands
        def __getattr__(self, name):
            return getattr(jobs, name)

        def update(self, job_id, changes, **conditions):
            if changes.status == JobStatus.CHUNKING_COMPLETE:
                assert convert_segments(local_backend) >= 2
                assert not local_backend.reassembly.is_triggered(job_id)
            return jobs.update(job_id, changes, **conditions)

    deps = dataclasses.replace(worker.deps, backend=dataclasses.replace(
        local_backend, jobs=ConvertsFirst()))
    total = handle_source_uploaded(S3EventRecord(bucket=local_backend.input_storage.bucket,
                                                 key=keys.source_key(job.job_id)), deps)

    assert local_backend.reassembly.is_triggered(job.job_id)
    assert worker.process_reassembly_once(wait_s=1)
    done = local_backend.jobs.get(job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert done.total_segments == total


def chunking_while(backend, job, deps: MediaDeps, meanwhile, **changes):
    """``deps`` whose ffmpeg runner first calls ``meanwhile(args)`` (what happens
    while the chunker splits), with ``changes``; and the source's upload record."""
    runner = deps.runner

    class Meanwhile(type(runner)):
        def run(self, args, **kwargs):
            meanwhile(args)
            return super().run(args, **kwargs)

    deps = dataclasses.replace(deps, runner=Meanwhile(
        runner.binary, timeout_s=runner.timeout_s, tick_s=0.05), **changes)
    return deps, S3EventRecord(bucket=backend.input_storage.bucket,
                               key=keys.source_key(job.job_id))


def test_a_chunker_whose_job_was_failed_meanwhile_stops_before_writing_segments(
        local_backend, new_job, upload, worker_for, tmp_path):
    # the janitor (or a person) ends the job while ffmpeg splits it: the chunker's
    # liveness refresh finds the job gone from chunking_in_progress and stops.
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=4))

    def fail_the_job(args):
        fail_job(local_backend.jobs, job.job_id, code="stalled", message="swept",
                 stage="chunking")

    deps, record = chunking_while(local_backend, job, worker_for(local_backend).deps,
                                  fail_the_job, keepalive_s=0)
    with pytest.raises(ConditionFailedError):
        handle_source_uploaded(record, deps)
    assert segment_listing(local_backend, job.job_id) == {}
    assert local_backend.jobs.get(job.job_id).error.message == "swept"


def test_a_chunker_whose_run_was_taken_over_stops_before_its_next_write_and_is_counted(
        local_backend, new_job, upload, worker_for, tmp_path):
    # a zombie: while ffmpeg splits, another chunker claims the job's next run (the
    # first one looked dead). Its check before the first segment write refuses it.
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=4))

    def take_the_run_over(args):
        # the split's ffmpeg, not the poster's or the side streams' (threads of
        # their own, which may start first)
        current = local_backend.jobs.get(job.job_id)
        if "segment" in args and current.run == 1:
            local_backend.jobs.update(job.job_id, JobUpdate(run=2), expected_run=1)

    deps, record = chunking_while(local_backend, job, worker_for(local_backend).deps,
                                  take_the_run_over)
    stale = STALE_RUN_WRITES.count("chunking")

    assert handle_source_uploaded(record, deps) is None
    assert segment_listing(local_backend, job.job_id) == {}
    assert STALE_RUN_WRITES.count("chunking") == stale + 1
    after = local_backend.jobs.get(job.job_id)
    # (the count its plan gave was written while it still held the run; the next
    # run writes its own before any of its segments goes out)
    assert (after.status, after.run, after.total_segments) == (
        JobStatus.CHUNKING_IN_PROGRESS, 2, 2)


@pytest.mark.parametrize(("lanes", "expected"), [(1, 3), (2, 4), (3, 3)])
def test_the_segment_count_fills_every_video_worker_lane(
        local_backend, new_job, upload, convert_segments, settings, tmp_path, lanes, expected):
    """5 s at 2 s segments is 3 segments; for two workers it is 4 (none idles at
    the end) and the job still keeps every frame."""
    source = make_video(tmp_path / "s.mp4", seconds=5)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    worker = build_worker(settings.model_copy(update={"segment_lanes": lanes}),
                          backend=local_backend)

    done = run_pipeline(local_backend, worker, convert_segments, job.job_id)

    assert done.total_segments == expected
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    assert measure(final).frames == measure(source).frames


def test_the_job_names_what_its_file_could_not_hold(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path):
    # DVB subtitles have no form in MP4; each teletext subtitle page becomes a
    # text track in its language (through the side file, which decodes them)
    clean = make_video(tmp_path / "clean.mp4", seconds=4.0, size=(160, 96), fps=12)
    recording = make_broadcast_recording(
        clean, tmp_path / "recording.ts",
        teletext=(("HELLO TELETEXT", 1.0, 2.5), ("HALLO VIDEOTEXT", 1.2, 2.0, 0x150)),
        described=(("eng", 2, 0x888), ("deu", 2, 0x150)))
    job = new_job(local_backend)
    upload(local_backend, job.job_id, recording)

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    assert done.status == JobStatus.COMPLETED
    assert done.left_out == ["DVB subtitles"]
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    assert [c.text for c in track_cues(final, 0)] == ["HELLO TELETEXT"]
    assert [c.text for c in track_cues(final, 1)] == ["HALLO VIDEOTEXT"]


def test_a_recorded_multiplex_keeps_the_films_programme_and_names_the_rest(
        local_backend, new_job, upload, convert_segments, worker_for, tmp_path):
    # two channels recorded together: the other channel's picture and sound
    # are not the film's (its sound used to become the film's second track)
    recording = make_multiplex_recording(tmp_path / "mux.ts", seconds=4.0)
    job = new_job(local_backend)
    upload(local_backend, job.job_id, recording)

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    assert done.status == JobStatus.COMPLETED
    assert done.left_out == ["video track 2 (another programme of the broadcast)",
                             "audio track 2 (another programme of the broadcast)"]
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    assert measure(final).audio_s == pytest.approx(4.0, abs=0.1)
    with av.open(str(final)) as container:
        assert len(container.streams.audio) == 1


def test_a_job_that_asks_for_a_part_converts_only_that_part(
        local_backend, upload, convert_segments, worker_for, tmp_path):
    """The job's params start_s/end_s (the form's and the API's start and end): the
    chunker cuts the source first, so the final video is that part, on time."""
    # plays 6 s (its short pause lies before the part; a flash and a beep at 5.0 s)
    source = make_paused_video(tmp_path / "src.mp4", seconds=5.5, pause_at=0.5, pause_s=0.5,
                               flash_at=5.0)
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS,
              params=ConversionParams(start_s=2.0, end_s=5.5))
    local_backend.jobs.create(job)
    upload(local_backend, job.job_id, source)

    done = run_pipeline(local_backend, worker_for(local_backend), convert_segments, job.job_id)

    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(done.final_key, final)
    assert flash_time(source) == pytest.approx(5.0, abs=0.05)  # control: the whole source
    assert flash_time(final) == pytest.approx(3.0, abs=0.05)  # 5.0 s of the source, from 2.0
    times = frame_times(final)
    assert times[-1] - times[0] == pytest.approx(3.5, abs=0.1)  # 2.0 .. 5.5, not all 6 s
    assert beep_time(final) == pytest.approx(3.0, abs=0.05)  # the sound cut with it


def test_a_part_that_starts_after_the_video_ends_fails_the_job_saying_so(
        local_backend, upload, worker_for, tmp_path):
    source = make_video(tmp_path / "src.mp4", seconds=2.0)
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS,
              params=ConversionParams(start_s=30.0))
    local_backend.jobs.create(job)
    upload(local_backend, job.job_id, source)
    worker_for(local_backend).process_chunking_once(wait_s=1)
    failed = local_backend.jobs.get(job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error.message == ("The start (30 s) is at or after the end of the video "
                                    "(2.0 s long).")
