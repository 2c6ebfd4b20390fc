import numpy as np
import pytest
from shared_types.models import ConversionParams

from stereo_inference.disparity import eye_disparity
from stereo_inference.shaping import eye_shifts, shaping_for, total_disparity

RAMP = np.linspace(0, 1, 11, dtype=np.float32).reshape(1, 1, 1, 11)


def test_default_controls_reproduce_the_plain_formula():
    shaping = shaping_for(ConversionParams(divergence=3.0, convergence=0.3), 11)
    right, left = eye_shifts(RAMP, (1, 11), shaping)
    plain = eye_disparity(RAMP, size=(1, 11), divergence=3.0, convergence=0.3)
    np.testing.assert_allclose(right, plain, atol=1e-6)
    np.testing.assert_allclose(left, plain, atol=1e-6)


def test_per_frame_convergence_and_strength_apply_to_their_frame():
    shaping = shaping_for(ConversionParams(divergence=4.0), 100)
    two = np.concatenate([RAMP, RAMP])
    t = total_disparity(two, shaping, convergence=[0.0, 1.0], strength=[1.0, 0.5])
    assert t[0].max() == pytest.approx(0.0)  # nearest on the screen, all behind
    assert t[1].min() == pytest.approx(0.0)  # farthest on the screen, all in front, halved
    assert t[1].max() == pytest.approx(2.0)


def test_a_one_sided_view_takes_the_whole_disparity():
    shaping = shaping_for(ConversionParams(divergence=4.0, synthesised_eye="right"), 100)
    right, left = eye_shifts(RAMP, (1, 11), shaping)
    assert np.abs(left).max() == 0
    assert right.max() == pytest.approx(2.0)


def test_edge_dilation_grows_near_depth_sideways():
    depth = np.zeros((1, 1, 1, 11), np.float32)
    depth[..., 5] = 1.0
    shaping = shaping_for(ConversionParams(divergence=4.0, edge_dilation=2), 100)
    t = total_disparity(depth, shaping)
    assert (t[0, 0, 0] > 0).sum() == 5
    assert (total_disparity(depth, shaping_for(ConversionParams(divergence=4.0), 100))
            > 0).sum() == 1
