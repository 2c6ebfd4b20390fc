"""The keyframe re-encode before splitting: keyframes on a grid, never a burst."""

from __future__ import annotations

import subprocess

import av
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.testing.timing import frame_times, make_paused_video

from media_worker.splitting import keyframe_interval, reencode_with_keyframes


def keyframe_times(path) -> list[float]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        return sorted(float(p.pts * p.time_base) for p in container.demux(stream)
                      if p.is_keyframe and p.pts is not None)


def test_a_jump_in_the_timestamps_forces_no_burst_of_keyframes(tmp_path):
    # 2 s of picture jumping by 2 s at 1 s, one keyframe in all: re-encoded for 2 s
    # segments, a keyframe every 0.5 s; the jump skips four grid points
    source = make_paused_video(tmp_path / "paused.mp4", seconds=4.0, pause_at=1.0,
                               pause_s=2.0, flash_at=4.0, gop=1000)
    dest = reencode_with_keyframes(FfmpegRunner(ffmpeg_path(), timeout_s=120), source,
                                   tmp_path / "keyed.mp4", 2.0)

    every = keyframe_interval(2.0)
    times = keyframe_times(dest)
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= every / 2 - 1e-3, times  # no burst after the jump
    # one keyframe per step wherever there are frames: the pause (1-3 s) has none
    assert [round(t, 3) for t in times] == [0.0, 0.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5], times
    assert len(frame_times(dest)) == len(frame_times(source))
    assert frame_times(dest) == frame_times(source)  # the jump itself is kept


def make_irregular_video(path, *, seconds: float = 3.0, gop: int = 1000):
    """A phone-like clip: 30 frames a second on average, each frame up to 6 ms
    off the 1/30 s grid, on a 1/90000 s clock, with one keyframe."""
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
        "-i", f"testsrc2=size=64x48:rate=30:duration={seconds},"
              "setpts='(N/30+0.006*sin(N*1.7))/TB'",
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-g", str(gop),
        "-fps_mode", "passthrough", "-enc_time_base", "1/90000",
        "-video_track_timescale", "90000", str(path)], check=True, timeout=60)
    return path


def test_irregular_frame_times_are_kept_frame_for_frame(tmp_path):
    # re-encoded on the mean rate's grid, frames moved by up to half a tick and
    # those landing on one tick dropped (a phone's clip lost 5 of 120)
    source = make_irregular_video(tmp_path / "phone.mp4")
    dest = reencode_with_keyframes(FfmpegRunner(ffmpeg_path(), timeout_s=120), source,
                                   tmp_path / "keyed.mp4", 2.0)
    before, after = frame_times(source), frame_times(dest)
    assert len(after) == len(before) == 90
    assert max(abs(a - b) for a, b in zip(after, before, strict=True)) < 1e-4
