"""CPU cost of the weight-free depth: ``convert_file`` with today's ``heuristic``
against the one before issue 14 (``bench/legacy_heuristic.py``), swapped into the
same process and alternated, so both see the same machine.

    .venv/bin/python bench/heuristic_cost.py --seconds 10 --repeat 3

Prints one JSON line: median wall and CPU seconds of each, and new/old ratios.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

import legacy_heuristic
import stereo_inference.depth.heuristic as current
from shared_types.models import ConversionParams
from stereo_media.testing.media import make_video
from stereo_inference import convert_file


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    # The old engine ran torch on one thread beside the decoder and x264; today's
    # CPU path never starts torch, so the old class would get all cores' OpenMP
    # threads spinning against them (and look twice as costly as it was).
    legacy_heuristic.torch.set_num_threads(1)
    classes = {"old": legacy_heuristic.HeuristicDepth, "new": current.HeuristicDepth}
    runs: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory(prefix="heuristic-cost-") as tmp:
        clip = make_video(Path(tmp) / "clip.mp4", seconds=args.seconds, size=(1280, 720),
                          fps=30, gop=60)
        try:
            for _ in range(max(1, args.repeat)):
                for name, cls in classes.items():
                    current.HeuristicDepth = cls  # what load_estimator builds
                    cpu, wall = cpu_seconds(), time.perf_counter()
                    convert_file(clip, Path(tmp) / "out.mp4", mode="half-sbs",
                                 params=ConversionParams())
                    runs[name].append((time.perf_counter() - wall, cpu_seconds() - cpu))
        finally:
            current.HeuristicDepth = classes["new"]
    out: dict = {name: {"wall_s": round(statistics.median(w for w, _ in r), 2),
                        "cpu_s": round(statistics.median(c for _, c in r), 2)}
                 for name, r in runs.items()}
    out["cpu_ratio_new_over_old"] = round(out["new"]["cpu_s"] / out["old"]["cpu_s"], 3)
    out["wall_ratio_new_over_old"] = round(out["new"]["wall_s"] / out["old"]["wall_s"], 3)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
