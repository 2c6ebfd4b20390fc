"""What the server's child process costs a request (issue 52, the hard stop).

Converts the same short clip again and again, interleaved: in-process
(``convert_file``, the server's path before) and through ``EngineProcess`` (a
warm spawned child, the server's path now), and reports each one's median
time and their ratio, plus what the child costs only now and then: its start
(spawn, import, prepare the depth model) before a first request, and the kill
at a deadline with its replacement.

    .venv/bin/python bench/engine_process.py --rounds 10 --seconds 1
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from stereo_inference import convert_file
from stereo_inference.deadline import DeadlinePolicy
from stereo_inference.engine_process import EngineProcess
from stereo_inference.errors import EngineTimeoutError
from stereo_inference.testing.stuck import stuck_convert_file
from stereo_media.testing.media import make_video


def _timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.0, help="clip length")
    parser.add_argument("--mode", default="half-sbs")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-engine-process-"))
    clip = make_video(folder / "clip.mp4", seconds=args.seconds)
    stuck = make_video(folder / "stuck.mp4", seconds=0.125, audio=False)
    out = folder / "out.mp4"

    engine = EngineProcess(stuck_convert_file, policy=DeadlinePolicy(), warm="heuristic")
    started = time.perf_counter()
    engine.start()
    engine.convert(clip, out, mode=args.mode)  # waits for the child's imports
    first = time.perf_counter() - started
    convert_file(clip, out, mode=args.mode)  # the in-process path's own first-use costs

    inside, child = [], []
    for _ in range(args.rounds):
        inside.append(_timed(lambda: convert_file(clip, out, mode=args.mode)))
        child.append(_timed(lambda: engine.convert(clip, out, mode=args.mode)))

    killer = EngineProcess(stuck_convert_file, policy=DeadlinePolicy(), margin_s=0.0,
                           term_grace_s=1.0, warm="heuristic")
    killer.convert(clip, out, mode=args.mode)  # warm
    started = time.perf_counter()
    try:
        killer.convert(stuck, folder / "stuck-out.mp4", mode=args.mode,
                       deadline=DeadlinePolicy(base_s=1.0, s_per_frame=0.0))
    except EngineTimeoutError:
        pass
    killed_after = time.perf_counter() - started
    after_kill = _timed(lambda: killer.convert(clip, out, mode=args.mode))
    killer.close()
    engine.close()

    a, b = statistics.median(inside), statistics.median(child)
    print(f"clip: {args.seconds:g} s, {args.mode}, {args.rounds} rounds interleaved")
    print("| path | median s/request | min | max | ratio to in-process |")
    print("|---|---|---|---|---|")
    print(f"| in-process `convert_file` (reference) | {a:.3f} | {min(inside):.3f} | "
          f"{max(inside):.3f} | 1 |")
    print(f"| warm child `EngineProcess.convert` | {b:.3f} | {min(child):.3f} | "
          f"{max(child):.3f} | {b / a:.3f} |")
    print(f"per-request overhead (median difference): {b - a:+.3f} s")
    print(f"child start + first request: {first:.3f} s")
    print(f"stuck request answered after {killed_after:.3f} s (deadline 1 s, no margin); "
          f"the next request, on a fresh child: {after_kill:.3f} s")


if __name__ == "__main__":
    main()
