"""The keyframe re-encode before splitting: keyframes on a grid, never a burst."""

from __future__ import annotations

import av
from shared_types.ffmpeg import ffmpeg_path
from shared_types.testing.timing import frame_times, make_paused_video

from media_worker.ffmpeg_runner import FfmpegRunner
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
