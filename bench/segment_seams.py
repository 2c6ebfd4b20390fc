"""Do segment boundaries show a jump in depth? (issue 8, "Seamless segments")

Generates a clip with slow camera motion (a pan across a still image), splits it
into keyframe-aligned segments like media-worker does (``-f segment -c copy``),
converts every segment on its own with the engine three ways, and reports

    seam ratio = mean |frame-to-frame change| at segment boundaries
                 / median |frame-to-frame change| within segments

of the joined output (goal: <= 1.5), and how far the joined output departs
from converting the whole file at once: mean |difference| of the left-minus-right
luma against the whole-file output on the first frame of each segment and
elsewhere (levels of 255; a segment start should not stand out):

- ``independent``: each segment starts with fresh depth normalisation (no state);
- ``seamless``: each segment gets the previous *input* segment as
  ``convert_file(context_path=...)``, so the engine warms its depth state on
  that segment's tail (``stereo_inference.seams``; what every video-worker
  inference backend does, in parallel);
- ``sequential``: each segment gets the previous segment's returned depth_state
  (only possible one after another; the ideal).

Usage: .venv/bin/python bench/segment_seams.py [--seconds 24] [--segment-seconds 4] [--crf 0]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from local_stack.testing.media import gray_frames
from stereo_media.ffmpeg import ffmpeg_path
from shared_types.models import ConversionParams, OutputMode
from stereo_inference import convert_file


def _ffmpeg(*args: str) -> None:
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", *args],
                   check=True, timeout=600)


def make_pan_clip(path: Path, seconds: float, size: tuple[int, int], fps: int) -> Path:
    """A slow pan across a still fractal image (camera motion, no cuts): exactly
    one pixel per frame, so the source changes evenly from frame to frame."""
    w, h = size
    still = path.with_suffix(".png")
    _ffmpeg("-f", "lavfi", "-i", f"mandelbrot=size={w + int(seconds * fps) + w}x{h * 2}:rate=1",
            "-frames:v", "1",
            str(still))
    _ffmpeg("-loop", "1", "-framerate", str(fps), "-i", str(still), "-t", str(seconds),
            "-vf", f"crop={w}:{h}:x='{w // 2}+n':y='{h // 2}'",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
            "-g", str(fps), "-keyint_min", str(fps), "-sc_threshold", "0", str(path))
    return path


def split(source: Path, out_dir: Path, segment_s: float) -> list[Path]:
    """Keyframe-aligned segments with -c copy (as media-worker cuts them)."""
    _ffmpeg("-i", str(source), "-map", "0:v:0", "-c", "copy", "-f", "segment",
            "-segment_time", str(segment_s), "-segment_time_delta", "0.05",
            "-reset_timestamps", "1", str(out_dir / "seg%05d.mp4"))
    return sorted(out_dir.glob("seg*.mp4"))


def seam_ratio(outputs: list[Path]) -> tuple[float, float, float]:
    """(ratio, mean boundary change, median within-segment change) of joined outputs."""
    clips = [gray_frames(p) for p in outputs]
    frames = np.concatenate(clips)
    change = np.abs(np.diff(frames, axis=0)).mean(axis=(1, 2))
    ends = np.cumsum([len(c) for c in clips])[:-1] - 1  # change from last frame to next first
    boundary = np.zeros(len(change), dtype=bool)
    boundary[ends] = True
    b, w = float(change[boundary].mean()), float(np.median(change[~boundary]))
    return b / w, b, w


def departure_from_whole(outputs: list[Path], whole: Path) -> tuple[float, float]:
    """(segment starts, elsewhere): mean |difference| of the left-minus-right luma of
    the joined segmented output against the whole-file output, in levels of 255,
    on the first frame of each segment (after the first) and on all other frames."""
    clips = [gray_frames(p) * 255 for p in outputs]  # levels of 255
    seg, ref = np.concatenate(clips), gray_frames(whole) * 255
    n = min(len(seg), len(ref))
    half = seg.shape[2] // 2
    parallax = (seg[:n, :, :half] - seg[:n, :, half:]) - (ref[:n, :, :half] - ref[:n, :, half:])
    per_frame = np.abs(parallax).mean(axis=(1, 2))
    starts = np.cumsum([len(c) for c in clips])[:-1]
    starts = starts[starts < n]
    is_start = np.zeros(n, dtype=bool)
    is_start[starts] = True
    return float(per_frame[is_start].mean()), float(per_frame[~is_start].mean())


def run(seconds: float, segment_s: float, size: tuple[int, int], fps: int,
        crf: int = 18) -> dict:
    params = ConversionParams(preset="veryfast", crf=crf)
    with tempfile.TemporaryDirectory(prefix="seams-") as tmp:
        tmp = Path(tmp)
        clip = make_pan_clip(tmp / "pan.mp4", seconds, size, fps)
        (tmp / "segs").mkdir()
        segments = split(clip, tmp / "segs", segment_s)
        report: dict = {"segments": len(segments), "seconds": seconds, "size": list(size)}
        whole = tmp / "whole.mp4"
        convert_file(clip, whole, mode=OutputMode.SBS, params=params)
        for variant in ("independent", "seamless", "sequential"):
            outs, state, started = [], None, time.perf_counter()
            for i, seg in enumerate(segments):
                context = segments[i - 1] if variant == "seamless" and i else None
                if variant != "sequential":
                    state = None
                out = tmp / f"{variant}-{i:05d}.mp4"
                result = convert_file(seg, out, mode=OutputMode.SBS, params=params,
                                      depth_state=state, context_path=context)
                state = result.depth_state
                outs.append(out)
            ratio, b, w = seam_ratio(outs)
            at_starts, elsewhere = departure_from_whole(outs, whole)
            report[variant] = {"seam_ratio": round(ratio, 3), "boundary_change": round(b, 5),
                               "vs_whole_at_starts": round(at_starts, 3),
                               "vs_whole_elsewhere": round(elsewhere, 3),
                               "within_change_median": round(w, 5),
                               "wall_s": round(time.perf_counter() - started, 2)}
        return report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=24)
    p.add_argument("--segment-seconds", type=float, default=4)
    p.add_argument("--width", type=int, default=320)
    p.add_argument("--height", type=int, default=180)
    p.add_argument("--fps", type=int, default=24)
    p.add_argument("--crf", type=int, default=18,
                   help="x264 CRF of every output; 0 is lossless, so the departure from the "
                        "whole file is depth alone, not the encoder's keyframes")
    a = p.parse_args()
    print(json.dumps(run(a.seconds, a.segment_seconds, (a.width, a.height), a.fps, a.crf)))


if __name__ == "__main__":
    main()
