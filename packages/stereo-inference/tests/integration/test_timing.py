"""The engine keeps every frame's source timestamp: pauses, VFR, and segments
that start later on the source's timeline (as media-worker cuts them); a
recording whose clock jumps plays its parts one after another; a raw H.264
stream, which has no clock, plays at the rate it states."""

import subprocess
from fractions import Fraction

import av
import pytest
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.timing import (
    beep_time,
    damage_audio_frames,
    flash_time,
    frame_times,
    make_joined_recording,
    make_paused_video,
    make_raw_stream,
)

from stereo_inference import convert_file

ONE_MS = 0.001


@pytest.fixture(scope="module")
def paused(tmp_path_factory):
    """4 s of picture that pauses 2 s at 1.5 s; flash and beep at 5 s."""
    return make_paused_video(tmp_path_factory.mktemp("paused") / "paused.mp4")


def test_a_pause_in_the_timestamps_is_kept_and_the_audio_stays_in_sync(paused, tmp_path):
    out = tmp_path / "out.mp4"
    convert_file(paused, out, mode="half-sbs")
    source, converted = frame_times(paused), frame_times(out)
    assert converted == pytest.approx(source, abs=ONE_MS)
    assert max(b - a for a, b in zip(source, source[1:], strict=False)) > 1.9  # the pause
    assert flash_time(out) == pytest.approx(flash_time(paused), abs=ONE_MS)
    assert beep_time(out) == pytest.approx(beep_time(paused), abs=ONE_MS)


def _last_segment_converted(source, tmp_path, *, seconds: float, labelled: bool):
    """(the last segment of ``source`` cut as media-worker cuts, keyframe-aligned
    with -c copy and the timestamps kept; it converted to half-SBS). Labelled:
    with a video track title, so the conversion takes the mux pass."""
    folder = tmp_path / "segments"
    folder.mkdir()
    label = ["-metadata:s:v:0", "title=Camera"] if labelled else []
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(source),
                    "-map", "0:v:0", "-c", "copy", *label, "-f", "segment",
                    "-segment_time", str(seconds), "-segment_time_delta", "0.05",
                    str(folder / "%05d.mp4")], check=True, timeout=60)
    late = sorted(folder.glob("*.mp4"))[-1]
    out = tmp_path / "late_out.mp4"
    convert_file(late, out, mode="half-sbs")
    return late, out


@pytest.mark.parametrize("labelled", [False, True])  # video only, or through the mux pass
def test_a_segment_keeps_its_place_on_the_source_timeline(paused, tmp_path, labelled):
    # cut as media-worker cuts (keyframe-aligned, -c copy), keeping the timestamps
    late, out = _last_segment_converted(paused, tmp_path, seconds=2, labelled=labelled)
    assert start_s(late) > 3
    assert start_s(out) == pytest.approx(start_s(late), abs=ONE_MS)
    assert frame_times(out) == pytest.approx(frame_times(late), abs=ONE_MS)


def exact_frame_times(path) -> list:
    """Each decoded frame's time as an exact fraction of a second."""
    with av.open(str(path)) as container:
        return [f.pts * f.time_base for f in container.decode(video=0)]


@pytest.mark.parametrize("labelled", [False, True])  # video only, or through the mux pass
def test_a_segment_at_an_ntsc_rate_keeps_every_frames_time_to_the_tick(tmp_path, labelled):
    # 29.97 fps: the segment beginning at 1.5015 s came out at 1.501 s (the MP4
    # writer stated its start in milliseconds), a frame step of 0.9867 frames at
    # every join of the segmented pipeline
    clip = tmp_path / "ntsc.mp4"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=64x48:rate=30000/1001:duration=3", "-c:v", "libx264",
                    "-preset", "ultrafast", "-g", "15", "-pix_fmt", "yuv420p", str(clip)],
                   check=True, timeout=60)
    late, out = _last_segment_converted(clip, tmp_path, seconds=1.5, labelled=labelled)
    assert exact_frame_times(late)[0] == Fraction(45045, 30000)
    assert exact_frame_times(out) == exact_frame_times(late)


def start_s(path):
    import av

    with av.open(str(path)) as container:
        return container.start_time / 1e6


