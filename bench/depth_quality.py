"""How good is the depth? Estimators against exact depth on generated scenes.

Scenes come from ``bench/depth_scenes.py`` (a numpy ray caster: textured ground,
wall, boxes and spheres; exact depth per pixel). Every method runs the way the
engine runs it: frames scaled to the estimator's input size, estimated in
batches, then ``TemporalNormalizer``; the normalised depth (1 = nearest) is
scaled back to the frame and compared with the truth:

- ordinal accuracy: of 4000 random pixel pairs per frame whose true depths
  differ by more than 5 %, the share the estimate orders the same way
  (nearer = larger; ties count half);
- flicker: mean |change| of normalised depth from one frame to the next, in
  percent of the depth range, over pixels whose true depth changed by less
  than 0.5 % (what should not move).

Methods: ``ramp`` (bottom nearest, a plain vertical ramp), ``heuristic-v1``
(the engine's weight-free default before issue 14, kept in
``bench/legacy_heuristic.py``), ``heuristic`` (today's default), and with
``--models`` each Depth-Anything-V2 architecture with random weights (its
depth is meaningless: it shows the plumbing runs, not what trained weights do).
``noisy-oracle`` stands in for a per-frame learned model (exact inverse depth
with a random per-frame scale, offset and pixel noise) and ``noisy-oracle+flow``
is the same through ``FlowStabilized``, which the engine wraps learned models
in: what holding depth along the flow does to a per-frame model's flicker.
``noisy-oracle+flow/N`` runs that stand-in on every N-th frame only
(``STEREO_SPOT_DEPTH_STRIDE``), the frames between following the flow: what
an N-times cheaper learned model on a CPU costs in accuracy and flicker
(``model_share``: the frames the model saw).

    .venv/bin/python bench/depth_quality.py                  # all scenes, 2 s each
    .venv/bin/python bench/depth_quality.py --scenes truck-pan dolly --methods heuristic

Prints a markdown table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from depth_scenes import SCENES, scene_frames
from legacy_heuristic import HeuristicDepth as LegacyHeuristic
from stereo_inference.depth import load_estimator
from stereo_inference.temporal import TemporalNormalizer

PAIRS = 4000
BATCH = 8


class Ramp:
    name = "ramp"

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return 64, max(8, round(height * 64 / width))

    def estimate(self, rgb: torch.Tensor) -> torch.Tensor:
        b, _, h, w = rgb.shape
        return torch.linspace(0, 1, h).view(1, 1, h, 1).expand(b, 1, h, w).clone()


class NoisyOracle:
    """A stand-in for a per-frame learned model (none has weights here): the exact
    inverse depth of each frame, with what such models get wrong from frame to
    frame, a random scale and offset and pixel noise (seeded, so repeatable)."""

    name = "noisy-oracle"
    max_batch = None
    device = "cpu"

    def __init__(self, depth: np.ndarray) -> None:
        self._depth, self._next = depth, 0
        self._rng = np.random.default_rng(0)
        self._index: dict[bytes, int] | None = None
        self.seen = 0

    def expect(self, frames: torch.Tensor) -> None:
        """Recognise ``frames`` (all of the run's inputs) by content, so a caller
        that skips frames still gets each one's own depth."""
        self._index = {f.numpy().tobytes(): i for i, f in enumerate(frames)}

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return 128, max(8, round(height * 128 / width))

    def estimate(self, rgb):
        b, _, h, w = rgb.shape
        self.seen += b
        out = []
        picks = (range(self._next, self._next + b) if self._index is None
                 else [self._index[f.numpy().tobytes()] for f in rgb])
        for z in self._depth[list(picks)]:
            inv = cv2.resize(1.0 / z, (w, h), interpolation=cv2.INTER_AREA)
            scale, offset = self._rng.uniform(0.85, 1.15), self._rng.uniform(-0.03, 0.03)
            out.append(scale * inv + offset + self._rng.normal(0, 0.01, inv.shape))
        self._next += b
        return torch.from_numpy(np.stack(out).astype(np.float32)[:, None])


def make_estimator(method: str, models_dir: Path, depth: np.ndarray | None = None):
    cpu = torch.device("cpu")
    if method == "ramp":
        return Ramp()
    if method == "noisy-oracle":
        return NoisyOracle(depth)
    if method.startswith("noisy-oracle+flow"):
        from stereo_inference.depth.stabilized import FlowStabilized

        stride = int(method.partition("/")[2] or 1)
        return FlowStabilized(NoisyOracle(depth), stride=stride)
    if method == "heuristic-v1":
        return LegacyHeuristic(cpu)
    if method.startswith("depth-anything"):
        from stereo_inference.depth.architectures import random_depth_anything
        from stereo_inference.depth.depth_anything import DepthAnythingDepth

        return DepthAnythingDepth(random_depth_anything(method), method, cpu, resolution=252)
    return load_estimator(method, models_dir=models_dir, device=cpu)


def load_scene(name: str, seconds: float, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(rgb (N,h,w,3) uint8, depth (N,h,w) float32), rendered once and cached in /tmp."""
    cache = Path(tempfile.gettempdir()) / f"depth-scene-{name}-{seconds}-{size[0]}x{size[1]}.npz"
    if cache.is_file():
        data = np.load(cache)
        return data["rgb"], data["depth"]
    frames = list(scene_frames(name, seconds=seconds, size=size))
    rgb, depth = np.stack([f[0] for f in frames]), np.stack([f[1] for f in frames])
    np.savez(cache, rgb=rgb, depth=depth)
    return rgb, depth


def run_method(estimator, rgb: np.ndarray) -> np.ndarray:
    """Normalised depth (N,h,w) in 0..1 at the frames' size, as the engine computes it."""
    n, h, w, _ = rgb.shape
    iw, ih = estimator.input_size(w, h)
    small = np.stack([cv2.resize(f, (iw, ih), interpolation=cv2.INTER_AREA) for f in rgb])
    normalizer = TemporalNormalizer(estimator.name)
    if hasattr(getattr(estimator, "inner", None), "expect"):
        estimator.inner.expect(torch.from_numpy(small).permute(0, 3, 1, 2).float().div(255))
    out = []
    with torch.inference_mode():
        for i in range(0, n, BATCH):
            x = torch.from_numpy(small[i:i + BATCH]).permute(0, 3, 1, 2).float().div(255)
            depth = normalizer.normalize(estimator.estimate(x), x)
            out.append(torch.nn.functional.interpolate(depth, size=(h, w), mode="bilinear",
                                                       align_corners=False)[:, 0].numpy())
    return np.concatenate(out)


def ordinal_accuracy(estimate: np.ndarray, truth: np.ndarray, rng: np.random.Generator) -> float:
    scores = []
    for est, z in zip(estimate, truth, strict=True):
        a = rng.integers(0, z.size, PAIRS)
        b = rng.integers(0, z.size, PAIRS)
        za, zb = z.flat[a], z.flat[b]
        keep = np.abs(np.log(za / zb)) > 0.05
        truth_sign = np.sign(zb[keep] - za[keep])  # a nearer than b: za < zb: +
        est_sign = np.sign(est.flat[a][keep] - est.flat[b][keep])
        scores.append(np.where(est_sign == 0, 0.5, est_sign == truth_sign).mean())
    return float(np.mean(scores))


def flicker(estimate: np.ndarray, truth: np.ndarray) -> float:
    still = np.abs(truth[1:] - truth[:-1]) < 0.005 * truth[1:]
    if still.sum() < 100:
        return float("nan")
    return float(100 * np.abs(estimate[1:] - estimate[:-1])[still].mean())


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--scenes", nargs="+", choices=SCENES, default=list(SCENES))
    p.add_argument("--methods", nargs="+", default=["ramp", "heuristic-v1", "heuristic"])
    p.add_argument("--models", action="store_true",
                   help="add depth-anything-v2-small/base/large with random weights")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--size", default="320x180")
    args = p.parse_args(argv)
    size = tuple(int(v) for v in args.size.split("x"))
    methods = list(args.methods)
    if args.models:
        methods += ["depth-anything-v2-small", "depth-anything-v2-base", "depth-anything-v2-large"]
    torch.set_num_threads(1)
    rows = []
    with tempfile.TemporaryDirectory() as models_dir:
        for scene in args.scenes:
            rgb, depth = load_scene(scene, args.seconds, size)
            for method in methods:
                start = time.perf_counter()
                estimator = make_estimator(method, Path(models_dir), depth)
                est = run_method(estimator, rgb)
                seconds = time.perf_counter() - start
                seen = getattr(getattr(estimator, "inner", None), "seen", len(rgb))
                rows.append({
                    "scene": scene, "method": method, "frames": len(rgb),
                    "ordinal": round(ordinal_accuracy(est, depth, np.random.default_rng(0)), 3),
                    "flicker_pct": round(flicker(est, depth), 3),
                    "ms_per_frame": round(1000 * seconds / len(rgb), 1),
                    "model_share": round(seen / len(rgb), 2),
                })
                print("| {scene} | {method} | {ordinal:.3f} | {flicker_pct:.3f} | "
                      "{ms_per_frame} | {model_share} |".format(**rows[-1]), flush=True)
    print(json.dumps(rows))
    return rows


if __name__ == "__main__":
    main()
