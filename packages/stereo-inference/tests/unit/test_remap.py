import numpy as np
import pytest

from stereo_inference import native
from stereo_inference.remap import packed_map, remap_planes, remap_rows, shrink, stretch_plan


def plane(h: int, w: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (h, w)).astype(np.uint8)


def test_a_2_to_1_shrink_is_the_rounded_average_of_each_pixel_pair():
    p = plane(6, 10)
    wide = (p[:, 0::2].astype(int) + p[:, 1::2] + 1) // 2
    tall = (p[0::2].astype(int) + p[1::2] + 1) // 2
    assert np.array_equal(shrink(p, 5, 6), wide)
    assert np.array_equal(shrink(p, 10, 3), tall)


def test_other_ratios_are_area_averaged():
    p = np.full((9, 12), 100, np.uint8)
    out = shrink(p, 5, 4)
    assert out.shape == (4, 5)
    assert np.all(out == 100)


def test_a_side_by_side_map_holds_each_eye_stretched_unblended():
    left = np.tile(np.linspace(0, 7, 8, dtype=np.float32), (3, 1))
    right = left + 0.5
    m = packed_map(left, right, 12, 8, side_by_side=True)
    assert m.shape == (12, 16)
    assert np.allclose(m[:, :8], stretch_plan(left, 12, 8))
    assert np.allclose(m[:, 8:], stretch_plan(right, 12, 8))


def test_a_stacked_map_with_chroma_subsampling_halves_positions():
    left = np.tile(np.arange(8, dtype=np.float32), (3, 1))
    m = packed_map(left, left + 2, 6, 4, side_by_side=False, subsample=2)
    assert m.shape == (12, 4)
    assert np.allclose(m[0], [0, 1, 2, 3])
    assert np.allclose(m[6], [1, 2, 3, 4])


def test_remap_writes_both_stacked_eyes_into_the_given_buffer():
    p = plane(4, 6)
    identity = np.tile(np.arange(6, dtype=np.float32), (8, 1))
    identity[4:] += 1  # the lower eye reads one pixel to the right
    out = np.zeros((8, 6), np.uint8)
    result = remap_rows(p, identity, out, repeats=2)
    assert np.shares_memory(result, out)
    assert np.array_equal(out[:4], p)
    assert np.array_equal(out[4:, :5], p[:, 1:])
    assert np.array_equal(out[4:, 5], p[:, 5])


def test_planes_warped_together_are_each_the_pixels_warped_alone():
    u, v = plane(6, 16, seed=1), plane(6, 16, seed=2)
    rng = np.random.default_rng(3)
    # fractional, out-of-frame and stacked (two-eye) positions alike
    map_x = (np.arange(16, dtype=np.float32) + rng.uniform(-3, 3, (12, 16))).astype(np.float32)
    dsts = [np.zeros((12, 16), np.uint8), np.zeros((12, 16), np.uint8)]
    both = remap_planes([u, v], map_x, dsts, repeats=2)
    for k, p in enumerate((u, v)):
        assert np.shares_memory(both[k], dsts[k])
        assert np.array_equal(both[k], remap_rows(p, map_x, repeats=2))
    assert [w.shape for w in remap_planes([u, v], map_x, repeats=2)] == [(12, 16)] * 2


def test_a_widened_map_puts_half_width_positions_at_full_width_and_never_mixes_the_eyes():
    from stereo_inference.remap import widened_map

    rows, half = 3, 8
    x = np.arange(half, dtype=np.float32)
    left = np.repeat(x[None], rows, 0)  # the identity plan at half width
    right = np.full((rows, half), 2.0, np.float32)  # every pixel samples half-x 2
    out = widened_map(left, right, 6, 2 * half)
    assert out.shape == (6, 4 * half)
    # the identity at half width is (nearly) the identity at full width
    np.testing.assert_allclose(out[:, 1 : 2 * half - 1],
                               np.broadcast_to(np.arange(1, 2 * half - 1), (6, 2 * half - 2)),
                               atol=1e-5)
    assert np.all(out[:, 2 * half - 1] == 2 * (half - 1) + 0.5)  # left's own last column
    np.testing.assert_allclose(out[:, 2 * half :], 4.5)  # right eye: 2 * 2 + 0.5, all of it


@pytest.mark.parametrize("source", ["eye", "2:1", "other"])
@pytest.mark.parametrize(("side_by_side", "subsample"), [(True, 1), (False, 1), (True, 2),
                                                          (False, 2)])
def test_packed_planes_are_the_same_with_and_without_the_extension(side_by_side, subsample,
                                                                   source, monkeypatch):
    """Planes at the eye's size, or larger (a half layout's full-size frame:
    squeezed 2:1 as the C loops read it, another ratio by ``shrink``)."""
    from stereo_inference.remap import warp_packed

    if native.planes is None:
        pytest.skip("the C extension was not built (no C compiler)")
    h, w = 24 // subsample, 40 // subsample
    rng = np.random.default_rng(7)
    x = np.arange(40, dtype=np.float32)
    left = (x + rng.uniform(-3, 3, (6, 40))).astype(np.float32)  # plans at luma size
    right = (left + 2).astype(np.float32)
    ph, pw = {"eye": (h, w), "2:1": (h, 2 * w) if side_by_side else (2 * h, w),
              "other": (h + 5, w + 7)}[source]
    planes = [plane(ph, pw, seed=8), plane(ph, pw, seed=9)]
    shape = (h, 2 * w) if side_by_side else (2 * h, w)
    results = []
    for _ in range(2):  # with the C extension, then with OpenCV alone
        dsts = [np.zeros(shape, np.uint8) for _ in planes]
        warp_packed(planes, left, right, dsts, side_by_side, subsample)
        results.append(np.stack(dsts).astype(int))
        monkeypatch.setattr(native, "planes", None)
    # the maps' float roundings differ (made row by row, or by OpenCV's resize)
    assert np.abs(results[0] - results[1]).max() <= 1
    assert (results[0] != results[1]).mean() < 0.001


def test_a_widened_plane_is_the_same_with_and_without_the_extension(monkeypatch):
    from stereo_inference.remap import warp_widened

    if native.planes is None:
        pytest.skip("the C extension was not built (no C compiler)")
    rng = np.random.default_rng(10)
    x = np.arange(20, dtype=np.float32)
    left = (x + rng.uniform(-3, 3, (6, 20))).astype(np.float32)  # plans at half width
    right = (left + 1.5).astype(np.float32)
    p = plane(24, 40, seed=11)
    with_c = warp_widened(p, left, right).astype(int)
    monkeypatch.setattr(native, "planes", None)
    alone = warp_widened(p, left, right).astype(int)
    assert with_c.shape == alone.shape == (24, 80)
    assert np.abs(with_c - alone).max() <= 1
    assert (with_c != alone).mean() < 0.001
