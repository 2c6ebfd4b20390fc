"""What the layouts and codecs of issue 51 cost against a plain half-SBS x264
conversion, measured in the same run.

One generated clip (default 720p30, 4 s, with audio) is converted in process
(``convert_file``, heuristic depth) as half-SBS x264 (the reference), then as
each variant, in rounds whose order turns, so a shared machine's load hits
each alike. Reported per variant: median wall and CPU seconds, their ratio to
the reference's (``vs_half_sbs``, ``cpu_vs_half_sbs``) and the output's size
over the reference's.

    .venv/bin/python bench/layout_costs.py
    .venv/bin/python bench/layout_costs.py --resolution 1080p --seconds 3 --repeat 2

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from shared_types.conversion import EngineRuntime
from shared_types.models import ConversionParams
from stereo_media.testing.media import make_video

RESOLUTIONS = {"480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080)}
VARIANTS = {
    "half-sbs x264": ("half-sbs", {}),
    "half-sbs x265": ("half-sbs", {"codec": "x265"}),
    "half-sbs av1": ("half-sbs", {"codec": "av1"}),
    "half-sbs x264 10-bit": ("half-sbs", {"pix_fmt": "yuv420p10le"}),
    "half-sbs cross-eyed": ("half-sbs", {"cross_eyed": True}),
    "half-sbs max-fps 15": ("half-sbs", {"max_fps": 15}),
    "vr180": ("vr180", {}),
    "rgbd": ("rgbd", {}),
    "half-rgbd": ("half-rgbd", {}),
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(args) -> dict:
    from stereo_inference.convert import convert_file

    size = RESOLUTIONS[args.resolution]
    names = [n for n in VARIANTS if not args.only or n in args.only.split(",")]
    if "half-sbs x264" not in names:
        names.insert(0, "half-sbs x264")
    timings: dict[str, list[tuple[float, float, int]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory(prefix="layouts-") as tmp:
        tmp = Path(tmp)
        clip = make_video(tmp / "clip.mp4", seconds=args.seconds, size=size, fps=30)
        for i in range(args.repeat):
            for name in names[i % len(names):] + names[:i % len(names)]:
                mode, extra = VARIANTS[name]
                out = tmp / "out.mp4"
                out.unlink(missing_ok=True)
                params = ConversionParams(preset=args.preset, **extra)
                wall, cpu = time.perf_counter(), _cpu()
                convert_file(clip, out, mode=mode, params=params, start_at_zero=True,
                             runtime=EngineRuntime(device="cpu"))
                timings[name].append((time.perf_counter() - wall, _cpu() - cpu,
                                      out.stat().st_size))
    medians = {n: (statistics.median(t[0] for t in r), statistics.median(t[1] for t in r),
                   statistics.median(t[2] for t in r)) for n, r in timings.items()}
    ref = medians["half-sbs x264"]
    result = {"resolution": args.resolution, "seconds": args.seconds, "repeat": args.repeat,
              "preset": args.preset, "load_average": [round(v, 1) for v in os.getloadavg()]}
    for name, (wall, cpu, size_b) in medians.items():
        result[name] = {"s": round(wall, 2), "cpu_s": round(cpu, 2),
                        "vs_half_sbs": round(wall / ref[0], 2),
                        "cpu_vs_half_sbs": round(cpu / ref[1], 2),
                        "size_vs_half_sbs": round(size_b / ref[2], 2)}
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--resolution", choices=list(RESOLUTIONS), default="720p")
    p.add_argument("--seconds", type=float, default=4.0)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--preset", default="veryfast")
    p.add_argument("--only", help="comma-separated variant names (the reference is kept)")
    print(json.dumps(run(p.parse_args()), indent=1))


if __name__ == "__main__":
    main()
