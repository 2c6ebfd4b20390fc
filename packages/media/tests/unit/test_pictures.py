"""One picture encoded twice is the same picture; a different decision is not."""

import numpy as np
import pytest

from stereo_media.testing.pictures import difference, same_picture


def test_encoder_noise_is_the_same_picture_and_a_different_picture_is_not():
    rng = np.random.default_rng(1)
    picture = rng.integers(0, 256, (96, 160, 3), dtype=np.uint8)
    noisy = picture.copy()
    flat = noisy.reshape(-1)
    flat[::700] = np.clip(flat[::700].astype(int) + 1, 0, 255)  # 0.14 % a level up
    assert same_picture(picture, noisy)
    other = np.clip(picture.astype(int) + 5, 0, 255).astype(np.uint8)
    assert difference(picture, other) > 4
    assert not same_picture(picture, other)


def test_pictures_of_different_shapes_are_refused():
    with pytest.raises(ValueError, match="different shapes"):
        difference(np.zeros((2, 2)), np.zeros((2, 3)))
