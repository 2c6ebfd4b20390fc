"""View synthesis quality and speed: ``warp_view`` against a z-ordered splat reference.

Scenes are layered and synthetic, so the right view is known exactly: a
textured background plane whose disparity grows towards the bottom (a ground)
and textured objects (rectangles, ellipses) at known fractional disparities in
front of it. Textures are continuous functions, so the true right view, with
the true background revealed at disocclusions, is rendered directly.

Scores: PSNR, SSIM, and a stereo edge-IoU, SIoU = 0.75 * IoU(Canny edges of
prediction vs truth) + 0.25 * IoU(masks where each differs from the left view
by more than 5/255); and ``edge_psnr``, the PSNR within 6 px (along x) of the
true right view's depth edges, where halos and smears beside near objects
show. Also the left-view-as-right baseline.

Reference: a z-ordered bilinear forward splat (pixels sorted by disparity,
nearer written last) with iterative stretch fill of the holes, the approach of
iw3's forward_fill, written here in vectorised numpy.

    .venv/bin/python bench/stereo_quality.py --scenes 4 --width 1920 --height 1080
"""

from __future__ import annotations

import argparse
import json
import time

import cv2
import numpy as np
import torch
from stereo_inference.runtime import reuse_freed_memory
from stereo_inference.warp import warp_view

# ---------------------------------------------------------------- scenes


def _texture(rng, n=7):
    """A random smooth colour texture: a function of continuous (x, y) in pixels."""
    freqs = rng.uniform(0.004, 0.18, size=(n, 2)) * rng.choice([-1, 1], size=(n, 2))
    phases = rng.uniform(0, 2 * np.pi, size=(3, n))
    amps = rng.uniform(0.3, 1.0, size=(3, n)) / n
    base = rng.uniform(0.25, 0.75, size=3)

    def colour(x, y):
        out = np.empty((3,) + x.shape, np.float32)
        for c in range(3):
            acc = np.full(x.shape, base[c], np.float32)
            for i in range(n):
                acc += amps[c, i] * np.sin(freqs[i, 0] * x + freqs[i, 1] * y + phases[c, i])
            out[c] = acc
        return np.clip(out, 0, 1)

    return colour


def make_scene(seed: int, width: int, height: int):
    """(left, true right, left disparity, right disparity): float32 (3,H,W), (3,H,W),
    (H,W), (H,W)."""
    rng = np.random.default_rng(seed)
    scale = width / 1920
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    bg_d = (2.0 + 8.0 * yy / height) * scale  # a ground plane: nearer at the bottom
    bg = _texture(rng)
    left, right = bg(xx, yy), bg(xx + bg_d, yy)
    disp_left, disp_right = bg_d.copy(), bg_d.copy()
    objects = sorted(
        [rng.uniform(12, 40) * scale for _ in range(rng.integers(3, 6))]
    )  # far to near: drawn in that order
    for d in objects:
        cx, cy = rng.uniform(0.1, 0.9) * width, rng.uniform(0.15, 0.85) * height
        rx, ry = rng.uniform(0.05, 0.2) * width, rng.uniform(0.08, 0.3) * height
        ellipse = rng.random() < 0.5
        tex = _texture(rng)

        def inside(x, y, cx=cx, cy=cy, rx=rx, ry=ry, ellipse=ellipse):
            u, v = (x - cx) / rx, (y - cy) / ry
            return (u * u + v * v <= 1) if ellipse else (np.abs(u) <= 1) & (np.abs(v) <= 1)

        m_left = inside(xx, yy)
        m_right = inside(xx + d, yy)
        left[:, m_left] = tex(xx, yy)[:, m_left]
        right[:, m_right] = tex(xx + d, yy)[:, m_right]
        disp_left[m_left] = d
        disp_right[m_right] = d
    return left, right, disp_left, disp_right


# ---------------------------------------------------------------- reference


