"""How much does the depth of what does not move change between frames? (issue 17)

A generated clip (``make_video``: FFmpeg's testsrc2 by default, a still camera
on plain colour bars with a few moving things; or ``--clip FILE``) is read at
320 px wide and its depth computed by ``HeuristicDepth`` the way
``bench/depth_quality.py`` runs every method (``run_method``: the engine's
input size, batches and ``TemporalNormalizer``, scaled back). Reported: the mean change of the normalised depth from one
frame to the next, in % of its range, over the pixels whose picture did not
change at all (``unchanged_share`` of them), and over every pixel. At 720p
with the default divergence (2 % of the width), 1 % of the range is a quarter
of a pixel of parallax: what x264 must re-encode at every edge, and what a
viewer sees as shimmer.

``--against SRC`` runs the same measurement in a child process with another
``stereo_inference`` source tree first on ``PYTHONPATH`` (e.g. main unpacked
with ``git archive``), for a same-run comparison.

    .venv/bin/python bench/still_shot_flicker.py
    .venv/bin/python bench/still_shot_flicker.py --against /tmp/base/packages/stereo-inference/src

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import av
import cv2
import numpy as np

WIDTH = 320


def read_frames(path: Path, limit: int) -> np.ndarray:
    """(N,h,w,3) uint8: the clip's first ``limit`` frames, WIDTH wide."""
    out = []
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            rgb = frame.to_ndarray(format="rgb24")
            h, w = rgb.shape[:2]
            size = (WIDTH, max(8, round(h * WIDTH / w)))
            out.append(cv2.resize(rgb, size, interpolation=cv2.INTER_AREA))
            if len(out) >= limit:
                break
    return np.stack(out)


def measure(rgb: np.ndarray) -> dict:
    from depth_quality import run_method
    from stereo_inference.depth.heuristic import HeuristicDepth

    depth = run_method(HeuristicDepth("cpu"), rgb)
    change = np.abs(np.diff(depth, axis=0))
    unchanged = (np.diff(rgb.astype(np.int16), axis=0) == 0).all(-1)
    span = float(np.quantile(depth, 0.98) - np.quantile(depth, 0.02)) or 1.0
    return {"frames": len(rgb), "unchanged_share": round(float(unchanged.mean()), 3),
            "unchanged_pct": round(100 * float(change[unchanged].mean()) / span, 3),
            "all_pct": round(100 * float(change.mean()) / span, 3)}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clip", type=Path, default=None)
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--frames", type=int, default=120)
    p.add_argument("--against", default=None, help="another stereo_inference src tree")
    p.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        clip = a.clip
        if clip is None:
            from stereo_media.testing.media import make_video

            clip = make_video(Path(tmp) / "clip.mp4", seconds=a.seconds, size=(1280, 720),
                              fps=30, audio=False)
        frames = read_frames(clip, a.frames)
        if a.measure_only:
            result = measure(frames)
            print(json.dumps(result))
            return result
        result = {"clip": str(a.clip or "testsrc2 720p30"), "this": measure(frames)}
        if a.against:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                [a.against, os.environ.get("PYTHONPATH", "")])}
            child = subprocess.run(
                [sys.executable, __file__, "--measure-only", "--clip", str(clip),
                 "--frames", str(a.frames)], env=env, check=True, capture_output=True, text=True)
            result["against"] = json.loads(child.stdout.strip().splitlines()[-1])
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
