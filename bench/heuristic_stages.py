"""CPU per frame of the weight-free depth, by stage, and against an older tree.

Runs ``HeuristicDepth.estimate`` and ``TemporalNormalizer.normalize`` the way
the engine does (batches of 8, numpy on the CPU, OpenCV on one thread) over
the generated scenes of ``bench/depth_quality.py`` at the estimator's input
size (128x72), and reports per-thread CPU time (``time.thread_time``) per
frame: in total and per stage (flow, parallax fit, guided filter, warps,
normalisation; ground contact in trees before issue 50 round 2). One-time
initialisation is excluded (one warm-up call first).

With ``--convert SECONDS`` it measures a whole conversion instead: CPU
seconds (all threads) of an in-process ``convert_file`` of a generated 720p30
clip to half-SBS, after one short warm-up conversion.

With ``--against SRC`` (a ``stereo_inference`` source tree, e.g. an older
commit unpacked with ``git archive``) the same measurement runs in child
processes alternately with that tree and with this one, ``--rounds`` times,
and prints the median of each and their ratio: a same-run A/B.

    .venv/bin/python bench/heuristic_stages.py
    git archive main packages/stereo-inference/src | tar -x -C /tmp/base
    .venv/bin/python bench/heuristic_stages.py --against /tmp/base/packages/stereo-inference/src
    .venv/bin/python bench/heuristic_stages.py --convert 8 --against ...

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np
from depth_quality import BATCH, load_scene
from depth_scenes import SCENES


def _frames() -> list[np.ndarray]:
    """Every scene at 128x72, (N,3,h,w) float32 0..1 each."""
    out = []
    for scene in SCENES:
        rgb, _ = load_scene(scene, 2.0, (320, 180))
        small = np.stack([cv2.resize(f, (128, 72), interpolation=cv2.INTER_AREA) for f in rgb])
        out.append(np.ascontiguousarray(small.transpose(0, 3, 1, 2), np.float32) / 255)
    return out


def _timed(owner, name: str, key: str, acc: dict) -> None:
    fn = getattr(owner, name, None)
    if fn is None:
        return

    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            acc[key] = acc.get(key, 0.0) + time.thread_time() - start

    setattr(owner, name, wrapper)


def measure(stages: bool) -> dict:
    from stereo_inference.depth import heuristic
    from stereo_inference.temporal import TemporalNormalizer

    cv2.setNumThreads(1)
    scenes = _frames()
    heuristic.HeuristicDepth("cpu").estimate(scenes[0][:2])  # one-time initialisation
    acc: dict[str, float] = {}
    if stages:
        for name, key in (("contact_depth", "contact"), ("parallax", "parallax"),
                          ("guided_filter", "guided"), ("warp_back", "warp")):
            if hasattr(heuristic, name):  # (ground contact: older trees only)
                _timed(heuristic, name, key, acc)
        _timed(heuristic.FlowField, "backward", "flow", acc)
    total, frames = 0.0, 0
    for rgb in scenes:
        estimator, normalizer = heuristic.HeuristicDepth("cpu"), TemporalNormalizer("heuristic")
        for i in range(0, len(rgb), BATCH):
            start = time.thread_time()
            depth = estimator.estimate(rgb[i:i + BATCH])
            middle = time.thread_time()
            normalizer.normalize(depth, rgb[i:i + BATCH])
            end = time.thread_time()
            total += end - start
            acc["normalize"] = acc.get("normalize", 0.0) + end - middle
        frames += len(rgb)
    out = {"ms_per_frame": round(1000 * total / frames, 3), "frames": frames}
    out.update({f"{k}_ms": round(1000 * v / frames, 3) for k, v in sorted(acc.items())})
    return out


def measure_conversion(seconds: float) -> dict:
    import resource
    import tempfile
    from pathlib import Path

    from shared_types.models import ConversionParams
    from stereo_media.testing.media import make_video
    from stereo_inference import convert_file

    def cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    with tempfile.TemporaryDirectory(prefix="heuristic-stages-") as tmp:
        clips = {}
        for name, length in (("warm", 1.0), ("clip", seconds)):
            clips[name] = make_video(Path(tmp) / f"{name}.mp4", seconds=length,
                                     size=(1280, 720), fps=30, gop=60)
        convert_file(clips["warm"], Path(tmp) / "warm-out.mp4", mode="half-sbs",
                     params=ConversionParams())
        start = cpu()
        convert_file(clips["clip"], Path(tmp) / "out.mp4", mode="half-sbs",
                     params=ConversionParams())
        used = cpu() - start
    return {"cpu_s": round(used, 3), "ms_per_frame": round(1000 * used / (30 * seconds), 3)}


def _child(src: str | None, stages: bool, convert: float | None) -> dict:
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    cmd = [sys.executable, __file__, "--child", *(["--stages"] if stages else []),
           *(["--convert", str(convert)] if convert else [])]
    done = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--against", help="an older stereo_inference source tree (its src folder)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--stages", action="store_true", help="per-stage breakdown")
    p.add_argument("--convert", type=float, metavar="SECONDS",
                   help="measure a whole half-SBS conversion of a clip this long")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child or not args.against:
        out = measure_conversion(args.convert) if args.convert else measure(args.stages)
        print(json.dumps(out))
        return out
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(max(1, args.rounds)):
        runs["old"].append(_child(args.against, args.stages, args.convert))
        runs["new"].append(_child(None, args.stages, args.convert))
    out = {}
    for name, rs in runs.items():
        keys = [k for k in rs[0] if k.endswith(("_ms", "_s")) or k == "ms_per_frame"]
        out[name] = {k: round(statistics.median(r[k] for r in rs), 3) for k in keys}
    out["cpu_ratio_new_over_old"] = round(out["new"]["ms_per_frame"] / out["old"]["ms_per_frame"], 3)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