def reference_warp(image: np.ndarray, disparity: np.ndarray, max_iter: int = 512) -> np.ndarray:
    """z-ordered bilinear forward splat + iterative stretch fill (iw3 forward_fill style)."""
    _, h, w = image.shape
    rows = np.repeat(np.arange(h), w)
    xs = np.tile(np.arange(w, dtype=np.float32), h)
    d = disparity.reshape(-1)
    target = xs - d
    x0 = np.floor(target)
    frac = target - x0
    colour = image.reshape(3, -1)
    acc = np.zeros((3, h * w), np.float32)
    wsum = np.zeros(h * w, np.float32)
    zbuf = np.full(h * w, -np.inf, np.float32)
    for offset, weight in ((0, 1 - frac), (1, frac)):
        tx = x0 + offset
        ok = (tx >= 0) & (tx < w) & (weight > 1e-3)
        flat = (rows * w + tx.astype(np.int64))[ok]
        # sort by (target, disparity): per target the last entry is the nearest
        order = np.lexsort((d[ok], flat))
        last = np.r_[flat[order][1:] != flat[order][:-1], True]
        src = np.flatnonzero(ok)[order[last]]
        dst = flat[order[last]]
        nearer = d[src] > zbuf[dst] + 0.5
        same = np.abs(d[src] - zbuf[dst]) <= 0.5
        for sel, reset in ((nearer, True), (same, False)):
            s, t = src[sel], dst[sel]
            if reset:
                acc[:, t] = 0
                wsum[t] = 0
                zbuf[t] = d[s]
            acc[:, t] += colour[:, s] * weight[s]
            wsum[t] += weight[s]
    out = acc / np.maximum(wsum, 1e-6)
    hole = wsum < 1e-3
    out, z = out.reshape(3, h, w), np.where(hole, -np.inf, zbuf).reshape(h, w)
    hole = hole.reshape(h, w)
    for _ in range(max_iter):  # stretch: holes take their background-side neighbour
        if not hole.any():
            break
        zl = np.pad(z, ((0, 0), (1, 0)), constant_values=-np.inf)[:, :-1]
        zr = np.pad(z, ((0, 0), (0, 1)), constant_values=-np.inf)[:, 1:]
        has_l, has_r = np.isfinite(zl), np.isfinite(zr)
        take_r = hole & has_r & (~has_l | (zr <= zl))
        take_l = hole & has_l & ~take_r
        out[:, take_r] = np.roll(out, -1, axis=2)[:, take_r]
        out[:, take_l] = np.roll(out, 1, axis=2)[:, take_l]
        z = np.where(take_r, zr, np.where(take_l, zl, z))
        hole = hole & ~(take_r | take_l)
    return out


# ---------------------------------------------------------------- metrics


def psnr(pred, truth):
    mse = float(np.mean((pred - truth) ** 2))
    return 10 * np.log10(1.0 / max(mse, 1e-12))


def ssim(pred, truth):
    """Mean SSIM over channels (Gaussian window, sigma 1.5)."""
    c1, c2 = 0.01**2, 0.03**2

    def gaussian_filter(x, sigma):  # scipy.ndimage's (truncated at 4 sigma, reflected edges)
        size = 2 * int(4 * sigma + 0.5) + 1
        return cv2.GaussianBlur(x, (size, size), sigma, borderType=cv2.BORDER_REFLECT)

    scores = []
    for a, b in zip(pred.astype(np.float64), truth.astype(np.float64), strict=True):
        mu_a, mu_b = gaussian_filter(a, 1.5), gaussian_filter(b, 1.5)
        va = gaussian_filter(a * a, 1.5) - mu_a**2
        vb = gaussian_filter(b * b, 1.5) - mu_b**2
        cov = gaussian_filter(a * b, 1.5) - mu_a * mu_b
        s = ((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a**2 + mu_b**2 + c1) * (va + vb + c2))
        scores.append(s.mean())
    return float(np.mean(scores))


def _iou(a, b):
    union = np.logical_or(a, b).sum()
    return 1.0 if union == 0 else float(np.logical_and(a, b).sum() / union)


def _edges(img):
    gray = cv2.cvtColor((img.transpose(1, 2, 0) * 255 + 0.5).astype(np.uint8), cv2.COLOR_RGB2GRAY)
    return cv2.Canny(gray, 50, 150) > 0


