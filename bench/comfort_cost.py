"""What the comfort features cost a conversion (issue 51).

One clip is converted to half SBS by the engine (heuristic depth, CPU) in
interleaved rounds, each variant once a round:

- ``plain``: no comfort report, no comfort control (the reference);
- ``report``: the per-shot comfort report (the default);
- ``auto-convergence``: the screen plane per shot, with the report;
- ``everything``: a viewing preset with ``--comfort fix``, auto-convergence,
  the floating window, foreground scale, edge dilation and a depth curve.

Prints one JSON line: each variant's median wall and CPU seconds (user +
system of this process, all its threads) and their ratios to ``plain``'s
medians in the same run (and the least wall time, to see the noise). On a
shared machine the wall times drift with the neighbours' load, so the run also
times the comfort step alone (``planner_ms_per_frame``: ``ShotPlanner.plan`` on
the depth maps the conversion made, per frame) against the plain conversion's
wall time per frame.

    .venv/bin/python bench/comfort_cost.py [--clip FILE] [--seconds 8] [--size 1280x720] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from shared_types.models import ConversionParams
from shared_types.testing.media import make_video
from stereo_inference import convert_file

VARIANTS = {
    "plain": {"comfort": "off"},
    "report": {"comfort": "report"},
    "auto-convergence": {"comfort": "report", "auto_convergence": True},
    "everything": {"comfort": "fix", "viewing": "tv-65", "auto_convergence": True,
                   "floating_window": True, "foreground_scale": 1.5, "edge_dilation": 2,
                   "depth_curve": "s-curve"},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clip", type=Path)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        w, h = (int(v) for v in args.size.split("x"))
        clip = args.clip or make_video(work / "clip.mp4", seconds=args.seconds, size=(w, h),
                                       audio=False)
        times: dict[str, list[float]] = {name: [] for name in VARIANTS}
        cpus: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for _ in range(args.rounds):
            for name, params in VARIANTS.items():
                started, cpu = time.perf_counter(), _cpu()
                result = convert_file(clip, work / f"{name}.mp4", mode="half-sbs",
                                      params=ConversionParams(**params))
                times[name].append(time.perf_counter() - started)
                cpus[name].append(_cpu() - cpu)
        reference = statistics.median(times["plain"])
        cpu_reference = statistics.median(cpus["plain"])
        per_frame = reference / result.frames
        planner = {name: _planner_ms(clip, params, (w, h)) for name, params in VARIANTS.items()
                   if name != "plain"}
        print(json.dumps({
            "clip": str(args.clip or f"testsrc2 {args.size} {args.seconds:g} s"),
            "rounds": args.rounds,
            "plain_ms_per_frame": round(per_frame * 1000, 2),
            **{name: {"median_s": round(statistics.median(t), 3),
                      "least_s": round(min(t), 3),
                      "vs_plain": round(statistics.median(t) / reference, 3),
                      "cpu_s": round(statistics.median(cpus[name]), 3),
                      "cpu_vs_plain": round(statistics.median(cpus[name]) / cpu_reference, 3),
                      **({"planner_ms_per_frame": planner[name],
                          "planner_vs_plain_frame": round(planner[name] / 1000 / per_frame, 4)}
                         if name in planner else {})}
               for name, t in times.items()},
        }))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _planner_ms(clip: Path, params: dict, size: tuple[int, int]) -> float:
    """Milliseconds per frame of ``ShotPlanner.plan`` alone, on the clip's own
    heuristic depth (median of 3 passes over every frame)."""
    from stereo_inference.arrays import rgb_frames
    from stereo_inference.decode import FrameReader
    from stereo_inference.depth import load_estimator
    from stereo_inference.shaping import shaping_for
    from stereo_inference.shot_plan import ShotPlanner
    from stereo_inference.temporal import TemporalNormalizer

    estimator = load_estimator("heuristic", models_dir=None, device="cpu")
    normalizer = TemporalNormalizer(estimator.name)
    w, h = size
    reader = FrameReader(clip, eye_size=(w, h), depth_size=estimator.input_size(w, h),
                         eye_format="yuv420p", batch_size=8)
    depths = []
    for batch in reader:
        small = rgb_frames(batch.depth_rgb, None)
        depths.append(normalizer.normalize(estimator.estimate(small), small))
    frames = sum(d.shape[0] for d in depths)
    conversion = ConversionParams(**params)
    runs = []
    for _ in range(3):
        planner = ShotPlanner(conversion, shaping_for(conversion, w // 2), 1 / 24)
        started = time.perf_counter()
        for i, depth in enumerate(depths):
            planner.plan(depth, [(i * 8 + j) / 24 for j in range(depth.shape[0])])
        runs.append(time.perf_counter() - started)
    return round(statistics.median(runs) / frames * 1000, 3)


if __name__ == "__main__":
    main()
