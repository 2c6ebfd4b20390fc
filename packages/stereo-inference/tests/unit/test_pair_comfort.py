"""The disparity of a stereo pair, measured from its pictures (``pair_comfort``)."""

import cv2
import numpy as np
import pytest

from stereo_inference.pair_comfort import frame_range


def textured(h=192, w=320, seed=0):
    rng = np.random.default_rng(seed)
    return cv2.GaussianBlur((rng.random((h, w)) * 255).astype(np.uint8), (5, 5), 0)


@pytest.mark.parametrize("shift", [-5, 0, 7])
def test_a_shifted_pair_reads_its_shift_back_crossed_positive(shift):
    left = textured()
    right = np.roll(left, -shift, axis=1)  # a left-eye point at x is at x - shift on the right
    low, high, edge = frame_range(left, right)
    assert low == pytest.approx(shift, abs=0.6)
    assert high == pytest.approx(shift, abs=0.6)
    assert edge == pytest.approx(max(0, shift), abs=0.6)  # only crossed counts at the border


def test_a_near_object_in_the_middle_is_the_frames_nearest_not_its_edge():
    left, right = textured(), textured().copy()
    right[64:128, 120:200] = left[64:128, 126:206]  # a patch 6 px in front, the rest at 0
    low, high, edge = frame_range(left, right)
    assert high == pytest.approx(6, abs=0.6) and low == pytest.approx(0, abs=0.6)
    assert edge == pytest.approx(0, abs=0.6)


def test_a_flat_picture_matches_nothing_and_says_zero():
    grey = np.full((192, 320), 90, np.uint8)
    assert frame_range(grey, grey) == (0.0, 0.0, 0.0)
