"""What does the pipeline cost on top of the engine? (issue 8, "Pipeline overhead")

Wall time of ``stereo-spot convert`` with one video-worker (CLI start, worker
processes, chunking, per-segment conversion with seamless-depth warm-up,
segment events, reassembly, download) divided by the wall time of the engine's
``convert_file`` on the same clip in the same run. Goal: <= 1.10.

Usage: .venv/bin/python bench/pipeline_overhead.py [--seconds 60] [--width 480 --height 270]
       [--segment-seconds 10] [--mode half-sbs] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from local_stack.testing.media import video_facts
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.media import make_video
from stereo_inference import convert_file


def time_engine(clip: Path, out: Path, mode: str) -> float:
    started = time.perf_counter()
    convert_file(clip, out, mode=OutputMode(mode), params=ConversionParams())
    return time.perf_counter() - started


def time_stack(clip: Path, out: Path, mode: str, segment_s: float, data: Path) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STEREO_SPOT_")}
    env["STEREO_SPOT_SQS_WAIT_S"] = "1"
    cli = Path(sys.executable).parent / "stereo-spot"
    started = time.perf_counter()
    subprocess.run([str(cli), "convert", str(clip), "-o", str(out), "--mode", mode,
                    "--workers", "1", "--segment-seconds", str(segment_s),
                    "--data-dir", str(data)],
                   env=env, check=True, capture_output=True, timeout=3600)
    return time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--width", type=int, default=480)
    p.add_argument("--height", type=int, default=270)
    p.add_argument("--segment-seconds", type=float, default=10)
    p.add_argument("--mode", default="half-sbs")
    p.add_argument("--repeat", type=int, default=1)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="overhead-") as tmp:
        tmp = Path(tmp)
        clip = make_video(tmp / "clip.mp4", seconds=a.seconds, size=(a.width, a.height))
        engine, stack = [], []
        for i in range(a.repeat):  # interleaved, so machine noise hits both alike
            engine.append(time_engine(clip, tmp / f"engine{i}.mp4", a.mode))
            stack.append(time_stack(clip, tmp / f"stack{i}.mp4", a.mode, a.segment_seconds,
                                    tmp / f"data{i}"))
        facts = [video_facts(tmp / f"{k}0.mp4") for k in ("engine", "stack")]
        print(json.dumps({
            "clip": {"seconds": a.seconds, "size": [a.width, a.height], "mode": a.mode,
                     "segment_seconds": a.segment_seconds},
            "engine_convert_file_s": [round(t, 2) for t in engine],
            "stereo_spot_convert_s": [round(t, 2) for t in stack],
            "ratio": round(min(stack) / min(engine), 3),
            "frames": {"engine": facts[0].frames, "stack": facts[1].frames},
        }))


if __name__ == "__main__":
    main()
