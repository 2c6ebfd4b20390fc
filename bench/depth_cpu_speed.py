"""Depth-Anything-V2 on a CPU: frames per second by inference resolution, and
what a lower resolution changes in the output.

The real DA-V2 architecture (transformers config, random weights: the speed is
real, the depth is not) estimates depth for 720p frames (layered synthetic
scenes from bench/stereo_quality.py) at the engine's default inference
resolution (518 px short side) and at lower ones. Each lower-resolution output,
upsampled to the frame and min-max normalised like the engine's temporal
normaliser, is compared with the 518 px output: mean and 99th-percentile
absolute difference in units of the depth range. Random weights make those
differences an upper bound of what trained weights (smoother maps) give.
At each resolution the model also runs under bfloat16 autocast (what a CPU
with native bfloat16 gets by default), timed in turn with fp32 and compared
with fp32's output the same way.

    .venv/bin/python bench/depth_cpu_speed.py --model depth-anything-v2-small --frames 4
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import cv2
import numpy as np
import torch
from stereo_inference.depth.architectures import random_depth_anything
from stereo_inference.depth.depth_anything import DepthAnythingDepth
from stereo_inference.runtime import native_bfloat16
from stereo_quality import (
    make_scene,  # a sibling script (run from bench/'s folder on sys.path)
)


def frames(n: int, width: int, height: int) -> torch.Tensor:
    """(n,3,h,w) float 0..1 RGB: the left views of n layered scenes."""
    return torch.stack([torch.from_numpy(make_scene(seed, width, height)[0])
                        for seed in range(n)])


def estimate(estimator: DepthAnythingDepth, rgb: torch.Tensor) -> tuple[np.ndarray, float]:
    """(depth (n,h,w) normalised 0..1 at the frame size, seconds per frame)."""
    w, h = estimator.input_size(rgb.shape[3], rgb.shape[2])
    small = torch.nn.functional.interpolate(rgb, size=(h, w), mode="area")
    estimator.estimate(small[:1])  # warm-up
    start = time.perf_counter()
    depth = torch.cat([estimator.estimate(small[i : i + 1]) for i in range(len(small))])
    per_frame = (time.perf_counter() - start) / len(small)
    out = []
    for d in depth[:, 0].numpy():
        d = cv2.resize(d, (rgb.shape[3], rgb.shape[2]), interpolation=cv2.INTER_LINEAR)
        lo, hi = np.percentile(d, (2, 98))
        out.append(np.clip((d - lo) / max(hi - lo, 1e-6), 0, 1))
    return np.stack(out), per_frame


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="depth-anything-v2-small")
    p.add_argument("--frames", type=int, default=4)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--resolutions", default="518,392,266")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--rounds", type=int, default=2,
                   help="fp32 and bfloat16 timed in turn this many times (medians)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    model = random_depth_anything(a.model)
    rgb = frames(a.frames, a.width, a.height)
    results, reference = {}, None
    for res in (int(r) for r in a.resolutions.split(",")):
        est = DepthAnythingDepth(model, a.model, torch.device("cpu"), resolution=res)
        runs = {False: [], True: []}
        for _ in range(a.rounds):
            for bf16 in (False, True):
                est.bfloat16 = bf16  # what a CPU with native bfloat16 gets by default
                runs[bf16].append(estimate(est, rgb))
        depth = runs[False][0][0]
        fp32_s, bf16_s = (statistics.median(s for _, s in runs[b]) for b in (False, True))
        reference = depth if reference is None else reference
        diff = np.abs(depth - reference)
        bf16_diff = np.abs(runs[True][0][0] - depth)
        results[str(res)] = {"input": list(est.input_size(a.width, a.height)),
                             "s_per_frame": round(fp32_s, 3), "fps": round(1 / fp32_s, 2),
                             "mean_abs_diff": round(float(diff.mean()), 4),
                             "p99_abs_diff": round(float(np.percentile(diff, 99)), 4),
                             "bf16_s_per_frame": round(bf16_s, 3),
                             "bf16_speedup": round(fp32_s / bf16_s, 3),
                             "bf16_mean_abs_diff": round(float(bf16_diff.mean()), 4),
                             "bf16_p99_abs_diff": round(float(np.percentile(bf16_diff, 99)), 4)}
    print(json.dumps({"model": a.model, "frame": [a.width, a.height], "threads": a.threads,
                      "native_bfloat16": native_bfloat16(),
                      "load_average": [round(v, 1) for v in os.getloadavg()],
                      "by_resolution": results}, indent=1))


if __name__ == "__main__":
    main()
