"""Cost of ``dynamic_range=sdr`` (HDR10 tone-mapped to 8-bit SDR) against keeping HDR.

A generated HDR10 clip (10-bit HEVC, BT.2020 / PQ, 1000-nit mastering display,
default 720p24, 5 s) is converted to half-SBS in this process twice per round,
``dynamic_range=keep`` (10-bit planes, libx265) and ``sdr`` (tone-mapped in the
decode thread, libx264), rounds alternating so a shared machine's load hits
both alike, and a third time as ``sdr`` with the tone mapper switched off
(``clip_8bit``: the same 8-bit pipeline, the 10-bit frames only scaled down to
8 bits, wrong colours) -- the reference the tone mapper's cost is measured
against. Also measured alone, in the same run: the tone mapper on the
clip's decoded frames (ms a frame) against decoding those frames to 10-bit
planes (the work it adds to the decode thread). Medians; prints one JSON object.

    .venv/bin/python bench/tone_mapping.py
    .venv/bin/python bench/tone_mapping.py --resolution 1080p --seconds 3 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

import av
from shared_types.models import ConversionParams
from stereo_media.testing.rich_media import make_rich_video

RESOLUTIONS = {"480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080)}


def timed(fn) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    fn()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def decoded_frames(path: Path) -> list:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="yuv420p10le") for f in c.decode(video=0)]


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--resolution", choices=sorted(RESOLUTIONS), default="720p")
    p.add_argument("--fps", type=int, default=24)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    from stereo_inference import convert
    from stereo_inference.convert import convert_file
    from stereo_inference.tonemap import ToneMapper
    from stereo_inference.video_info import probe_video

    with tempfile.TemporaryDirectory(prefix="tonemap-bench-") as tmp:
        work = Path(tmp)
        clip = make_rich_video(work / "hdr.mkv", seconds=args.seconds, hdr10=True,
                               size=RESOLUTIONS[args.resolution], fps=args.fps,
                               cues=(), chapters=())
        info = probe_video(clip.path)
        mapper = ToneMapper(info.color, info.hdr)
        runs: dict[str, list] = {"keep": [], "sdr": [], "clip_8bit": [], "decode_10bit": [],
                                 "tone_map": []}
        real = convert.sdr_tone_mapper
        frames = []
        for _ in range(max(1, args.repeat)):
            for name in ("keep", "sdr", "clip_8bit"):
                params = ConversionParams(dynamic_range="keep" if name == "keep" else "sdr")
                convert.sdr_tone_mapper = real if name != "clip_8bit" else (lambda *a: None)
                runs[name].append(timed(lambda p=params: convert_file(
                    clip.path, work / "out.mp4", mode="half-sbs", params=p)))
            convert.sdr_tone_mapper = real
            runs["decode_10bit"].append(timed(lambda: frames.append(decoded_frames(clip.path))))
            runs["tone_map"].append(timed(lambda: [mapper(f) for f in frames[-1]]))
        n = len(frames[-1])
        med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v))
               for k, v in runs.items()}
        result = {
            "clip": f"{args.resolution} {args.fps} fps {args.seconds:g} s ({n} frames), HDR10",
            "keep_s": round(med["keep"][0], 2), "sdr_s": round(med["sdr"][0], 2),
            "sdr_over_keep": round(med["sdr"][0] / med["keep"][0], 3),
            "sdr_over_keep_cpu": round(med["sdr"][1] / med["keep"][1], 3),
            "clip_8bit_s": round(med["clip_8bit"][0], 2),
            "sdr_over_clip_8bit": round(med["sdr"][0] / med["clip_8bit"][0], 3),
            "sdr_over_clip_8bit_cpu": round(med["sdr"][1] / med["clip_8bit"][1], 3),
            "tone_map_ms_per_frame": round(med["tone_map"][0] / n * 1000, 1),
            "decode_10bit_ms_per_frame": round(med["decode_10bit"][0] / n * 1000, 1),
            "tone_map_share_of_sdr_wall": round(med["tone_map"][0] / med["sdr"][0], 3),
            "runs_s": {k: [round(r[0], 2) for r in v] for k, v in runs.items()},
        }
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