def test_a_recording_with_damaged_audio_frames_converts_with_the_sound_in_step(tmp_path):
    # a weak broadcast signal: three AAC frames broken before the flash and beep;
    # a copy of that audio fails, so it is decoded past them, the gap kept silent
    clean = make_paused_video(tmp_path / "clean.mp4", seconds=6.0, pause_at=0.5, pause_s=0.0,
                              flash_at=4.0)
    damaged = damage_audio_frames(clean, tmp_path / "recording.ts", first_s=1.0)
    out = tmp_path / "out.mp4"
    convert_file(damaged, out, mode="half-sbs")
    # 64 ms early (three frames' worth) if the gap were closed up
    assert beep_time(out) - flash_time(out) == pytest.approx(
        beep_time(clean) - flash_time(clean), abs=ONE_MS)


@pytest.mark.parametrize("audio", [True, False])  # through the mux, or the encoder's own file
def test_a_whole_file_from_a_broadcast_clock_begins_at_0(tmp_path, audio):
    # a DVB recording's timestamps start where the channel's clock was: 26 h in
    # here. A segment keeps them (its place on the source's timeline); a whole
    # file had an empty edit that long before its first frame
    clean = make_paused_video(tmp_path / "clean.mp4", seconds=3.0, pause_at=0.5, pause_s=0.0,
                              flash_at=2.0)
    late = tmp_path / "recording.ts"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(clean),
                    *([] if audio else ["-an"]), "-c", "copy", "-output_ts_offset", "95000",
                    "-f", "mpegts", str(late)], check=True, timeout=60)
    whole, segment = tmp_path / "whole.mp4", tmp_path / "segment.mp4"
    convert_file(late, whole, mode="half-sbs", start_at_zero=True)
    convert_file(late, segment, mode="half-sbs")
    with av.open(str(whole)) as c:
        assert c.start_time == 0
    with av.open(str(segment)) as c:
        assert c.start_time / 1e6 > 95000  # where it lies on the source's timeline
    # times from each file's own start: the picture where it was, the sound with it
    assert frame_times(whole) == pytest.approx(frame_times(late), abs=ONE_MS)
    assert flash_time(whole) == pytest.approx(flash_time(late), abs=ONE_MS)
    if audio:
        assert beep_time(whole) == pytest.approx(beep_time(late), abs=ONE_MS)


def test_a_recording_whose_clock_jumps_plays_its_parts_in_turn(tmp_path):
    # two recordings joined with cat: the second's clock reads as 26 hours later
    joined = make_joined_recording(tmp_path / "joined.ts", clocks=(100.0, 5.0))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "out.mp4"

    result = convert_file(joined, out, mode="half-sbs", start_at_zero=True)

    times = frame_times(out)
    assert result.frames == len(times) == 150
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) < 0.08
    assert flash_time(out) == pytest.approx(4.0, abs=0.06)  # 3 s of part one, then 1 s
    assert beep_time(out) == pytest.approx(4.0, abs=0.06)
    # the copy is gone (beside the output: only its comfort report)
    assert sorted(p.name for p in out_dir.iterdir()) == ["out.mp4", "out.mp4.comfort.json"]


@pytest.mark.parametrize("b_frames", [True, False], ids=["reordered", "in-order"])
def test_a_raw_camera_stream_plays_at_the_rate_it_states(tmp_path, b_frames):
    # a Raspberry Pi camera's .h264: no container, no timestamps, 30 a second
    raw = make_raw_stream(tmp_path / "pi.h264", seconds=3.0, fps=30, flash_at=2.0,
                          b_frames=b_frames)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "out.mp4"

    result = convert_file(raw, out, mode="half-sbs")

    times = frame_times(out)
    assert result.frames == len(times) == 90
    assert times == sorted(times)
    assert times[-1] == pytest.approx(89 / 30, abs=0.01)  # not 0.04 s, not 3.6 s
    assert flash_time(out) == pytest.approx(2.0, abs=0.05)
    # the copy is gone (beside the output: only its comfort report)
    assert sorted(p.name for p in out_dir.iterdir()) == ["out.mp4", "out.mp4.comfort.json"]
