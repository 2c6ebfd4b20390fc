import numpy as np
import pytest
import torch

from stereo_inference.warp import plan_warp, warp_left_view, warp_view

# every test plans with the engine's C loops and again with numpy alone
pytestmark = pytest.mark.usefixtures("cpu_loops")


def ramp_image(h=4, w=32):
    x = torch.arange(w, dtype=torch.float32) / w
    return x.view(1, 1, 1, w).expand(1, 3, h, w).contiguous()


def test_a_constant_disparity_shifts_the_view_left_by_a_subpixel_amount():
    image = ramp_image()
    out = warp_view(image, torch.full((1, 1, 4, 32), 2.5))
    # right-view pixel t shows source x = t + 2.5 (linear ramp => exact)
    expected = (torch.arange(32.0) + 2.5) / 32
    assert torch.allclose(out[0, 0, 0, :28], expected[:28], atol=1e-5)


def test_a_near_object_shifts_left_more_than_the_background_and_wins():
    image = torch.zeros(1, 3, 1, 20)
    image[..., 10:14] = 1.0  # a bright near object
    disparity = torch.full((1, 1, 1, 20), 1.0)
    disparity[..., 10:14] = 4.0
    out = warp_view(image, disparity)[0, 0, 0]
    assert out[6:10].tolist() == [1.0, 1.0, 1.0, 1.0]  # moved 4 px left, over the background
    assert out[10:14].max() == 0.0  # revealed background, not the object


def test_holes_are_filled_from_the_background_side():
    image = torch.arange(10.0).view(1, 1, 1, 10).expand(1, 3, 1, 10)
    disparity = torch.zeros(1, 1, 1, 10)
    disparity[..., 4:6] = 2.0
    src = plan_warp(disparity, fill="replicate")[0, 0, 0]
    # pixels 4 and 5 are revealed; the background neighbour is on the right (6)
    assert src[4:6].tolist() == [6.0, 6.0]
    out = warp_view(image, disparity)[0, 0, 0]
    assert (out[4:6] >= 6).all()  # mirrored background texture, never the object (4, 5)


def test_the_left_view_shifts_near_content_to_the_right():
    image = torch.zeros(1, 1, 1, 20)
    image[..., 5] = 1.0
    out = warp_left_view(image, torch.full((1, 1, 1, 20), 3.0))
    assert int(out[0, 0, 0].argmax()) == 8


def test_zero_disparity_is_the_identity():
    image = torch.rand(2, 3, 8, 16)
    assert torch.allclose(warp_view(image, torch.zeros(2, 1, 8, 16)), image, atol=1e-6)


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match="disagree"):
        warp_view(torch.rand(1, 3, 8, 16), torch.zeros(1, 1, 8, 15))
    with pytest.raises(ValueError, match="B,1,H,W"):
        plan_warp(torch.zeros(1, 2, 8, 16))


def test_mirror_fill_continues_the_background_texture_into_the_hole():
    disparity = torch.zeros(1, 1, 1, 10)
    disparity[..., 4:6] = 2.0
    src = plan_warp(disparity, fill="mirror")[0, 0, 0]
    assert src[4:6].tolist() == [8.0, 7.0]


def test_a_one_pixel_detail_in_front_survives():
    image = torch.zeros(1, 1, 1, 20)
    image[..., 10] = 1.0
    disparity = torch.zeros(1, 1, 1, 20)
    disparity[..., 10] = 3.0
    out = warp_view(image, disparity)[0, 0, 0]
    assert float(out[7]) == 1.0
    assert float(out.sum()) == 1.0


def fill_by_scanning(src, zbuf, fill):
    """Reference: each hole looks left and right along its row for covered pixels."""
    out = src.clone()
    for r in range(src.shape[0]):
        covered = [c for c in range(src.shape[1]) if zbuf[r, c] != float("-inf")]
        for c in range(src.shape[1]):
            if zbuf[r, c] != float("-inf"):
                continue
            left = max((k for k in covered if k < c), default=None)
            right = min((k for k in covered if k > c), default=None)
            if left is None and right is None:
                out[r, c] = c
                continue
            nb = right if left is None or (right is not None and zbuf[r, right] <= zbuf[r, left]) \
                else left
            shift = nb - c if fill == "mirror" and left is not None and right is not None else 0
            out[r, c] = src[r, nb] + shift
    return out


@pytest.mark.parametrize("fill", ["replicate", "mirror"])
@pytest.mark.parametrize("hole_share", [0.1, 0.5, 0.9, 1.0])
def test_hole_runs_take_the_nearest_covered_pixel_of_their_own_row(fill, hole_share):
    from stereo_inference.warp import _fill_holes

    g = torch.Generator().manual_seed(7)
    zbuf = torch.rand(9, 13, generator=g)
    zbuf[torch.rand(9, 13, generator=g) < hole_share] = float("-inf")
    src = torch.rand(9, 13, generator=g) * 12
    expected = fill_by_scanning(src, zbuf, fill)
    # the plan's layout: rows padded by a NaN column each side (no neighbour there)
    pad = torch.full((9, 1), float("nan"))
    padded_src = torch.cat([pad, src, pad], dim=1)
    column = torch.arange(-1.0, 14.0).expand(9, 15).contiguous()
    _fill_holes(padded_src.view(-1), torch.cat([pad, zbuf, pad], dim=1).view(-1),
                column.view(-1), fill)
    assert torch.allclose(padded_src[:, 1:14], expected)


def test_planning_in_row_chunks_gives_the_whole_frame_plan(monkeypatch):
    import stereo_inference.warp as warp

    g = torch.Generator().manual_seed(0)
    disparity = (torch.rand(2, 1, 9, 40, generator=g) * 12).round() / 2  # edges and folds
    whole = plan_warp(disparity)
    monkeypatch.setattr(warp, "CPU_CHUNK_PIXELS", 3 * 40)  # 3 rows a call, across frames
    assert torch.equal(plan_warp(disparity), whole)


@pytest.mark.parametrize("fill", ["replicate", "mirror"])
def test_the_numpy_plan_is_the_tensor_plan(fill):
    """The torch ops (what a GPU runs; a CPU tensor is planned with numpy, so
    they are called directly here) give the numpy plan."""
    from stereo_inference.warp import _plan

    g = torch.Generator().manual_seed(3)
    disparity = (torch.rand(3, 1, 7, 50, generator=g) * 16).round() / 2  # edges and folds
    tensor = _plan(disparity, 1.9, fill)
    assert isinstance(tensor, torch.Tensor)
    array = plan_warp(disparity.numpy(), fill=fill)
    assert isinstance(array, np.ndarray)
    assert array.dtype == np.float32
    np.testing.assert_allclose(array, tensor.numpy(), atol=1e-4)
    assert torch.equal(plan_warp(disparity, fill=fill), torch.from_numpy(array))

