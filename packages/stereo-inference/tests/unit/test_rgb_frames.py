"""rgb_frames: decoded (B,h,w,3) frames as (B,3,h,w) float32 in 0..1, exactly
each sample over 255, in a new array (the frames handed in stay as they were)."""

import numpy as np

from stereo_inference.arrays import rgb_frames


def test_each_sample_is_its_value_over_255_channels_first():
    frames = np.random.default_rng(0).integers(0, 256, (3, 5, 7, 3), dtype=np.uint8)
    rgb = rgb_frames(frames)
    assert rgb.shape == (3, 3, 5, 7) and rgb.dtype == np.float32 and rgb.flags.c_contiguous
    expected = frames.transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255)
    np.testing.assert_array_equal(rgb, expected)  # to the bit, as the depth reads it
    assert rgb[0, 2, 1, 4] == np.float32(frames[0, 1, 4, 2]) / np.float32(255)


def test_the_frames_handed_in_are_left_as_they_were():
    frames = np.full((2, 1, 1, 3), 255.0, np.float32)  # (its channels-first view is contiguous)
    rgb_frames(frames)
    assert (frames == 255.0).all()
