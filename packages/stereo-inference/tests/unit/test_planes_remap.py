"""The C row resampler (``_planes.remap_x``) gives OpenCV's remap pixels to the bit."""

import ctypes
import mmap

import cv2
import numpy as np
import pytest

planes = pytest.importorskip(
    "stereo_inference._planes", reason="the C extension was not built (no C compiler)")

KINDS = [(np.uint8, 256), (np.uint16, 1024)]
LEVELS = {"avx512": 2, "avx2": 1, "scalar": 0}


def level(name: str):
    """A vector level as a test parameter, skipped on a CPU without it (a call
    asking for more runs the best level below: the test would pass unexercised)."""
    best = LEVELS[planes.simd()]
    return pytest.param(LEVELS[name], id=name, marks=pytest.mark.skipif(
        LEVELS[name] > best, reason=f"this CPU has no {name}"))


PATHS = [level(name) for name in LEVELS]


def opencv(src: np.ndarray, map_x: np.ndarray) -> np.ndarray:
    """OpenCV's bilinear remap along rows, the stacked eyes reading ``src`` again."""
    rows, cols = map_x.shape
    map_y = np.repeat((np.arange(rows) % src.shape[0]).astype(np.float32)[:, None], cols, 1)
    return cv2.remap(src, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def warp_like_map(rows: int, cols: int, w: int, seed: int) -> np.ndarray:
    """Positions as a warp makes them (near x, with jumps and holes) plus every edge case."""
    rng = np.random.default_rng(seed)
    x = np.arange(cols, dtype=np.float32) * (w / cols)
    m = x + 6 * np.sin(x / 30) + rng.normal(0, 0.3, (rows, cols))
    m[:, ::37] += rng.uniform(-40, 40, (rows, len(range(0, cols, 37))))  # depth edges
    edges = [-1e9, -3.5, -1.0, -0.25, 0.0, 0.5, w - 2, w - 1.5, w - 1, w - 0.5, w, w + 7.25, 1e9]
    m[0, : min(cols, len(edges))] = edges[:cols]
    m[2] = np.floor(m[2])  # whole positions: weight 0
    return m.astype(np.float32)


@pytest.mark.parametrize("simd", PATHS)
@pytest.mark.parametrize(("dtype", "top"), KINDS)
def test_every_position_is_read_as_opencv_reads_it(dtype, top, simd):
    rng = np.random.default_rng(1)
    src = rng.integers(0, top, (37, 203)).astype(dtype)
    for cols, repeats in ((203, 1), (406, 1), (101, 2), (5, 1)):  # same, 2x, half, a tail only
        m = warp_like_map(37 * repeats, cols, 203, seed=cols)
        out = np.zeros((37 * repeats, cols), dtype)
        planes.remap_x(src, m, out, simd)
        assert np.array_equal(out, opencv(src, m))
    # not a number (OpenCV's answer there is its own): the row's first sample
    m[:, 1] = np.nan
    planes.remap_x(src, m, out, simd)
    assert np.array_equal(out[:, 1], src[:, 0])


# (position, left sample, right sample) whose value lands within a rounding of
# .5: the multiply and add rounded once (a fused multiply-add, as OpenCV does)
# give another level than rounded twice (found among 20 million random draws)
NEAR_HALF = {
    np.uint8: [(24.918224334716797, 240, 26)],
    np.uint16: [(343.8879699707031, 742, 77), (52.92115020751953, 429, 968),
                (286.9808044433594, 938, 391), (120.99313354492188, 828, 27),
                (36.382698, 528, 869), (245.98232, 388, 77)],
}


@pytest.mark.parametrize("simd", PATHS)
@pytest.mark.parametrize(("dtype", "top"), KINDS)
def test_values_halfway_between_two_levels_round_as_opencv_rounds_them(dtype, top, simd):
    rng = np.random.default_rng(2)
    src = rng.integers(0, top, (64, 512)).astype(dtype)
    m = (np.arange(511, dtype=np.float32) + rng.random((64, 511), dtype=np.float32))
    for row, (x, p0, p1) in enumerate(NEAR_HALF[dtype]):
        src[row, int(x) : int(x) + 2] = p0, p1
        m[row, :16] = np.float32(x)  # eight lanes and more of it
    out = np.empty((64, 511), dtype)
    planes.remap_x(src, m, out, simd)
    assert np.array_equal(out, opencv(src, m))


@pytest.mark.parametrize("simd", PATHS)
def test_views_with_their_own_row_strides_are_read_in_place(simd):
    base = np.random.default_rng(3).integers(0, 256, (24, 64)).astype(np.uint8)
    m = warp_like_map(12, 40, 40, seed=4)
    for src in (base[::2, 5:45], base[::-2, 5:45]):  # every other row; upside down
        out = np.empty((24, 80), np.uint8)[:12, :40]
        planes.remap_x(src, m, out, simd)
        assert np.array_equal(out, opencv(np.ascontiguousarray(src), m))


@pytest.mark.parametrize(("dtype", "top"), KINDS)
def test_a_plane_ending_where_memory_ends_is_never_read_past(dtype, top):
    # the plane's last row ends at a page that cannot be read: a read past it kills the test
    page = mmap.PAGESIZE
    buf = mmap.mmap(-1, 2 * page)
    libc = ctypes.CDLL(None)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    assert libc.mprotect(ctypes.c_void_p(addr + page), page, 0) == 0  # PROT_NONE
    try:
        itemsize = np.dtype(dtype).itemsize
        w = 64
        h = page // (w * itemsize)
        src = np.frombuffer(buf, dtype, count=h * w).reshape(h, w)
        src[:] = np.random.default_rng(5).integers(0, top, (h, w))
        m = np.full((h, w), w - 1.25, np.float32)  # every pixel reads the last pair
        m[:, ::2] = 0.5  # eight far-apart positions: a gather, not a window of the row
        out = np.empty((h, w), dtype)
        for simd in range(LEVELS[planes.simd()] + 1):
            planes.remap_x(src, m, out, simd)
            assert np.array_equal(out, opencv(src.copy(), m))
        del src
    finally:
        libc.mprotect(ctypes.c_void_p(addr + page), page, 3)  # read/write again
        buf.close()


def test_mismatched_planes_are_refused_with_the_reason():
    src = np.zeros((4, 8), np.uint8)
    with pytest.raises(TypeError, match="map_x must be float32"):
        planes.remap_x(src, np.zeros((4, 8), np.float64), np.zeros((4, 8), np.uint8))
    with pytest.raises(TypeError, match="must both be uint8 or both uint16"):
        planes.remap_x(src, np.zeros((4, 8), np.float32), np.zeros((4, 8), np.uint16))
    with pytest.raises(ValueError, match="map_x must be 4 x 8, not 4 x 7"):
        planes.remap_x(src, np.zeros((4, 7), np.float32), np.zeros((4, 8), np.uint8))
    with pytest.raises(ValueError, match="whole number of src's rows"):
        planes.remap_x(src, np.zeros((6, 8), np.float32), np.zeros((6, 8), np.uint8))
    with pytest.raises(ValueError, match="contiguous along x"):
        planes.remap_x(src[:, ::2], np.zeros((4, 4), np.float32), np.zeros((4, 4), np.uint8))
    with pytest.raises(ValueError, match="dst must be 2-D"):
        planes.remap_x(src, np.zeros((4, 8), np.float32), np.zeros((4, 8), np.uint8)[None])
    with pytest.raises(BufferError):
        planes.remap_x(src, np.zeros((4, 8), np.float32),
                       np.zeros((4, 8), np.uint8).data.toreadonly())


def ramp(h: int, w: int) -> np.ndarray:
    """uint16 samples that say where they are: 64 levels a pixel, so a warped
    sample is its source position to 1/64 px."""
    return np.tile((np.arange(w) * 64).astype(np.uint16), (h, 1))


@pytest.mark.parametrize("simd", PATHS)
@pytest.mark.parametrize(("rows", "widen"), [(12, False), (5, False), (12, True), (7, True)])
def test_a_plan_stretched_row_by_row_reads_where_its_whole_map_would(rows, widen, simd):
    from stereo_inference.remap import packed_map, widened_map

    h, w = 48, 64
    rng = np.random.default_rng(6)
    pw = w // 2 if widen else w  # widened plans are made at half width
    base = np.arange(pw, dtype=np.float32) + 4 * np.sin(np.arange(pw) / 5)
    left = (base + rng.uniform(-2, 2, (rows, pw))).astype(np.float32)
    right = (left + rng.uniform(0, 3, (rows, 1))).astype(np.float32)
    if widen:
        src, m = ramp(h, w), widened_map(left, right, h, w)
    else:
        src, m = ramp(h, w), packed_map(left, right, h, w, side_by_side=True)
    out = np.empty(m.shape, np.uint16)
    planes.remap_plan(src, np.concatenate([left, right], axis=1), out, eyes=2, widen=widen,
                      simd=simd)
    expected = np.clip(m, 0, w - 1) * 64
    assert np.abs(out - expected).max() <= 0.5 + 1e-3  # the same positions, rounded once


def test_a_widened_plan_holds_each_eye_s_own_ends():
    h, w = 4, 16
    left = np.full((2, w // 2), 3.0, np.float32)
    right = np.full((2, w // 2), 5.0, np.float32)
    right[:, 0] = 0.0  # the right eye's first column reads far left
    out = np.empty((h, 2 * w), np.uint16)
    planes.remap_plan(ramp(h, w), np.concatenate([left, right], axis=1), out, eyes=2, widen=True)
    assert np.all(out[:, w - 1] == 64 * 6.5)  # left's last column: its own 3.0, doubled + 0.5
    assert np.all(out[:, w] == 64 * 0.5)  # right's first: its own 0.0, not blended with left
    assert np.all(out[:, w + 1] == round(64 * (2 * 0.75 * 0.0 + 2 * 0.25 * 5.0 + 0.5)))


def test_plans_that_do_not_fit_are_refused_with_the_reason():
    src = np.zeros((4, 8), np.uint8)
    with pytest.raises(ValueError, match="dst must be 4 x 16, not 4 x 8"):
        planes.remap_plan(src, np.zeros((2, 8), np.float32), np.zeros((4, 8), np.uint8),
                          widen=True)
    with pytest.raises(ValueError, match="split into `eyes` blocks"):
        planes.remap_plan(src, np.zeros((2, 9), np.float32), np.zeros((4, 9), np.uint8), eyes=2)
    with pytest.raises(TypeError, match="plan must be float32"):
        planes.remap_plan(src, np.zeros((2, 8)), np.zeros((4, 8), np.uint8))


@pytest.mark.parametrize("simd", PATHS)
@pytest.mark.parametrize(("dtype", "top"), KINDS)
@pytest.mark.parametrize("axis", ["x", "y"])
def test_a_halved_source_is_opencvs_2_to_1_resize_then_the_warp(axis, dtype, top, simd):
    h, w = 36, 128  # the plane as the warp reads it
    rng = np.random.default_rng(9)
    full = rng.integers(0, top, (h, 2 * w) if axis == "x" else (2 * h, w)).astype(dtype)
    squeezed = cv2.resize(full, (w, h), interpolation=cv2.INTER_LINEAR)
    x = np.arange(w, dtype=np.float32)
    left = (x + 3 * np.sin(x / 9) + rng.uniform(-2, 2, (9, 1))).astype(np.float32)
    right = (left + rng.uniform(0, 4, (9, 1)) + 0.5).astype(np.float32)
    plan = np.concatenate([left, right], axis=1)
    expected = np.empty((h, 2 * w), dtype)
    planes.remap_plan(squeezed, plan, expected, eyes=2, simd=simd)
    out = np.empty_like(expected)
    planes.remap_plan(full, plan, out, eyes=2, simd=simd, halve=1 if axis == "x" else 2)
    assert np.array_equal(out, expected)
    one_eye = np.empty((h, w), dtype)  # top-bottom: one call an eye
    planes.remap_plan(full, right, one_eye, simd=simd, halve=1 if axis == "x" else 2)
    planes.remap_plan(squeezed, right, expected[:, :w], simd=simd)
    assert np.array_equal(one_eye, expected[:, :w])


def test_a_halved_source_must_be_even_along_the_halved_axis():
    plan = np.zeros((2, 8), np.float32)
    with pytest.raises(ValueError, match="even size"):
        planes.remap_plan(np.zeros((4, 17), np.uint8), plan, np.zeros((4, 8), np.uint8), halve=1)
    with pytest.raises(ValueError, match="even size"):
        planes.remap_plan(np.zeros((5, 8), np.uint8), plan, np.zeros((4, 8), np.uint8), halve=2)
    with pytest.raises(ValueError, match="halve must be"):
        planes.remap_plan(np.zeros((4, 16), np.uint8), plan, np.zeros((4, 8), np.uint8), halve=3)
