"""--max-fps: frames above the rate are left out, the kept ones fill the time."""

from fractions import Fraction

import numpy as np

from stereo_inference.frame_rate_cap import FrameRateCap


class Recorder:
    def __init__(self):
        self.pts, self.durations = [], []
        self.seconds = 7.0

    def write(self, frames, fmt, pts, durations, captions=None):
        assert len(frames) == len(pts)
        self.pts += pts
        self.durations += durations


def _run(pts, durations, max_fps, tb, batch=4):
    rec = Recorder()
    cap = FrameRateCap(rec, max_fps, tb)
    frames = np.zeros((len(pts), 2, 2), np.uint8)
    for i in range(0, len(pts), batch):
        cap.write(frames[i:i + batch], "yuv420p", pts[i:i + batch], durations[i:i + batch])
    return rec, cap


def test_sixty_to_thirty_keeps_every_other_frame_and_its_time():
    tb = Fraction(1, 60)
    rec, cap = _run(list(range(12)), [1] * 12, 30, tb)
    assert rec.pts == [0, 2, 4, 6, 8, 10]
    assert rec.durations[:1] == [2]  # until the next kept frame
    assert cap.seconds == 7.0  # everything else is the encoder's


def test_ntsc_timestamps_in_milliseconds_keep_a_steady_pattern():
    tb = Fraction(1, 1000)
    pts = [round(i * 1001 / 60) for i in range(60)]  # 59.94 fps
    rec, _ = _run(pts, [17] * 60, 30, tb, batch=7)
    assert len(rec.pts) == 30
    steps = np.diff(rec.pts)
    assert steps.min() >= 33 and steps.max() <= 34


def test_a_source_under_the_cap_keeps_every_frame():
    tb = Fraction(1, 24)
    rec, _ = _run(list(range(10)), [1] * 10, 30, tb)
    assert rec.pts == list(range(10))
