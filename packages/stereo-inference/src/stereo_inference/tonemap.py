"""HDR to SDR: tone-map decoded PQ or HLG planes to 8-bit BT.709, highlights compressed.

The shipped ffmpeg has ``tonemap`` but PyAV's libraries have no ``zscale`` to
linearise for it, so the operator runs here, vectorised in numpy on each decoded
10-bit Y'CbCr 4:2:0 frame:

1. Y'CbCr (the source's matrix and range) -> R'G'B';
2. R'G'B' -> linear light in nits: the PQ EOTF (SMPTE ST 2084) through a 4096-entry
   table, or HLG's inverse OETF and its OOTF (system gamma 1.2 at 1000 nits);
3. BT.2390's EETF on max(R, G, B) in the PQ domain, which leaves everything below
   its knee (about 30 nits for a 1000-nit master) untouched and rolls the rest off
   smoothly to SDR white (100 nits); RGB are scaled together, so hues stay put;
4. BT.2020 -> BT.709 primaries in linear light (out-of-gamut parts clipped);
5. the BT.709 OETF through a 65536-entry table, then 8-bit limited-range BT.709
   Y'CbCr.

Steps 1-5 run at chroma resolution (each 2x2 block: its mean luma and its
chroma sample), which gives the output chroma. Full-resolution luma is each
pixel's luma code through the same operator for a neutral pixel (a 1024-entry
curve), scaled by its block's colour correction (the exact luma over the curve's
at the block's mean, above black), bilinearly upsampled: exact on neutral and
flat colour, within a code or two on detail under colour, and about a sixth of
the time of running the operator on every pixel.

The source peak is the mastering display's maximum luminance, else MaxCLL, else
1000 nits.
"""

from __future__ import annotations

import re

import cv2
import numpy as np
from shared_types.models import DynamicRange, OutputMode
from stereo_media.hdr import HdrInfo

from stereo_inference.yuv_matrices import FULL_RANGE, KR_KB

PQ, HLG = 16, 18  # FFmpeg's transfer characteristics numbers
BT709, BT2020 = 1, 9  # primaries (and matrix numbers: 9 is BT.2020 non-constant)
SDR_WHITE_NITS = 100.0
DEFAULT_PEAK_NITS = 1000.0
SDR_COLOR = (BT709, BT709, BT709, 1)  # primaries, transfer, matrix, limited range
_BT2020_TO_BT709 = np.array([[1.660491, -0.587641, -0.072850],
                             [-0.124550, 1.132900, -0.008349],
                             [-0.018151, -0.100579, 1.118730]], np.float32)
_M1, _M2 = 2610 / 16384, 2523 / 4096 * 128
_C1, _C2, _C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
_SIGNAL_STEPS, _LINEAR_STEPS = 4095, 65535


def is_hdr(color: tuple[int, int, int, int] | None) -> bool:
    """True when ``color`` (primaries, transfer, matrix, range) is PQ or HLG."""
    return color is not None and color[1] in (PQ, HLG)


def pq_to_nits(signal):
    """SMPTE ST 2084 EOTF: PQ signal 0..1 -> luminance in cd/m2."""
    e = np.power(np.clip(signal, 0.0, 1.0), 1 / _M2)
    return 10000.0 * np.power(np.maximum(e - _C1, 0.0) / (_C2 - _C3 * e), 1 / _M1)


def nits_to_pq(nits):
    """The inverse of :func:`pq_to_nits`."""
    y = np.power(np.clip(np.asarray(nits, np.float64) / 10000.0, 0.0, 1.0), _M1)
    return np.power((_C1 + _C2 * y) / (1 + _C3 * y), _M2)


def hlg_to_scene(signal):
    """HLG inverse OETF (BT.2100): signal 0..1 -> scene light 0..1."""
    a, b = 0.17883277, 0.28466892
    c = 0.5 - a * np.log(4 * a)
    e = np.clip(signal, 0.0, 1.0)
    return np.where(e <= 0.5, e * e / 3, (np.exp((e - c) / a) + b) / 12)


def eetf(nits, source_peak: float, target_peak: float = SDR_WHITE_NITS):
    """BT.2390's EETF (no black lift): ``nits`` of a ``source_peak`` master -> nits
    of a ``target_peak`` display. Monotonic; identity below the knee."""
    if source_peak <= target_peak:
        return np.minimum(nits, target_peak)
    peak_pq = nits_to_pq(source_peak)
    e1 = nits_to_pq(nits) / peak_pq
    max_lum = nits_to_pq(target_peak) / peak_pq
    ks = 1.5 * max_lum - 0.5
    t = (e1 - ks) / (1 - ks)
    t2, t3 = t * t, t * t * t
    rolled = ((2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks)
              + (-2 * t3 + 3 * t2) * max_lum)
    e2 = np.where(e1 < ks, e1, np.minimum(rolled, max_lum))
    return pq_to_nits(e2 * peak_pq)


