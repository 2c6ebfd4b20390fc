"""Cost of keeping every stream: the engine's final mux against the whole conversion.

Two generated clips of the same picture (default 720p30, 10 s): ``plain`` (one
AAC track) and ``rich`` (two AAC tracks with languages and titles, a subtitle
track, chapters, global tags). Each is converted with ``convert_file``
(half-sbs, heuristic depth); then the final mux step alone
(``stereo_inference.mux.mux_output``: video copied + every other stream, and
the MP4 ``st3d`` box) is timed on the converted video, alternating, in the same
run. share = mux seconds / conversion seconds.

    .venv/bin/python bench/stream_keeping.py
    .venv/bin/python bench/stream_keeping.py --resolution 1080p --seconds 5 --container mkv

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from stereo_media.ffmpeg import ffmpeg_path
from shared_types.models import Container
from stereo_media.testing.rich_media import AudioTrack, make_rich_video
from stereo_inference import convert_file
from stereo_inference.mux import mux_output

RESOLUTIONS = {"480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080)}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--resolution", choices=sorted(RESOLUTIONS), default="720p")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--container", choices=[c.value for c in Container], default="mp4")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    container = Container(args.container)
    size = RESOLUTIONS[args.resolution]
    summary: dict = {"resolution": args.resolution, "seconds": args.seconds,
                     "container": container.value}
    with tempfile.TemporaryDirectory(prefix="stream-bench-") as tmp:
        work = Path(tmp)
        clips = {
            "plain": make_rich_video(work / "plain.mp4", seconds=args.seconds, size=size,
                                     fps=args.fps, audio=(AudioTrack("eng", "Main"),),
                                     cues=(), chapters=(), metadata={}),
            "rich": make_rich_video(work / "rich.mp4", seconds=args.seconds, size=size,
                                    fps=args.fps),
        }
        converted, mux_runs = {}, {name: [] for name in clips}
        for name, clip in clips.items():
            start = time.perf_counter()
            out = work / f"{name}.out.{container.value}"
            convert_file(clip.path, out, mode="half-sbs", container=container)
            converted[name] = (out, time.perf_counter() - start)
        for _ in range(max(1, args.repeat)):
            for name, clip in clips.items():
                start = time.perf_counter()
                mux_output(ffmpeg_path(), converted[name][0], clip.path,
                           work / f"{name}.mux.{container.value}", container=container,
                           packing="sbs", timeout_s=600)
                mux_runs[name].append(time.perf_counter() - start)
        for name in clips:
            mux_s, convert_s = statistics.median(mux_runs[name]), converted[name][1]
            summary[name] = {"convert_s": round(convert_s, 2), "mux_s": round(mux_s, 3),
                             "share": round(mux_s / convert_s, 4)}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
