import av
import cv2
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from shared_types.models import AnaglyphMethod

from stereo_inference.anaglyph import mix_cpu, mix_rgb, mix_tensor


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
def test_mixing_planes_matches_mixing_rgb(method, cpu_loops):
    left, right = to_yuv(smooth_rgb(1)), to_yuv(smooth_rgb(2))
    out = mix(left, right, method)
    diff = np.abs(out.astype(int) - float_reference(left, right, method))
    # rounding and chroma resampling, except where Dubois clips RGB (planes clip Y, U, V)
    mean, worst = (0.6, 12) if method is AnaglyphMethod.DUBOIS else (0.5, 6)
    if cpu_loops == "c":  # float from the planes in to the planes out: one rounding
        mean = 0.25
    assert diff.mean() < mean
    assert diff.max() <= worst


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_the_tensor_mixer_matches_the_cpu_mixer(method, cpu_loops):
    left, right = to_yuv(smooth_rgb(3)), to_yuv(smooth_rgb(4))
    out = mix(left, right, method)
    ly, ry = (torch.from_numpy(planes(x)[0]).float()[None, None] for x in (left, right))
    cl, cr = (torch.cat([F.avg_pool2d(y, 2), torch.from_numpy(planes(x)[1]).float()[None]], 1)
              for x, y in ((left, ly), (right, ry)))
    tensor = mix_tensor(ly, ry, cl, cr, method)
    tensor = tensor.add(0.5).clamp(0, 255).to(torch.uint8)[0].numpy()
    assert np.abs(tensor.astype(int) - out.astype(int)).max() <= 1


@pytest.mark.parametrize("method", list(AnaglyphMethod))
def test_the_left_eye_is_red_and_the_right_eye_cyan(method, cpu_loops):
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
