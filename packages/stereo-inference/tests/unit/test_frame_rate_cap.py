"""--max-fps: frames above the rate are left out before depth and render, the
kept ones fill the time."""

from fractions import Fraction

import numpy as np

from stereo_inference.decode import FrameBatch
from stereo_inference.frame_rate_cap import FrameRateCap, capped


def _batches(pts, durations, batch=4):
    n = len(pts)
    eyes = np.arange(n)[:, None, None] * np.ones((1, 3, 2), np.int64)
    for i in range(0, n, batch):
        yield FrameBatch(depth_rgb=eyes[i:i + batch].copy(), eyes=eyes[i:i + batch].copy(),
                         pts=pts[i:i + batch], durations=durations[i:i + batch],
                         captions={p: b"cc" for p in pts[i:i + batch]})


def _kept(pts, durations, max_fps, tb, batch=4):
    out = list(capped(_batches(pts, durations, batch), max_fps, tb))
    return ([p for b in out for p in b.pts], [d for b in out for d in b.durations],
            [int(e[0, 0]) for b in out for e in b.eyes], out)


def test_sixty_to_thirty_keeps_every_other_frame_and_its_time():
    pts, durations, eyes, out = _kept(list(range(12)), [1] * 12, 30, Fraction(1, 60))
    assert pts == [0, 2, 4, 6, 8, 10]
    assert durations == [2] * 6  # each lasts until the next kept one
    assert eyes == pts  # the pictures of those frames, the depth input alike
    assert all(set(b.captions) == set(b.pts) for b in out)
    assert all(np.array_equal(b.depth_rgb, b.eyes) for b in out)


def test_ntsc_timestamps_in_milliseconds_keep_a_steady_pattern():
    pts = [round(i * 1001 / 60) for i in range(60)]  # 59.94 fps
    kept, _, _, _ = _kept(pts, [17] * 60, 30, Fraction(1, 1000), batch=7)
    assert len(kept) == 30
    steps = np.diff(kept)
    assert steps.min() >= 33 and steps.max() <= 34


def test_a_source_under_the_cap_and_no_cap_keep_every_frame():
    kept, _, _, _ = _kept(list(range(10)), [1] * 10, 30, Fraction(1, 24))
    assert kept == list(range(10))
    kept, _, _, _ = _kept(list(range(10)), [1] * 10, None, Fraction(1, 24))
    assert kept == list(range(10))


def test_a_batch_with_nothing_kept_is_left_out():
    cap = FrameRateCap(1, Fraction(1, 30))
    assert cap.batch(next(_batches([0, 1], [1, 1]))).pts == [0]
    assert cap.batch(next(_batches([2, 3], [1, 1]))) is None
