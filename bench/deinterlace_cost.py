"""What making an interlaced source progressive costs (``stereo_inference.deinterlace``).

Two generated clips of the same size, frame count and pattern, one coded as
interlaced (two fields of different moments woven into each frame, as a
1080i camcorder or a broadcast writes it) and one progressive, are each
decoded alone (PyAV, as the engine's reader does, with and without ``bwdif``)
and converted in half-SBS with ``convert_file`` in this process, alternating
round by round. Reports medians: decode milliseconds per frame with and
without the filter, and the interlaced conversion's wall and CPU seconds over
the progressive one's (same run). Prints one JSON object.

Usage: .venv/bin/python bench/deinterlace_cost.py [--resolution 720p|1080p] [--seconds 6]
       [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

import av
from stereo_media.testing.media import make_video
from stereo_inference import convert_file
from stereo_inference.deinterlace import progressive_frames

SIZES = {"720p": (1280, 720), "1080p": (1920, 1080)}


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def decode_ms(path: Path, deinterlace: bool) -> float:
    """Milliseconds a frame to decode ``path`` (and filter it, when asked)."""
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        stream.thread_type = "AUTO"
        frames = c.decode(stream)
        if deinterlace:
            frames = progressive_frames(frames, stream)
        start, n = time.perf_counter(), 0
        for _ in frames:
            n += 1
        return (time.perf_counter() - start) * 1000 / max(1, n)


def convert(path: Path, out: Path) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), cpu_s()
    convert_file(path, out, mode="half-sbs")
    return time.perf_counter() - wall, cpu_s() - cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--resolution", choices=sorted(SIZES), default="720p")
    p.add_argument("--seconds", type=float, default=6)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    size = SIZES[a.resolution]
    with tempfile.TemporaryDirectory(prefix="deinterlace-bench-") as tmp:
        folder = Path(tmp)
        woven = make_video(folder / "i.mp4", seconds=a.seconds, size=size, fps=25, audio=False,
                           interlaced=True)
        plain = make_video(folder / "p.mp4", seconds=a.seconds, size=size, fps=25, audio=False)
        convert(plain, folder / "warm.mp4")  # imports and first-call costs, paid once
        runs: dict[str, list[tuple[float, float]]] = {"interlaced": [], "progressive": []}
        decode: dict[str, list[float]] = {"plain": [], "bwdif": []}
        for _ in range(a.repeat):
            decode["plain"].append(decode_ms(woven, deinterlace=False))
            decode["bwdif"].append(decode_ms(woven, deinterlace=True))
            runs["interlaced"].append(convert(woven, folder / "oi.mp4"))
            runs["progressive"].append(convert(plain, folder / "op.mp4"))
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    print(json.dumps({
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="minutes"),
        "resolution": a.resolution, "seconds": a.seconds, "repeat": a.repeat,
        "decode_ms_per_frame": {k: round(statistics.median(v), 2) for k, v in decode.items()},
        "convert_wall_s": {k: round(v, 2) for k, v in wall.items()},
        "convert_cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "wall_ratio_interlaced_vs_progressive": round(wall["interlaced"] / wall["progressive"], 3),
        "cpu_ratio_interlaced_vs_progressive": round(cpu["interlaced"] / cpu["progressive"], 3),
    }, indent=1))


if __name__ == "__main__":
    main()
