"""Conversion throughput: ``convert_file`` against a plain ffmpeg transcode, same run.

A generated clip with audio (default 720p30, 20 s) is converted to ``half-sbs``
with ``heuristic`` depth, and transcoded by ffmpeg with the same encoder
settings (libx264, same crf and preset, audio copied). The ratio is
ffmpeg seconds / convert seconds (1.0 = as fast as a plain transcode). The peak
resident memory of this process (which runs the conversion) is reported too.

    .venv/bin/python bench/convert_throughput.py                       # 720p, 20 s
    .venv/bin/python bench/convert_throughput.py --resolution 1080p --frames 150
    .venv/bin/python bench/convert_throughput.py --device cuda --depth depth-anything-v2-small \\
        --random-weights --resolution 1080p --frames 600

``--random-weights`` builds the named Depth-Anything-V2 architecture with
random weights (no download needed): the speed is real, the depth meaningless.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from shared_types.ffmpeg import ffmpeg_path
from shared_types.models import ConversionParams, DepthModel
from shared_types.testing.media import make_video
from stereo_inference import convert_file

RESOLUTIONS = {"480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080),
               "2160p": (3840, 2160)}


def ffmpeg_transcode(src: Path, dst: Path, crf: int, preset: str) -> float:
    """Seconds for a plain ffmpeg transcode with the engine's encoder settings."""
    start = time.perf_counter()
    subprocess.run(
        [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-i", str(src),
         "-c:v", "libx264", "-crf", str(crf), "-preset", preset, "-pix_fmt", "yuv420p",
         "-c:a", "copy", str(dst)],
        check=True, timeout=3600,
    )
    return time.perf_counter() - start


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def install_random_model(name: str, models_dir: Path) -> None:
    from stereo_inference.depth.architectures import random_depth_anything

    random_depth_anything(name).save_pretrained(models_dir / name)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--resolution", choices=sorted(RESOLUTIONS), default="720p")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--frames", type=int, default=None, help="overrides --seconds")
    p.add_argument("--mode", default="half-sbs")
    p.add_argument("--depth", choices=[m.value for m in DepthModel], default="heuristic")
    p.add_argument("--random-weights", action="store_true")
    p.add_argument("--device", default=None, help="cpu or cuda (default: auto)")
    p.add_argument("--crf", type=int, default=20)
    p.add_argument("--preset", default="veryfast")
    p.add_argument("--skip-ffmpeg", action="store_true", help="only time the conversion")
    p.add_argument("--clip", type=Path, default=None,
                   help="convert this clip instead of generating one (machines without ffmpeg)")
    p.add_argument("--ffmpeg", default=None, help="ffmpeg binary for the engine's audio path")
    p.add_argument("--repeat", type=int, default=3,
                   help="alternating runs of each; medians are reported (the machine is noisy)")
    args = p.parse_args(argv)
    seconds = args.frames / args.fps if args.frames else args.seconds
    size = RESOLUTIONS[args.resolution]
    with tempfile.TemporaryDirectory(prefix="convert-bench-") as tmp:
        work = Path(tmp)
        clip = args.clip or make_video(work / "clip.mp4", seconds=seconds, size=size,
                                       fps=args.fps, gop=args.fps * 2)
        models_dir = work / "models"
        if args.random_weights and args.depth.startswith("depth-anything"):
            install_random_model(args.depth, models_dir)
        params = ConversionParams(depth_model=args.depth, crf=args.crf, preset=args.preset)
        ffmpeg_runs, convert_runs, ffmpeg_cpu, convert_cpu = [], [], [], []
        for _ in range(max(1, args.repeat)):
            if not args.skip_ffmpeg:
                before = cpu_seconds(resource.RUSAGE_CHILDREN)
                ffmpeg_runs.append(
                    ffmpeg_transcode(clip, work / "plain.mp4", args.crf, args.preset))
                ffmpeg_cpu.append(cpu_seconds(resource.RUSAGE_CHILDREN) - before)
            before = cpu_seconds(resource.RUSAGE_SELF)
            start = time.perf_counter()
            result = convert_file(clip, work / "stereo.mp4", mode=args.mode, params=params,
                                  models_dir=models_dir, device=args.device,
                                  ffmpeg=args.ffmpeg)
            convert_runs.append(time.perf_counter() - start)
            convert_cpu.append(cpu_seconds(resource.RUSAGE_SELF) - before)
        t_ffmpeg = statistics.median(ffmpeg_runs) if ffmpeg_runs else None
        t_convert = statistics.median(convert_runs)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    summary = {
        "resolution": args.resolution, "frames": result.frames, "mode": args.mode,
        "depth": result.depth_model, "device": args.device or "auto",
        "convert_s": round(t_convert, 2), "convert_fps": round(result.frames / t_convert, 1),
        "ffmpeg_s": round(t_ffmpeg, 2) if t_ffmpeg else None,
        "ratio": round(t_ffmpeg / t_convert, 3) if t_ffmpeg else None,
        "peak_rss_mb": round(peak_mb), "repeat": len(convert_runs),
        "ratios": [round(f / c, 3) for f, c in zip(ffmpeg_runs, convert_runs, strict=False)],
        # CPU seconds (user + system): less sensitive to other jobs on a shared machine
        "cpu_ratio": (round(statistics.median(ffmpeg_cpu) / statistics.median(convert_cpu), 3)
                      if ffmpeg_cpu else None),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
