"""Depth from motion parallax: dense optical flow with the camera's rotation removed.

When a camera translates, a point's image motion is its inverse depth times a
field that points away from the epipole (the focus of expansion); rotation
adds a field that does not depend on depth at all. So the flow of two frames
is fitted with the instantaneous motion model (translation direction T and
rotation w, a few alternating least-squares rounds; or T sideways, or
straight ahead with no turn, where the flow says no more), the rotation is
subtracted, and what is left, projected on each pixel's translation
direction, is inverse depth up to one scale: nearer things move more. The
sign of T is chosen so that most of the scene lies in front of the camera.

A pure pan or a still camera has no parallax: the inverse depth then comes
out nearly uniform (or noise) and the caller falls back on other cues. How far
the parallax can be trusted is read from the fit itself (``Parallax.trust``):
the flow along each pixel's translation direction varies with depth, the flow
across it is what the motion model does not explain (the flow's noise, or
things that move on their own); parallax whose spread stands well above that
residual is depth, parallax within it is noise (a pan, a still camera).
A forward move's sign is the geometry's when nearly all the scene
lies in front of its focus of expansion (``Parallax.sure_side``); a sideways
fit's sign is its turn's as much as its translation's: where the reading
with its whole fitted turn taken out lies nearly all on one side (an orbit),
that side, else the long tail near, a guess that callers orient.
Coordinates are normalised by an assumed focal length of one image width.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from stereo_inference.arrays import is_tensor

ROUNDS = 2  # a third round moved no figure of the quality bench
RIDGE = 1.0  # relative to the normal matrix's mean diagonal
_EPS = 0.05  # regularises the projection near the focus of expansion
# Parallax spread (10th to 90th percentile, px) over the motion model's residual
# across the epipolar lines (median, px, plus a floor for DIS's own noise): at
# TRUST_FROM and below the parallax is noise; TRUST_SPAN more is full trust.
TRUST_FROM, TRUST_SPAN, NOISE_FLOOR_PX = 2.0, 4.0, 0.03
UNEQUAL_FROM, UNEQUAL_SPAN = 0.2, 0.4  # parallax spread over its median: a pan's is small
OUTLIER = 3.0  # flow farther than this many median distances from the rest counts less
LATERAL_SLACK = 1.1  # the others must leave this much less flow across than the sideways fit
# A sideways reading's sign with its whole turn taken out decides where this
# share of it (or more) takes one sign (``_positive_side``)
TURN_VOTE = 0.9
# Mean flow consistency (``FlowField.backward``) below this: the two frames lie
# on either side of a cut (within a shot ~0.9 on real video, across real
# scenes' cuts 0.08-0.25)
CUT_CONSISTENCY = 0.6
# DIS refuses frames smaller than about its patches (12 px); a tiny source's
# frames are stretched to this many pixels a side for the flow, then back.
MIN_FLOW_SIDE = 16


@dataclass(frozen=True)
class Parallax:
    inverse_depth: np.ndarray  # (h,w) float32, up to one positive scale; valid where weight > 0
    weight: np.ndarray  # (h,w) float32 0..1: how far the flow there can be trusted
    trust: float  # 0..1: how far the motion model says the parallax is depth
    above_noise: float  # the parallax's spread over the flow's noise (``trust_of``)
    unequal: float  # 0..1: how far the parallax is more than a leftover turn
    # (h,w) 0..1: how far a pixel lies from the focus of expansion, where a
    # dolly's parallax vanishes and its inverse depth says nothing
    focus: np.ndarray
    # whether the reading's sign is the geometry's: a translation with a
    # forward part (its focus of expansion fitted) that puts nearly all the
    # scene in front; otherwise a guess that callers orient (``parallax_depth``)
    sure_side: bool = False

    def unbiased(self) -> tuple[np.ndarray, np.ndarray]:
        """(inverse depth, weight): ``inverse_depth`` without its regularisation
        towards zero near the focus of expansion (which bent a dolly's depth over
        a band 5 % of the width around it), and ``weight`` taken down there."""
        return self.inverse_depth / np.maximum(self.focus, 1e-3), self.weight * self.focus


class FlowField:
    """Dense flow between consecutive small grey frames (OpenCV DIS, ultrafast
    preset at full resolution: its default coarsest-only refinement loses the
    small motions of distant things), with half the preset's gradient descent
    iterations per patch (cheaper, the same depth on the quality bench)."""

    def __init__(self, patch_stride: int | None = None) -> None:
        self._dis = cv2.DISOpticalFlow.create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)
        self._dis.setFinestScale(0)
        self._dis.setGradientDescentIterations(6)
        if patch_stride is not None:  # sparser patches: cheaper (the preset's is 4)
            self._dis.setPatchStride(patch_stride)

    def backward(self, cur: np.ndarray, prev: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(flow, consistency): flow (h,w,2) takes each pixel of ``cur`` (uint8 grey)
        to where it was in ``prev``; consistency (h,w) 0..1 is 1 where the
        previous frame, moved by the flow, matches the current one, up to a
        change of exposure (the median difference: a camera's automatic
        exposure steps every grey level alike, and DIS matches its patches
        mean-normalised, so the flow holds. SUN3D's study room brightened by
        10 grey levels twice in 20 frames: counted as mismatch, each step fell
        to 0.53-0.59 and read as a cut, and each restart lost the shot's depth,
        0.85 -> 0.70 over the clip, flicker 3.7 %)."""
        flow = self._calc(cur, prev)
        moved = warp_back(prev.astype(np.float32), flow)
        difference = moved - cur.astype(np.float32)
        error = np.abs(difference - float(np.median(difference[::2, ::2])))
        error = cv2.blur(error, (3, 3))
        return flow, np.clip(1.0 - error / 24.0, 0, 1).astype(np.float32)

    def _calc(self, cur: np.ndarray, prev: np.ndarray) -> np.ndarray:
        h, w = cur.shape
        # cv2's stub requires the output flow array; OpenCV takes None (allocate it)
        if min(h, w) >= MIN_FLOW_SIDE:
            return self._dis.calc(cur, prev, None)  # type: ignore[call-overload]
        big = (max(w, MIN_FLOW_SIDE), max(h, MIN_FLOW_SIDE))
        flow = self._dis.calc(  # type: ignore[call-overload]
            cv2.resize(cur, big, interpolation=cv2.INTER_LINEAR),
            cv2.resize(prev, big, interpolation=cv2.INTER_LINEAR), None)
        flow = cv2.resize(flow, (w, h), interpolation=cv2.INTER_AREA)
        return flow * np.array([w / big[0], h / big[1]], np.float32)


