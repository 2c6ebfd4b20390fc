import av
import cv2
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from shared_types.models import AnaglyphMethod

from stereo_inference.anaglyph import mix_cpu, mix_rgb, mix_tensor, warp_mix_cpu


def to_rgb(yuv: np.ndarray) -> np.ndarray:
    return av.VideoFrame.from_ndarray(yuv, format="yuv420p").to_ndarray(format="rgb24")


def to_yuv(rgb: np.ndarray) -> np.ndarray:
    return av.VideoFrame.from_ndarray(rgb, format="rgb24").to_ndarray(format="yuv420p")


def smooth_rgb(seed: int, h: int = 64, w: int = 96) -> np.ndarray:
    """A colourful picture without single-pixel detail (chroma subsampling keeps it)."""
    rng = np.random.default_rng(seed)
    small = rng.integers(20, 235, (h // 8, w // 8, 3)).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def float_reference(left: np.ndarray, right: np.ndarray, method) -> np.ndarray:
    """The anaglyph mixed in RGB: chroma upsampled, exact BT.601 conversions in
    float, the RGB mix (clamped), back to yuv420p with chroma averaged 2x2."""
    a = np.array([[65.481, 128.553, 24.966], [-37.797, -74.203, 112.0],
                  [112.0, -93.786, -18.214]])  # BT.601 limited range, codes per unit RGB
    o = np.array([16.0, 128.0, 128.0])
    h, w = left.shape[0] * 2 // 3, left.shape[1]

    def rgb(yuv):
        u, v = (cv2.resize(c.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
                for c in yuv[h:].reshape(2, h // 2, w // 2))
        full = np.dstack([yuv[:h].astype(np.float32), u, v]) - o
        return torch.from_numpy(full @ np.linalg.inv(a).T).permute(2, 0, 1)[None].float()

    mixed = mix_rgb(rgb(left), rgb(right), method)[0].permute(1, 2, 0).double().numpy()
    yuv = mixed @ a.T + o
    chroma = yuv[..., 1:].reshape(h // 2, 2, w // 2, 2, 2).mean(axis=(1, 3))
    out = np.concatenate([yuv[..., 0], chroma[..., 0].reshape(h // 4, w),
                          chroma[..., 1].reshape(h // 4, w)])
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def planes(yuv: np.ndarray):
    """One frame's (luma, (U, V)) as an eye."""
    h = yuv.shape[0] * 2 // 3
    return yuv[:h], yuv[h:].reshape(2, h // 2, -1)


def mix(left: np.ndarray, right: np.ndarray, method) -> np.ndarray:
    """``mix_cpu`` with its inputs laid out: the eyes side by side, U above V."""
    (ly, (lu, lv)), (ry, (ru, rv)) = planes(left), planes(right)
    out = np.empty_like(left)
    mix_cpu(np.hstack([ly, ry]), np.hstack([lu, ru]), np.hstack([lv, rv]), out, method)
    return out


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_mixing_planes_matches_mixing_rgb(method):
    left, right = to_yuv(smooth_rgb(1)), to_yuv(smooth_rgb(2))
    out = mix(left, right, method)
    diff = np.abs(out.astype(int) - float_reference(left, right, method))
    # rounding and chroma resampling, except where Dubois clips RGB (planes clip Y, U, V)
    mean, worst = (0.6, 12) if method is AnaglyphMethod.DUBOIS else (0.5, 6)
    assert diff.mean() < mean
    assert diff.max() <= worst


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_the_tensor_mixer_matches_the_cpu_mixer(method):
    left, right = to_yuv(smooth_rgb(3)), to_yuv(smooth_rgb(4))
    out = mix(left, right, method)
    ly, ry = (torch.from_numpy(planes(x)[0]).float()[None, None] for x in (left, right))
    cl, cr = (torch.cat([F.avg_pool2d(y, 2), torch.from_numpy(planes(x)[1]).float()[None]], 1)
              for x, y in ((left, ly), (right, ry)))
    tensor = mix_tensor(ly, ry, cl, cr, method)
    tensor = tensor.add(0.5).clamp(0, 255).to(torch.uint8)[0].numpy()
    assert np.abs(tensor.astype(int) - out.astype(int)).max() <= 1


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_the_left_eye_is_red_and_the_right_eye_cyan(method):
    white, black = torch.ones(1, 3, 2, 2), torch.zeros(1, 3, 2, 2)
    left_only, right_only = mix_rgb(white, black, method), mix_rgb(black, white, method)
    assert left_only[:, 0].mean() > 0.4
    assert left_only[:, 1:].max() < 0.05
    assert right_only[:, 1:].mean() > 0.4
    assert right_only[:, 0].max() < 0.05
    # and so on planes: a white left eye over a black right eye comes out red
    h, w = 8, 8
    white_yuv, black_yuv = (to_yuv(np.full((h, w, 3), v, np.uint8)) for v in (255, 0))
    r, g, b = to_rgb(mix(white_yuv, black_yuv, method)).reshape(-1, 3).mean(axis=0)
    assert r > 100
    assert g < 20
    assert b < 20


def warp_mix(frame: np.ndarray, left: np.ndarray, right: np.ndarray, method) -> np.ndarray:
    """``warp_mix_cpu`` on a yuv420p frame with both eyes' plans (rows, w/2)."""
    y, (u, v) = planes(frame)
    out = np.empty_like(frame)
    warp_mix_cpu(y, u, v, left.astype(np.float32), right.astype(np.float32), out, method)
    return out


def still_plan(rows: int, w: int) -> np.ndarray:
    """The plan that moves nothing, at chroma width (w/2)."""
    return np.tile(np.arange(w // 2, dtype=np.float32), (rows, 1))


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_warping_and_mixing_a_still_frame_matches_mixing_it_in_rgb(method, cpu_loops):
    frame = to_yuv(smooth_rgb(5))
    still = still_plan(4, frame.shape[1])
    diff = np.abs(warp_mix(frame, still, still, method).astype(int)
                  - float_reference(frame, frame, method))
    mean, worst = (0.6, 12) if method is AnaglyphMethod.DUBOIS else (0.5, 6)
    if cpu_loops == "c":  # float from the source's samples to the output's: one rounding
        mean = 0.25
    assert diff.mean() < mean
    assert diff.max() <= worst


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_each_eye_reads_where_its_own_plan_says(method, cpu_loops):
    h, w = 8, 16
    frame = to_yuv(np.hstack([np.full((h, w // 2, 3), 255, np.uint8),
                              np.zeros((h, w // 2, 3), np.uint8)]))
    left = np.full((2, w // 2), 1.0, np.float32)  # the white half, in chroma-width x
    right = np.full((2, w // 2), 6.0, np.float32)  # the black half
    r, g, b = to_rgb(warp_mix(frame, left, right, method)).reshape(-1, 3).mean(axis=0)
    assert r > 100
    assert g < 20
    assert b < 20


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_the_c_anaglyph_matches_warping_whole_planes_and_mixing_with_opencv(method,
                                                                             monkeypatch):
    from stereo_inference import native

    if native.planes is None:
        pytest.skip("the C extension was not built (no C compiler)")
    frame = to_yuv(smooth_rgb(6))
    rng = np.random.default_rng(12)
    left = still_plan(5, frame.shape[1]) + rng.uniform(-2, 2, (5, 1))
    right = still_plan(5, frame.shape[1]) + rng.uniform(-2, 2, (5, 1)) + 1.5
    with_c = warp_mix(frame, left, right, method).astype(int)
    monkeypatch.setattr(native, "planes", None)
    alone = warp_mix(frame, left, right, method).astype(int)
    # the same warp; the OpenCV mix rounds its chroma part to uint8 before upsampling it
    assert np.abs(with_c - alone).max() <= 2
    assert np.abs(with_c - alone).mean() < 0.5


def test_planes_that_do_not_fit_the_anaglyph_are_refused_with_the_reason():
    from stereo_inference import native

    if native.planes is None:
        pytest.skip("the C extension was not built (no C compiler)")
    y, u, v = np.zeros((8, 16), np.uint8), np.zeros((4, 8), np.uint8), np.zeros((4, 8), np.uint8)
    plan, m = np.zeros((2, 16), np.float32), np.zeros((3, 4), np.float32)
    outs = np.zeros((8, 16), np.uint8), np.zeros((4, 8), np.uint8), np.zeros((4, 8), np.uint8)
    native.planes.anaglyph(y, u, v, plan, *outs, m, m, 0.5, 0.5)  # fits
    with pytest.raises(ValueError, match="u must be 4 x 8, not 4 x 7"):
        native.planes.anaglyph(y, u[:, :7], v, plan, *outs, m, m, 0.5, 0.5)
    with pytest.raises(ValueError, match="plan must be 2 x 16, not 2 x 8"):
        native.planes.anaglyph(y, u, v, plan[:, :8], *outs, m, m, 0.5, 0.5)
    with pytest.raises(TypeError, match="left must be 3x4 float32"):
        native.planes.anaglyph(y, u, v, plan, *outs, m[:2], m, 0.5, 0.5)
    with pytest.raises(ValueError, match="y must be an even size"):
        native.planes.anaglyph(y[:7], u, v, plan, *outs, m, m, 0.5, 0.5)
