import pytest
import torch

from stereo_inference.disparity import eye_disparity


def test_divergence_is_percent_of_width_split_between_the_eyes():
    depth = torch.tensor([[[[0.0, 1.0]]]])
    d = eye_disparity(depth, size=(1, 2), divergence=2.0, convergence=0.5)
    # near (1) pops out by +1% of width per eye, far (0) sits 1% behind
    assert d.flatten().tolist() == pytest.approx([-0.01, 0.01])


def test_convergence_zero_puts_the_nearest_depth_on_the_screen():
    depth = torch.tensor([[[[0.0, 1.0]]]]).expand(1, 1, 1, 2)
    d = eye_disparity(depth, size=(1, 100), divergence=2.0, convergence=0.0)
    assert float(d.max()) == pytest.approx(0.0, abs=1e-6)
    assert float(d.min()) < 0


def test_out_of_range_parameters_are_refused():
    depth = torch.zeros(1, 1, 2, 2)
    with pytest.raises(ValueError, match="divergence"):
        eye_disparity(depth, size=(2, 2), divergence=50, convergence=0.5)
    with pytest.raises(ValueError, match="convergence"):
        eye_disparity(depth, size=(2, 2), divergence=2, convergence=2)