def bt709_oetf(linear):
    """BT.709 OETF: linear 0..1 -> signal 0..1."""
    x = np.clip(linear, 0.0, 1.0)
    return np.where(x < 0.018, 4.5 * x, 1.099 * np.power(x, 0.45) - 0.099)


def sdr_tone_mapper(color: tuple[int, int, int, int] | None, hdr: HdrInfo,
                    dynamic_range: DynamicRange) -> ToneMapper | None:
    """The ToneMapper for a source of ``color`` when SDR is asked of an HDR (PQ or
    HLG) source; None otherwise (an SDR source needs none: 10-bit SDR is only
    decoded at 8 bits)."""
    if dynamic_range is not DynamicRange.SDR or color is None or not is_hdr(color):
        return None
    return ToneMapper(color, hdr)


def dynamic_range_for(mode: OutputMode, asked: DynamicRange) -> DynamicRange:
    """What a conversion delivers: SDR for anaglyph whatever was asked (its colour
    mix assumes SDR and red/cyan glasses are worn in front of SDR screens; an HDR
    anaglyph was 8-bit PQ, banded and off-colour), else what was asked."""
    return DynamicRange.SDR if mode is OutputMode.ANAGLYPH else asked


def output_bit_depth(source_bit_depth: int, dynamic_range: DynamicRange) -> int:
    """8 when SDR is asked for, else the source's bit depth."""
    return 8 if dynamic_range is DynamicRange.SDR else source_bit_depth


def peak_nits(hdr: HdrInfo) -> float:
    """The source's peak luminance: mastering display max, else MaxCLL, else 1000."""
    if hdr.master_display:
        found = re.search(r"L\((\d+),", hdr.master_display)
        if found and int(found[1]) > 0:
            return int(found[1]) / 10_000
    if hdr.max_cll and int(hdr.max_cll.split(",")[0]) > 0:
        return float(hdr.max_cll.split(",")[0])
    return DEFAULT_PEAK_NITS


