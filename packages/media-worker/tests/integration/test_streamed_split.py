"""A split that hands each segment on as soon as it is cut (``chunking`` streams
a job's first run so): the count known before, each segment while the rest is
still being cut, the list file the later steps read."""

from __future__ import annotations

import os
import subprocess
import threading
import time

from stereo_media.bounded_probe import probe_video
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.probe_limits import ProbeLimits
from stereo_media.testing.media import make_video

from media_worker.cut_plan import plan_cuts
from media_worker.splitting import segment_starts, split_segments

LIMITS = ProbeLimits(max_bytes=10**9, max_duration_s=600, max_width=4096, max_height=4096)


def _writer(fifo, deadline_s: float = 60.0) -> int:
    """The FIFO's write end, once ffmpeg has opened its read end."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader yet
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def test_each_segment_is_handed_on_while_the_rest_is_still_being_cut(tmp_path):
    clip = make_video(tmp_path / "clip.mp4", seconds=20, size=(640, 360), audio=False)
    ts = tmp_path / "clip.ts"
    subprocess.run([ffmpeg_path(), "-v", "error", "-i", str(clip), "-c", "copy", "-f", "mpegts",
                    str(ts)], check=True)
    cuts = plan_cuts(probe_video(ts, LIMITS).keyframes_s, 4.0)
    assert cuts is not None and len(cuts) == 4
    # the source comes through a FIFO, so the split cannot end before the test
    # writes the rest of it: whatever it hands on before that, it hands on early
    fifo = tmp_path / "live.ts"
    os.mkfifo(fifo)
    handed, first = [], threading.Event()

    def on_segment(index, path):
        handed.append((index, path.name, path.stat().st_size))
        first.set()

    result = {}
    split = threading.Thread(target=lambda: result.update(segments=split_segments(
        FfmpegRunner(ffmpeg_path(), timeout_s=120), fifo, tmp_path / "segments", 4.0,
        cuts=cuts, on_segment=on_segment)))
    split.start()
    data = ts.read_bytes()
    fd = _writer(fifo)
    os.set_blocking(fd, True)
    try:
        os.write(fd, data[: len(data) * 7 // 10])  # 14 of the 20 s
        assert first.wait(60), "no segment was handed on before the source ended"
        assert split.is_alive()  # still cutting: it has not read the rest yet
        early = len(handed)
        os.write(fd, data[len(data) * 7 // 10:])
    finally:
        os.close(fd)
    split.join(120)
    segments = result["segments"]
    assert 1 <= early < len(segments) == len(cuts) + 1
    assert [(i, name) for i, name, _ in handed] == [(i, p.name) for i, p in enumerate(segments)]
    assert all(size > 0 for _, _, size in handed)  # each handed on finished, not empty
    assert segment_starts(segments[0].parent) == [0.0, 4.0, 8.0, 12.0, 16.0]
    assert not (tmp_path / "segments" / "segments.fifo").exists()


def test_a_failing_hand_on_stops_the_split_with_its_error(tmp_path):
    clip = make_video(tmp_path / "clip.mp4", seconds=8, size=(160, 96), audio=False)
    cuts = plan_cuts(probe_video(clip, LIMITS).keyframes_s, 2.0)

    def refuse(index, path):
        raise RuntimeError(f"no more after {index}")

    try:
        split_segments(FfmpegRunner(ffmpeg_path(), timeout_s=120), clip, tmp_path / "s", 2.0,
                       cuts=cuts, on_segment=refuse)
    except RuntimeError as exc:
        assert str(exc) == "no more after 0"
    else:
        raise AssertionError("the hand-on's error was not raised")


def test_a_split_that_fails_before_its_list_opens_does_not_hang(tmp_path):
    missing = tmp_path / "missing.mp4"
    try:
        split_segments(FfmpegRunner(ffmpeg_path(), timeout_s=120), missing, tmp_path / "s",
                       2.0, cuts=[1.0], on_segment=lambda i, p: None)
    except Exception as exc:  # noqa: BLE001 (ffmpeg's own error, whichever it is)
        assert "split into segments" in str(exc)
    else:
        raise AssertionError("a missing source split")


def test_without_a_fifo_every_segment_is_still_handed_on_once_the_split_ends(
        tmp_path, monkeypatch):
    clip = make_video(tmp_path / "clip.mp4", seconds=8, size=(160, 96), audio=False)
    cuts = plan_cuts(probe_video(clip, LIMITS).keyframes_s, 2.0)

    def no_fifo(path, *args):
        raise OSError(95, "Operation not supported")

    monkeypatch.setattr(os, "mkfifo", no_fifo)
    handed = []
    segments = split_segments(FfmpegRunner(ffmpeg_path(), timeout_s=120), clip, tmp_path / "s",
                              2.0, cuts=cuts, on_segment=lambda i, p: handed.append((i, p)))
    assert len(segments) == len(cuts) + 1 == 4
    assert handed == list(enumerate(segments))
    assert segment_starts(segments[0].parent) == [0.0, 2.0, 4.0, 6.0]


def test_a_plan_of_one_segment_is_never_cut(tmp_path):
    clip = make_video(tmp_path / "clip.mp4", seconds=3, size=(160, 96), audio=False)
    handed = []
    segments = split_segments(FfmpegRunner(ffmpeg_path(), timeout_s=120), clip, tmp_path / "s",
                              1.0, cuts=[], on_segment=lambda i, p: handed.append(i))
    assert len(segments) == 1 and handed == [0]
