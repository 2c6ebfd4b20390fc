"""CPU seconds of the CPU render alone (warp plan, remap, shrink, packing), per mode.

Decodes a generated 720p clip once, estimates its depth once (weight-free
heuristic), then times ``StereoRenderer.render`` on those batches with
``time.thread_time()`` (this thread's CPU only, so other jobs on a shared
machine barely move it). Prints one JSON object: ms of CPU per frame per mode.

    .venv/bin/python bench/render_cost.py --frames 60 --modes half-sbs,anaglyph
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import cv2
from shared_types.models import ConversionParams, OutputMode
from stereo_media.testing.media import make_video
from stereo_inference.decode import FrameReader
from stereo_inference.depth import load_estimator
from stereo_inference.depth_state import resume
from stereo_inference.formats import eye_size, output_size
from stereo_inference.runtime import reuse_freed_memory
from stereo_inference.synthesis import StereoRenderer


def render_ms(clip: Path, mode: OutputMode, repeat: int) -> float:
    params = ConversionParams(depth_model="heuristic")
    estimator = load_estimator("heuristic", models_dir=None, device="cpu")
    width, height = 1280, 720
    renderer = StereoRenderer(mode, params, estimator, resume(estimator, None), "cpu",
                              eye_size=eye_size(mode, width, height))
    reader = FrameReader(clip, eye_size=output_size(OutputMode.ANAGLYPH, width, height),
                         depth_size=estimator.input_size(width, height),
                         eye_format=renderer.eye_format, batch_size=4)
    batches = list(reader)
    frames = sum(len(b.eyes) for b in batches)
    for batch in batches:
        renderer.estimate(batch)
    runs = []
    for _ in range(repeat):
        start = time.thread_time()
        for batch in batches:
            renderer.render(batch)
        runs.append((time.thread_time() - start) * 1000 / frames)
    return round(statistics.median(runs), 2)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--modes", default="half-sbs,anaglyph")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--default-malloc", action="store_true",
                   help="leave glibc's allocator as it is (the A/B of runtime.reuse_freed_memory)")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)  # as a conversion on a 2-core machine runs it (runtime.cpu_threads)
    if not args.default_malloc:
        reuse_freed_memory()  # as convert_file does
    with tempfile.TemporaryDirectory(prefix="render-cost-") as tmp:
        clip = make_video(Path(tmp) / "clip.mp4", seconds=args.frames / 30, size=(1280, 720),
                          fps=30)
        result = {m: render_ms(clip, OutputMode(m), args.repeat) for m in args.modes.split(",")}
    print(json.dumps({"render_cpu_ms_per_frame": result}))
    return result


if __name__ == "__main__":
    main()