class ToneMapper:
    """Tone-map yuv420p10le frames (H*3/2, W) of an HDR source to yuv420p ones.

    ``color`` is the source's (primaries, transfer, matrix, range); call with a
    decoded array, get the 8-bit BT.709 array of the same shape (tagged with
    ``SDR_COLOR``). Raises ValueError when ``color`` is neither PQ nor HLG.
    """

    source_format = "yuv420p10le"
    output_color = SDR_COLOR

    def __init__(self, color: tuple[int, int, int, int], hdr: HdrInfo) -> None:
        if not is_hdr(color):
            raise ValueError(f"transfer {color[1] if color else None} is not PQ or HLG")
        primaries, transfer, matrix, rng = color
        self.hlg = transfer == HLG
        self.peak = DEFAULT_PEAK_NITS if self.hlg else min(10000.0, peak_nits(hdr))
        self.to_signal = _signal_matrix(*KR_KB.get(matrix, KR_KB[BT2020]), rng == FULL_RANGE)
        signal = np.linspace(0.0, 1.0, _SIGNAL_STEPS + 1)
        # PQ: nits; HLG: scene light 0..1, made display light by the OOTF per pixel
        self.to_light = (hlg_to_scene(signal) if self.hlg else pq_to_nits(signal)
                         ).astype(np.float32)
        # the tone curve as a gain on max(R,G,B) that also makes SDR white 1.0,
        # indexed by PQ signal (PQ sources) or by linear fraction of the peak (HLG)
        nits = self.to_light.astype(np.float64) if not self.hlg else \
            np.linspace(0.0, self.peak, _LINEAR_STEPS + 1)
        gain = np.divide(eetf(nits, self.peak), nits, out=np.ones_like(nits), where=nits > 0)
        self.gain = (gain / SDR_WHITE_NITS).astype(np.float32)
        gamut = _BT2020_TO_BT709 if primaries in (BT2020, 2) else np.eye(3, dtype=np.float32)
        self.to_oetf_index = np.hstack([gamut * _LINEAR_STEPS, np.full((3, 1), 0.5)]
                                       ).astype(np.float32)
        self.oetf = bt709_oetf(np.linspace(0.0, 1.0, _LINEAR_STEPS + 1)).astype(np.float32)

        # the luma a neutral pixel of each 10-bit luma code comes out with (8-bit units)
        codes = np.arange(1024, dtype=np.float32)
        neutral = np.stack([codes, np.full_like(codes, 512), np.full_like(codes, 512)], -1)
        self.luma_curve = cv2.transform(self._bt709_rgb(neutral[None]), _BT709_Y).reshape(-1)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        rows, w = frame.shape
        h = rows * 2 // 3
        luma = frame[:h]
        # the exact operator at chroma resolution, on each 2x2 block's mean luma
        mean_luma = cv2.resize(luma.astype(np.float32), (w // 2, h // 2),
                               interpolation=cv2.INTER_AREA)
        chroma = frame[h:].reshape(2, h // 2, w // 2).astype(np.float32)
        rgb = self._bt709_rgb(cv2.merge([mean_luma, chroma[0], chroma[1]]))
        out = np.empty((rows, w), np.uint8)
        cbcr = cv2.convertScaleAbs(cv2.transform(rgb, _BT709_CBCR))
        out[h:] = cbcr.transpose(2, 0, 1).reshape(rows - h, w)
        # full-resolution luma: each pixel's neutral curve, scaled by its block's
        # colour correction (exact luma over the curve's at the block's mean luma)
        curve_at_mean = self.luma_curve[np.clip(mean_luma + 0.5, 0, 1023).astype(np.intp)]
        exact = cv2.transform(rgb, _BT709_Y).reshape(curve_at_mean.shape)
        gain = (exact - 16) / np.maximum(curve_at_mean - 16, 1e-3)
        detail = self.luma_curve[np.minimum(luma, 1023)] - 16
        detail *= cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
        out[:h] = cv2.convertScaleAbs(detail, beta=16)
        return out

    def _bt709_rgb(self, ycc: np.ndarray) -> np.ndarray:
        """(H, W, 3) Y'CbCr codes of the source -> tone-mapped BT.709 R'G'B' 0..1."""
        scaled = cv2.transform(ycc, self.to_signal)
        light = self.to_light[_index(scaled, _SIGNAL_STEPS)]
        if self.hlg:  # OOTF: display light = peak * Ys^(gamma-1) * scene light
            ys = cv2.transform(light, _HLG_LUMA)
            light *= (self.peak * np.power(np.maximum(ys, 1e-6), 0.2))[..., None]
            brightest = _max3(light) * (_LINEAR_STEPS / self.peak) + 0.5
            brightest = _index(brightest, _LINEAR_STEPS)
        else:  # PQ is monotonic: the brightest channel has the largest signal
            brightest = _max3(scaled).astype(np.intp)
        light *= self.gain[brightest][..., None]
        return self.oetf[_index(cv2.transform(light, self.to_oetf_index), _LINEAR_STEPS)]


def _index(scaled: np.ndarray, steps: int) -> np.ndarray:
    """Table indexes from a temporary array of ``value * steps + 0.5`` (clipped in place)."""
    np.clip(scaled, 0, steps, out=scaled)
    return scaled.astype(np.intp)


def _max3(image: np.ndarray) -> np.ndarray:
    """Per-pixel maximum of an (H, W, 3) float32 image's channels."""
    a, b, c = cv2.split(image)
    return cv2.max(cv2.max(a, b), c)


def _signal_matrix(kr: float, kb: float, full: bool) -> np.ndarray:
    """3x4 matrix: Y'CbCr 10-bit codes -> R'G'B' signal as table indexes."""
    kg = 1 - kr - kb
    to_rgb = np.array([[1, 0, 2 * (1 - kr)],
                       [1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg],
                       [1, 2 * (1 - kb), 0]])
    y_scale, c_scale, y0 = (1 / 1023, 1 / 1023, 0) if full else (1 / 876, 1 / 896, 64)
    codes = np.diag([y_scale, c_scale, c_scale])
    offset = -codes @ np.array([y0, 512, 512])
    m = to_rgb @ np.hstack([codes, offset[:, None]])
    m *= _SIGNAL_STEPS
    m[:, 3] += 0.5
    return m.astype(np.float32)


_HLG_LUMA = np.array([[0.2627, 0.6780, 0.0593]], np.float32)
_BT709_Y = np.array([[219 * 0.2126, 219 * 0.7152, 219 * 0.0722, 16]], np.float32)
_BT709_CBCR = np.array([[224 * -0.2126 / 1.8556, 224 * -0.7152 / 1.8556, 224 * 0.5, 128],
                        [224 * 0.5, 224 * -0.7152 / 1.5748, 224 * -0.0722 / 1.5748, 128]],
                       np.float32)