def across_cut(consistency: np.ndarray) -> bool:
    """Whether a flow's ``consistency`` says its two frames lie across a cut."""
    return float(consistency.mean()) < CUT_CONSISTENCY


def flow_at_size(flow: np.ndarray, consistency: np.ndarray, size: tuple[int, int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A flow (h,w,2) and its consistency read at another size, brought to
    ``size`` (w, h): resized and its vectors scaled with it."""
    if flow.shape[1] == size[0] and flow.shape[0] == size[1]:
        return flow, consistency
    scale = np.array([size[0] / flow.shape[1], size[1] / flow.shape[0]], np.float32)
    return (cv2.resize(flow, size, interpolation=cv2.INTER_AREA) * scale,
            cv2.resize(consistency, size, interpolation=cv2.INTER_AREA))


def parallax(flow: np.ndarray, weight: np.ndarray) -> Parallax:
    """Inverse depth (up to scale) from the backward ``flow`` of a moving camera."""
    h, w = flow.shape[:2]
    g = _geometry(h, w)
    # Flow from current to previous frame is minus the camera's motion field.
    u, v = flow[..., 0] * (-1 / w), flow[..., 1] * (-1 / w)
    fitted = _inliers(u, v, weight)
    # The motion is fitted on every other pixel of every other row (plenty).
    us, vs, ws = (a[::2, ::2].ravel() for a in (u, v, fitted))
    # Three hypotheses: a sideways translation (focus of expansion at infinity:
    # a truck, an orbit, a handheld sway) with a turn, whose flow a free fit
    # tends to mistake for a dolly with a turn; a move straight ahead with no
    # turn (``_straight_ahead``); and a translation anywhere (its focus may lie
    # in the picture: a dolly) with a turn. Against the sideways one, a later
    # one wins only where it leaves LATERAL_SLACK times less flow across its
    # epipolar lines; the free fit wins against straight ahead wherever it
    # leaves less (straight ahead stands in where the free fit strays, not for
    # a free fit that explains the flow better: through x264 at CRF 28 the
    # dollies' free fits left 3-9 % less and ordered 0.02-0.04 better).
    best: _Motion | None = None
    best_across = 0.0
    u3, v3, w3 = (a.ravel()[::3] for a in (u, v, fitted))  # where they are compared
    for motion in (_sideways(us, vs, ws, g), _straight_ahead(),
                   _free(us, vs, ws, g)):
        across = _across(motion, u3, v3, w3, g.x3, g.y3, g.bu3, g.bv3)
        slack = LATERAL_SLACK if best is None or best.sideways else 1.0
        if best is None or slack * across < best_across:
            best, best_across = motion, across
    assert best is not None  # the loop above ran
    ru, rv = best.residual(u.ravel(), v.ravel(), g.bu_full, g.bv_full)
    du, dv = g.x * best.t[2] - best.t[0], g.y * best.t[2] - best.t[1]
    norm2 = du * du + dv * dv
    inv = (ru * du + rv * dv) / (norm2 + _EPS * _EPS)
    # a sideways reading less the turn's mean it kept: the vote on its sign
    positive, decided = _positive_side(inv, weight.ravel(),
                                       best.kept / (1 + _EPS * _EPS) if best.sideways else None)
    inv = inv if positive else -inv
    focus = (norm2 / (norm2 + _EPS * _EPS)).reshape(h, w).astype(np.float32)
    above_noise, unequal = _trust(ru, rv, du, dv, norm2, weight.ravel(), w)
    return Parallax(inv.reshape(h, w).astype(np.float32), weight,
                    trust_of(above_noise, unequal), above_noise, unequal, focus,
                    sure_side=decided and not best.sideways)


def flow_axis(us: np.ndarray, vs: np.ndarray, ws: np.ndarray) -> np.ndarray:
    """The main direction (a unit 2-vector, either sign) of flow samples (us, vs)
    less their mean, each weighted by ``ws``."""
    total = max(float(ws.sum()), 1e-6)
    mean = np.array([float(ws @ us), float(ws @ vs)]) / total
    centred = np.stack([us - mean[0], vs - mean[1]])
    _, vectors = np.linalg.eigh((centred * ws) @ centred.T)
    return vectors[:, 1]


def _inliers(u: np.ndarray, v: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``weight`` taken down where the flow (u, v) lies far from the rest: past
    OUTLIER times the median distance from the median flow, as its square.
    DIS leaves a few percent of wild vectors where content enters at the
    border (on Middlebury's laundry, 5 % of the pixels moved up to 40 times
    the typical motion), and a least-squares fit follows them: the sideways
    fit took their direction for the translation's, and the choice between
    the two hypotheses (mean flow across) went with them too. Fitted with
    these weights, laundry's slow orbit read 8 to 16 frames ahead orders
    0.91 instead of 0.42-0.92, its fast truck 0.94-0.95 (at trust 0.6)
    instead of 0.76-0.85 (trust 0); the other scenes' readings are unchanged."""
    keep = weight > 0.5
    if np.count_nonzero(keep) < 32:
        return weight
    du, dv = u - float(np.median(u[keep])), v - float(np.median(v[keep]))
    distance = np.sqrt(du * du + dv * dv)
    cap = OUTLIER * max(float(np.median(distance[keep])), 1e-9)
    # squared: a far vector's pull on a least-squares fit (weight x distance^2) stays bounded
    return (weight * np.minimum(1.0, cap / np.maximum(distance, 1e-12)) ** 2).astype(np.float32)


@dataclass(frozen=True)
class _Motion:
    """A camera-motion hypothesis: translation direction ``t`` (unit 3-vector;
    no forward part: sideways) and the rotation ``omega`` taken out of the
    flow, less ``kept`` (its mean, normalised units) along ``along``: the part
    a sideways fit leaves in with the translation's own mean parallax."""

    t: np.ndarray
    omega: np.ndarray
    kept: float = 0.0
    along: tuple[float, float] = (0.0, 0.0)
    sideways: bool = False

    def residual(self, u, v, bu, bv) -> tuple[np.ndarray, np.ndarray]:
        """The flow (u, v) less this motion's rotation, on pixels whose rotation
        basis is (bu, bv)."""
        return (u - (bu @ self.omega - self.kept * self.along[0]),
                v - (bv @ self.omega - self.kept * self.along[1]))


def _sideways(us, vs, ws, g: _Geometry) -> _Motion:
    """A sideways translation with a turn, keeping the turn's mean along T in
    the residual.

    A sideways translation's flow runs along T everywhere, more for nearer
    things, so T lies along the main direction of the flow less its mean.
    Across T only the turn moves things, so the turn (pan, tilt, roll) is
    fitted to the flow's component across T with the rotation's exact fields
    (``g``'s basis) and taken out, all but its mean along T (inseparable from
    the translation's own mean parallax: kept, so the scene stays mostly on
    one side, in front). The rotation model's free fit instead mistakes a
    handheld sway's turn for translation (its ridge). The turn was first
    taken as the flow's mean across T alone, as if it moved everything alike:
    at a focal length of one width a pan moves the frame's sides 25 % more
    than its middle, which the reading took for depth; with the exact fields
    the real scenes' single readings order 0.931 against 0.915 (orbits and
    sways gain most: teddy's fast orbit 0.954 -> 0.982, laundry's slow one
    0.92 -> 0.97, the sways' trust 0.3-0.6 -> 0.5-0.65; trucks unchanged)."""
    total = max(float(ws.sum()), 1e-6)
    along = flow_axis(us, vs, ws)
    across = np.array([-along[1], along[0]])
    turn = _weighted_lstsq(g.bu * across[0] + g.bv * across[1],
                           us * across[0] + vs * across[1], ws)
    kept = float(np.array([ws @ (g.bu @ turn), ws @ (g.bv @ turn)]) @ along) / total
    return _Motion(np.array([-along[0], -along[1], 0.0]), turn, kept,
                   (float(along[0]), float(along[1])), sideways=True)


def _straight_ahead() -> _Motion:
    """A move straight along the optical axis with no turn: nothing to fit. A
    free fit reads a forward move's focus of expansion poorly where the scene
    is nearly one plane (a shift of the focus then looks like a turn): on
    Middlebury's laundry, a wall of windows behind a table, the focus came out
    a fifth of the width off centre, and a fitted turn bent the reading as
    much, leaving more flow across its lines (0.24 px over four frames) than
    this one does (0.13). A camera carried straight forward (walking,
    driving, a dolly) leaves less flow across these lines than a free fit
    that strayed, so it wins there (laundry's dollies, first frame: 0.879 ->
    0.941 slow, 0.711 -> 0.874 fast); where the camera turns or heads off
    centre, the flow across these lines shows it and the free fit wins."""
    return _Motion(np.array([0.0, 0.0, 1.0]), np.zeros(3))


def _free(us, vs, ws, g: _Geometry) -> _Motion:
    """A translation anywhere (its focus of expansion fitted) with a turn."""
    omega, t = _fit(g.xs, g.ys, us, vs, ws, g.bu, g.bv)
    return _Motion(t, omega)


def _fit(xs, ys, us, vs, ws, bu, bv) -> tuple[np.ndarray, np.ndarray]:
    """(rotation w, translation direction T) fitted to the flow sample.
    Rotation and sideways translation look alike (the bas-relief ambiguity):
    a strong ridge keeps the rotation to what translation cannot explain."""
    omega = np.zeros(3)
    t = _epipole(xs, ys, us, vs, ws)
    for _ in range(ROUNDS):
        du, dv = xs * t[2] - t[0], ys * t[2] - t[1]
        # (flow - B w) x d = 0  ->  (B w) x d = flow x d, linear in w
        a = bu * dv[:, None] - bv * du[:, None]
        omega = _weighted_lstsq(a, us * dv - vs * du, ws, ridge=RIDGE)
        t = _epipole(xs, ys, us - bu @ omega, vs - bv @ omega, ws)
    return omega, t


def _across(motion: _Motion, u, v, weight, x, y, bu, bv) -> float:
    """Weighted mean |flow across ``motion``'s epipolar lines| (normalised
    units) of the flow (u, v) at pixels (x, y) whose rotation basis is (bu, bv)."""
    ru, rv = motion.residual(u, v, bu, bv)
    du, dv = x * motion.t[2] - motion.t[0], y * motion.t[2] - motion.t[1]
    cross = np.abs(ru * dv - rv * du) / np.sqrt(du * du + dv * dv + 1e-12)
    return float(weight @ cross) / max(float(weight.sum()), 1e-6)


def _trust(ru, rv, du, dv, norm2, weight, w: int) -> tuple[float, float]:
    """(parallax spread over noise, unequal factor 0..1) from the inverse depth
    the flow along the translation directions gives against the residual
    across them read alike (both the flow, in pixels, over the length of the
    pixel's translation direction, on trusted pixels clear of the focus of
    expansion); ``trust_of`` turns them into 0..1 trust.

    A sideways move's directions all have length one: its flow in pixels. A
    forward move's flow grows with the distance from the focus of expansion
    whatever the depth, and read in pixels that growth passed for parallax: a
    zoom (every point moved away from the centre in proportion, one depth)
    was trusted fully and its reading, noise over one depth, replaced the
    shot's (real photographs zoomed 0.4 % a frame: 0.44-0.50 over the shot,
    flicker 1.1 %, against the ramp's 0.77-0.94; now the ramp). A zoom's
    inverse depth is one value: no spread over its median, no trust."""
    sample = (weight > 0.5) & (norm2 > _EPS * _EPS)
    sample[1::3] = False  # a third fewer: plenty for two percentiles
    if np.count_nonzero(sample) < 32:
        return 0.0, 0.0
    length2 = norm2[sample] / w  # the inverse depth below in pixels of flow
    along = (ru[sample] * du[sample] + rv[sample] * dv[sample]) / length2
    across = np.abs(ru[sample] * dv[sample] - rv[sample] * du[sample]) / length2
    p10, mid, p90 = np.percentile(along, (10, 50, 90))
    noise = float(np.median(across)) + NOISE_FLOOR_PX
    # A turn the fit left in (its ridge) moves everything nearly alike: little
    # spread for the size of the motion, however clean the flow.
    unequal = np.clip(((p90 - p10) / max(abs(mid), 1e-6) - UNEQUAL_FROM) / UNEQUAL_SPAN, 0, 1)
    return float((p90 - p10) / noise), float(unequal)


def trust_of(above_noise: float, unequal: float) -> float:
    """0..1 trust of parallax whose spread is ``above_noise`` times the flow's
    noise (at TRUST_FROM and below: noise; TRUST_SPAN more: full trust) and
    whose ``unequal`` factor (0..1) says how far it is more than a turn."""
    return float(np.clip((above_noise - TRUST_FROM) / TRUST_SPAN, 0, 1) * unequal)


def warp_back(values, flow):
    """``values`` (h,w) of the previous frame moved onto the current frame's
    pixels along ``flow`` (h,w,2); tensors stay on their device."""
    if is_tensor(values):
        return sample_at(values, sampling_grid(flow))
    where = _geometry(*values.shape[:2]).grid + flow
    return cv2.remap(values, where, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def sampling_grid(flow):
    """``grid_sample``'s grid for a backward ``flow`` tensor (...,h,w,2) (a batch
    of flows too): pixel x's centre is at (2x+1)/w - 1 with align_corners=False."""
    import torch

    h, w = flow.shape[-3:-1]
    xs = torch.arange(w, device=flow.device, dtype=torch.float32).mul_(2 / w).add_(1 / w - 1)
    ys = torch.arange(h, device=flow.device, dtype=torch.float32).mul_(2 / h).add_(1 / h - 1)
    scale = torch.tensor([2 / w, 2 / h], device=flow.device, dtype=torch.float32)
    grid = flow.float() * scale
    grid[..., 0] += xs
    grid[..., 1] += ys[:, None]
    return grid


def sample_at(values, grid):
    """``warp_back`` for tensors, at a ``sampling_grid`` (h,w,2): bilinear,
    border clamped (``cv2.BORDER_REPLICATE``). Differs from ``cv2.remap`` by
    the latter's 1/32 px fixed point."""
    from torch.nn import functional

    return functional.grid_sample(values.float()[None, None], grid[None], mode="bilinear",
                                  padding_mode="border", align_corners=False)[0, 0]


def _positive_side(inv: np.ndarray, ws: np.ndarray, kept_turn: float | None = None
                   ) -> tuple[bool, bool]:
    """(whether T's sign, free in the fit, puts the scene in front of the
    camera; whether the reading decided it).

    Mostly one sign: that one (inverse depth is positive), decided. Otherwise a
    leftover rotation has shifted everything. A sideways reading less
    ``kept_turn`` (the fitted turn's mean along T that it kept: so with the
    whole turn taken out) votes next: where nearly all of it (TURN_VOTE) takes one
    sign, that sign. An orbit keeps its middle distance in place, so its
    reading with the turn's mean kept is split about evenly (a street between
    garages: 68 % one way, the wrong one), while its turn, fitted across T
    where only the turn moves things, puts all of the scene on one side. Else
    near things are few and spread out, the far background many and alike,
    so the long tail of the distribution is near. The vote and the tail are
    guesses still (a handheld sway's turn and translation run together):
    callers that know more orient them themselves (``heuristic``).
    """
    total = max(float(np.sum(ws)), 1e-6)
    positive = float(np.sum(ws * (inv > 0))) / total
    if abs(positive - 0.5) > 0.3:
        return positive > 0.5, True
    if kept_turn is not None:
        vote = float(np.sum(ws * (inv > kept_turn))) / total
        if abs(vote - 0.5) >= TURN_VOTE - 0.5:
            return vote > 0.5, False
    trusted = inv[ws > 0.5] if np.sum(ws > 0.5) > 16 else inv
    lo, mid, hi = np.quantile(trusted, (0.05, 0.5, 0.95))
    return hi - mid >= mid - lo, False


def _epipole(xs, ys, ru, rv, ws) -> np.ndarray:
    """Translation direction T (unit 3-vector): residual flow is parallel to
    (x Tz - Tx, y Tz - Ty), so cross(r, d) = 0 is linear in T. The smallest
    eigenvector of the 3x3 normal matrix (cheaper than an SVD of every row)."""
    rows = np.stack([rv, -ru, ru * ys - rv * xs])
    normal = (rows * ws) @ rows.T
    _, vectors = np.linalg.eigh(normal)
    return vectors[:, 0]


def _weighted_lstsq(a: np.ndarray, b: np.ndarray, w: np.ndarray, *, ridge: float = 0.0
                    ) -> np.ndarray:
    aw = a * w[:, None]
    normal = aw.T @ a
    normal += (ridge * np.trace(normal) / a.shape[1] + 1e-12) * np.eye(a.shape[1])
    return np.linalg.solve(normal, aw.T @ b)


@dataclass(frozen=True)
class _Geometry:
    """What depends only on the frame size, built once per size: the pixel grid,
    coordinates normalised by the focal length (one image width) and the
    rotation's flow basis, on every pixel and on the fitting subsample."""

    grid: np.ndarray  # (h,w,2) float32 pixel coordinates
    x: np.ndarray  # (h*w,) normalised
    y: np.ndarray
    bu_full: np.ndarray  # (h*w,3) rotation basis for u
    bv_full: np.ndarray
    xs: np.ndarray  # the same on every other pixel of every other row
    ys: np.ndarray
    bu: np.ndarray
    bv: np.ndarray
    x3: np.ndarray  # the same on every third pixel: choosing the hypothesis
    y3: np.ndarray
    bu3: np.ndarray
    bv3: np.ndarray


@functools.lru_cache(maxsize=8)
def _geometry(h: int, w: int) -> _Geometry:
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    x, y = (gx - (w - 1) / 2) / float(w), (gy - (h - 1) / 2) / float(w)
    xs, ys = x[::2, ::2].ravel(), y[::2, ::2].ravel()
    x, y = x.ravel(), y.ravel()
    arrays = {"grid": np.stack([gx, gy], -1), "x": x, "y": y,
              "bu_full": _basis_u(x, y), "bv_full": _basis_v(x, y), "xs": xs, "ys": ys,
              "bu": _basis_u(xs, ys), "bv": _basis_v(xs, ys), "x3": x[::3], "y3": y[::3]}
    arrays["bu3"], arrays["bv3"] = arrays["bu_full"][::3], arrays["bv_full"][::3]
    for array in arrays.values():
        array.flags.writeable = False  # shared by every caller
    return _Geometry(**arrays)


def _basis_u(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.stack([x * y, -(1 + x * x), y], 1)


def _basis_v(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.stack([1 + y * y, -x * y, -x], 1)