def siou(pred, truth, left):
    edge = _iou(_edges(pred), _edges(truth))
    moved = _iou(np.abs(pred - left).max(0) > 5 / 255, np.abs(truth - left).max(0) > 5 / 255)
    return 0.75 * edge + 0.25 * moved


def edge_band(disp_right: np.ndarray, radius: int = 6) -> np.ndarray:
    """Pixels within ``radius`` px (along x) of a depth edge of the true right view:
    where halos, smears and torn edges of a view synthesis show."""
    step = np.abs(np.diff(disp_right, axis=1)) > 2
    edges = np.zeros_like(disp_right, dtype=np.uint8)
    edges[:, 1:][step] = 1
    return cv2.dilate(edges, np.ones((1, 2 * radius + 1), np.uint8)) > 0


def score(pred, truth, left, band):
    return {"psnr": psnr(pred, truth), "ssim": ssim(pred, truth), "siou": siou(pred, truth, left),
            "edge_psnr": psnr(pred[:, band], truth[:, band])}


# ---------------------------------------------------------------- run


def ours(left: np.ndarray, disp: np.ndarray) -> np.ndarray:
    """``warp_view`` alone (clipped to 0..1 outside the timing, like the reference)."""
    with torch.inference_mode():
        out = warp_view(torch.from_numpy(left)[None], torch.from_numpy(disp)[None, None])
    return out[0].numpy()


def timed(fn, *args, repeat=1, warm=True):
    if warm:
        fn(*args)
    start = time.perf_counter()
    for _ in range(repeat):
        out = fn(*args)
    return out, (time.perf_counter() - start) / repeat


def timed_around(fn, reference, args, repeat):
    """``fn`` timed ``repeat`` times, half just before and half just after one
    timed ``reference`` run, so a machine that speeds up or slows down during
    the (long) reference run weighs on both sides alike."""
    before = max(1, repeat // 2)
    out, t_before = timed(fn, *args, repeat=before)
    ref, t_ref = timed(reference, *args)
    t_fn = t_before
    if repeat > before:
        _, t_after = timed(fn, *args, repeat=repeat - before, warm=False)
        t_fn = (t_before * before + t_after * (repeat - before)) / repeat
    return out, t_fn, ref, t_ref


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--scenes", type=int, default=4)
    p.add_argument("--width", type=int, default=1920)
    p.add_argument("--height", type=int, default=1080)
    p.add_argument("--repeat", type=int, default=2, help="timed runs of ours per scene")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (default 1, like the single-threaded numpy reference)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(args.threads)  # warp_view resamples with OpenCV on a CPU
    reuse_freed_memory()  # as a conversion runs (convert_file): per-frame buffers reused
    rows = {"ours": [], "reference": [], "left_as_right": []}
    times = {"ours": [], "reference": []}
    for seed in range(args.scenes):
        left, truth, disp, disp_right = make_scene(seed, args.width, args.height)
        band = edge_band(disp_right)
        pred, t_ours, ref, t_ref = timed_around(ours, reference_warp, (left, disp), args.repeat)
        rows["ours"].append(score(np.clip(pred, 0, 1), truth, left, band))
        rows["reference"].append(score(np.clip(ref, 0, 1), truth, left, band))
        rows["left_as_right"].append(score(left, truth, left, band))
        times["ours"].append(t_ours)
        times["reference"].append(t_ref)
    summary = {
        name: {k: round(float(np.mean([r[k] for r in rs])), 4)
               for k in ("psnr", "ssim", "siou", "edge_psnr")}
        for name, rs in rows.items()
    }
    summary["seconds_per_frame"] = {k: round(float(np.mean(v)), 4) for k, v in times.items()}
    summary["speedup"] = round(
        summary["seconds_per_frame"]["reference"] / summary["seconds_per_frame"]["ours"], 1
    )
    summary["config"] = {"scenes": args.scenes, "size": [args.width, args.height],
                         "torch_threads": torch.get_num_threads()}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
