"""What the depth's changes from frame to frame cost x264 (issue 17).

x264 encodes the converted picture. Where the disparity at a point of the
scene changes between two frames, that point moves by a sub-pixel amount
that is not its motion, and x264's motion search and residuals pay for it.
This bench renders one clip three ways, through ``--depth-video`` so that
only the depth differs, and encodes each (and the source) with the engine's
x264 settings on one thread pinned to one core:

- ``converted``: the engine's own depth (``stereo-inference depth``);
- ``held``: the first frame's depth, held for the whole clip (the disparity
  never changes, the picture is otherwise the same kind of warp);
- ``flat``: one depth everywhere (the layout's squeeze alone);
- ``source``: the clip itself;
- with ``--dead-band 0.01,0.03``, also ``dead band T``: the engine's depth
  where it moved by at least T of its range since the last change, else the
  last value (what a depth that stays put where little changed would cost).

The renders are written lossless and decoded to raw frames first, so each
timed run is x264 alone. Prints one JSON line: the median and the least of
each encode's user CPU seconds over interleaved rounds, each against
``source``, and its bytes.

    .venv/bin/python bench/encode_cost.py [--clip FILE] [--seconds 8] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

import av
import numpy as np
from stereo_media.ffmpeg import ffmpeg_path
from shared_types.models import ConversionParams
from stereo_media.testing.media import make_video
from stereo_inference import convert_file
from stereo_inference.depth_export import export_depth


def depth_frames(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="gray16le") for f in container.decode(video=0)]


def write_depth(path: Path, frames: list[np.ndarray], fps: int) -> Path:
    """A 16-bit grey FFV1 video, as ``stereo-inference depth`` writes one."""
    with av.open(str(path), "w") as out:
        stream = out.add_stream("ffv1", rate=fps)
        stream.height, stream.width = frames[0].shape
        stream.pix_fmt = "gray16le"
        for frame in frames:
            out.mux(stream.encode(av.VideoFrame.from_ndarray(frame, format="gray16le")))
        out.mux(stream.encode())
    return path


def dead_band(frames: list[np.ndarray], share: float) -> list[np.ndarray]:
    """Each pixel keeps its last value until the depth there moves by ``share``
    of the 16-bit range."""
    held, out = frames[0], [frames[0]]
    for frame in frames[1:]:
        moved = np.abs(frame.astype(np.int32) - held) >= share * 65535
        held = np.where(moved, frame, held)
        out.append(held)
    return out


def raw_yuv(video: Path, raw: Path) -> tuple[int, int]:
    """``video`` decoded to raw yuv420p at ``raw``: its (width, height)."""
    with av.open(str(video)) as container, raw.open("wb") as out:
        for frame in container.decode(video=0):
            out.write(frame.reformat(format="yuv420p").to_ndarray().tobytes())
    return frame.width, frame.height


def x264_cpu(raw: Path, size: tuple[int, int], fps: int, out: Path, crf: int,
             preset: str) -> tuple[float, int]:
    """User CPU seconds of one single-threaded x264 encode of ``raw``, and its bytes."""
    core = max(os.sched_getaffinity(0))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-threads", "1",
                    "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", f"{size[0]}x{size[1]}",
                    "-r", str(fps), "-i", str(raw), "-c:v", "libx264", "-crf", str(crf),
                    "-preset", preset, "-threads", "1", str(out)],
                   check=True, preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, out.stat().st_size


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--clip", type=Path, help="a video (default: a generated 720p30 clip)")
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--mode", default="half-sbs")
    p.add_argument("--crf", type=int, default=20)
    p.add_argument("--preset", default="veryfast")
    p.add_argument("--dead-band", default="", help="comma-separated shares of the depth range")
    args = p.parse_args(argv)
    fps = 30
    with tempfile.TemporaryDirectory(prefix="encode-cost-") as tmp:
        work = Path(tmp)
        clip = args.clip or make_video(work / "clip.mp4", seconds=args.seconds, size=(1280, 720),
                                       fps=fps, gop=2 * fps, audio=False)
        with av.open(str(clip)) as container:
            fps = round(float(container.streams.video[0].average_rate or fps))
        export_depth(clip, work / "depth.mkv")
        depth = depth_frames(work / "depth.mkv")
        depths = {"converted": work / "depth.mkv",
                  "held": write_depth(work / "held.mkv", [depth[0]] * len(depth), fps),
                  "flat": write_depth(work / "flat.mkv",
                                      [np.full_like(depth[0], 32768)] * len(depth), fps)}
        for share in (float(v) for v in args.dead_band.split(",") if v):
            depths[f"dead band {share}"] = write_depth(work / f"band{share}.mkv",
                                                       dead_band(depth, share), fps)
        raws = {"source": work / "source.yuv"}
        size = raw_yuv(clip, raws["source"])
        lossless = ConversionParams(crf=0, preset="ultrafast")
        for name, depth_video in depths.items():
            rendered = work / f"{name.replace(' ', '-')}.mkv"
            convert_file(clip, rendered, mode=args.mode, params=lossless, depth_video=depth_video)
            raws[name] = rendered.with_suffix(".yuv")
            raw_yuv(rendered, raws[name])
        cpu: dict[str, list[float]] = {name: [] for name in raws}
        size_bytes: dict[str, int] = {}
        for _ in range(max(1, args.rounds)):
            for name, raw in raws.items():
                used, size_bytes[name] = x264_cpu(raw, size, fps, raw.with_suffix(".x264.mp4"),
                                                  args.crf, args.preset)
                cpu[name].append(round(used, 3))
    medians = {name: statistics.median(v) for name, v in cpu.items()}
    least = {name: min(v) for name, v in cpu.items()}
    out = {"mode": args.mode, "crf": args.crf, "preset": args.preset, "fps": fps,
           "size": list(size), "rounds": cpu,
           "median_cpu_s": {k: round(v, 3) for k, v in medians.items()},
           "against_source": {k: round(v / medians["source"], 3) for k, v in medians.items()},
           # a run's CPU time only grows with what else the machine does: the
           # least of the rounds is the steadier figure on a shared machine
           "least_cpu_s": {k: round(v, 3) for k, v in least.items()},
           "least_against_source": {k: round(v / least["source"], 3) for k, v in least.items()},
           "bytes": size_bytes}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
