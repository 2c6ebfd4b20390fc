"""A shot's first depth: its parallax read against several frames ahead, combined.

The first frame of a shot has no past, so the weight-free estimator reads
it against the frames that follow (the engine decodes them ahead:
``stereo_inference.lookahead``). One reading is one flow, and a flow's
noise at the estimator's small sizes is a good part of a slow motion's
parallax. So the first frame is read against up to ``READINGS`` frames
ahead, the farthest of ``CANDIDATES`` that the shot's pace keeps within
``TRAVEL`` (of the frame's width) of movement (the larger of the typical
movement and the picture's against itself, ``baseline.spread``: an orbit's
near and far things move apart while its middle stays; read against the
frames that pace allows, the real scenes' fast orbits and dollies order
0.01-0.03 better, up to 0.887 -> 0.918, and no shot worse): slow motions get far
references (more parallax), fast ones near ones (DIS loses track past a
few percent of the width). The pace of one frame's flow holds the flow's
noise as well as the motion, and x264's is large: a slow dolly through
x264 at CRF 28 (reindeer's) spread 0.63 px over one frame at the working
width, 0.18 a frame over eight, as uncompressed over one; its first frame
was read against 4 frames ahead instead of 16. So the pace is read again over
the farthest frame that first pace allows, where the motion has added up
and the noise has not, and the readings chosen again when it is slower
(the real scenes through x264 at CRF 23, the moving shots' first frames:
fresh 0.921 -> 0.927, its worst 0.609 -> 0.784; no shot worse
uncompressed). Each reading is turned to what the shot knows
(``parallax_depth.runs_against``: a handheld sway's readings flip sign from
one reference to the next), centred on its median and scaled by its spread,
then the readings are averaged, weighted by their consistency, by their
signal over noise squared (a normalised reading's noise is one over it), by
how far they are more than a leftover turn, and by the distance from the
focus of expansion, where a dolly's parallax vanishes (there the inverse
depth is taken unbiased: ``parallax`` regularises it towards zero). Where
that weight is low the average is filled in from around (a normalised
convolution). The trust is that of the readings' signal over noise added in
quadrature: several weak readings of the same depth make a strong one. The
result is brought back to the units of one frame of baseline (the
readings' mean spread per frame), so that the shot's running parallax range
(``parallax_depth.ParallaxScale``) goes on from it.

On the tuned real scenes (``bench/depth_real.py``, moving shots' first
frames, the combined reading alone, at the working size): one reading 8
frames ahead read at 384 px 0.939 mean / 0.879 worst (0.917 / 0.731 at 256
px); three or four chosen by the pace 0.950 / 0.880; with the inverse depth
unbiased near the focus of expansion, weighted down there and filled in
0.954 / 0.908 (the dollies gain, the rest holds); two readings 0.952 / 0.896.
The whole estimator orders these shots' first frames 0.949 / 0.903.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from stereo_inference.depth.baseline import reach
from stereo_inference.depth.parallax import (
    FlowField,
    Parallax,
    across_cut,
    flow_at_size,
    parallax,
    trust_of,
)
from stereo_inference.depth.parallax_depth import runs_against

CANDIDATES = (1, 2, 4, 8, 12, 16)  # frames ahead a reading may lie
READINGS = 3  # at most this many, the farthest the pace allows
TRAVEL = 12 / 384  # typical movement (of the width) a reading may span at most
FILL_SIGMA = 1 / 16  # of the width: how far the fill reaches
# A reading whose parallax spread stands CLEAR_FROM times above the flow's
# noise starts to count as more than a leftover turn however small that spread
# is against its median (``parallax``'s unequal factor), CLEAR_SPAN more fully
CLEAR_FROM, CLEAR_SPAN = 6.0, 6.0


@dataclass(frozen=True)
class FirstReading:
    inverse_depth: np.ndarray  # (h,w) per frame of baseline, oriented, filled in; working size
    trust: float  # 0..1: the readings' mean trust
    flows: list[tuple[int, np.ndarray]]  # (frames ahead, (h,w,2) flow) of each: the still test
    frames: tuple[int, ...]  # how far ahead each reading lay


def frames_to_read(pace: float, width: int, available: int) -> list[int]:
    """Frames ahead to read against, nearest first: the farthest READINGS of
    CANDIDATES whose travel at ``pace`` (px a frame at ``width``) stays within
    TRAVEL, and within the ``available`` frames (the nearest one at least)."""
    usable = [k for k in CANDIDATES if k <= available]
    if not usable:
        return []
    within = [k for k in usable if k * pace <= TRAVEL * width]
    return (within or usable[:1])[-READINGS:]


def read_first(flow_field: FlowField, frame: np.ndarray, following: list[np.ndarray],
               pace: float, size: tuple[int, int], known: np.ndarray) -> FirstReading | None:
    """The combined reading of grey ``frame`` against ``following`` grey frames
    (both at the input size), ``pace`` px a frame at the working ``size``
    (w, h), oriented as ``known`` (the static cue); None when no reference
    matches (a cut right after the frame)."""
    measured: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def flow_to(k: int) -> tuple[np.ndarray, np.ndarray]:
        if k not in measured:
            measured[k] = flow_at_size(*flow_field.backward(frame, following[k - 1]), size)
        return measured[k]

    def ahead(pace: float) -> list[int]:
        return frames_to_read(pace * frame.shape[1] / size[0], frame.shape[1], len(following))

    chosen = ahead(pace)
    if chosen and chosen[-1] > 1 and not across_cut(flow_to(chosen[-1])[1]):
        # the pace over the farthest reading: noise inflates one frame's
        # reach, not the travel over several (the module's docstring)
        chosen = ahead(min(pace, reach(*flow_to(chosen[-1])) / chosen[-1]))
    total = weights = None
    snr2, unequal, shares, spreads, read, flows = 0.0, 0.0, 0.0, [], [], []
    for k in chosen:
        flow, consistency = flow_to(k)
        if across_cut(consistency):
            break  # the farther ones lie past the same cut
        flows.append((k, flow))
        p = parallax(flow, consistency)
        inverse, weight = p.unbiased()  # near the focus of expansion the fill takes over
        if not p.sure_side and runs_against(inverse, known, weight):
            inverse = -inverse
        trusted = inverse[weight > 0.5]
        beyond_turn = _beyond_turn(p)
        share = beyond_turn * p.above_noise ** 2  # a normalised reading's noise: 1 / its SNR^2
        if trusted.size < 32 or share <= 0:
            continue
        lo, mid, hi = np.quantile(trusted[::4], (0.02, 0.5, 0.98))
        spread = max(float(hi - lo), 1e-6)
        part = share * weight * (inverse - mid) / spread
        total = part if total is None else total + part
        weights = share * weight if weights is None else weights + share * weight
        snr2 += p.above_noise ** 2
        unequal += share * beyond_turn
        shares += share
        spreads.append(spread / k)
        read.append(k)
    if not flows:
        return None
    if total is None or weights is None:  # no reading holds parallax: a still camera, a pan
        return FirstReading(np.zeros(size[::-1], np.float32), 0.0, flows, ())
    return FirstReading(_filled(total, weights, shares) * float(np.mean(spreads)),
                        trust_of(float(np.sqrt(snr2)), unequal / shares), flows,
                        tuple(read))


def _beyond_turn(p: Parallax) -> float:
    """0..1: how far reading ``p`` is more than a leftover turn. Its unequal
    factor (a turn moves everything nearly alike), unless its parallax stands
    clear of the noise: a shallow room trucked past spreads its parallax over
    a third of its median (TUM's office: factor 0.2-0.4, so the shot started on
    the ramp mixed in at 0.6 and ordered 0.67-0.72) while each reading
    ordered 0.94-0.97 at 8-20 times the noise, and a tripod pan's readings
    stand at 0.7-3.2 times it (the real scenes' ``pan`` shots). Later readings
    keep the factor: each of them fully trusted replaces more of the shot's
    depth, and a sway's (factor 0.6-0.8) raised its flicker by a third."""
    return max(p.unequal, float(np.clip((p.above_noise - CLEAR_FROM) / CLEAR_SPAN, 0, 1)))


def _filled(total: np.ndarray, weights: np.ndarray, full: float) -> np.ndarray:
    """The weighted mean ``total / weights``, filled in where ``weights`` is low
    (against ``full``, what the readings weigh where all hold) from around."""
    sigma = FILL_SIGMA * total.shape[1]
    around = cv2.GaussianBlur(total.astype(np.float32), (0, 0), sigma) / np.maximum(
        cv2.GaussianBlur(weights.astype(np.float32), (0, 0), sigma), 1e-6)
    here = total / np.maximum(weights, 1e-6)
    share = np.clip(weights / max(full, 1e-6), 0, 1)
    return (share * here + (1 - share) * around).astype(np.float32)
