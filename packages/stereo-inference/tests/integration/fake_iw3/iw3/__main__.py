"""Fake ``python -m iw3``: checks its arguments like iw3 would, records them, and
writes a real side-by-side (or top-bottom) video with ffmpeg."""

import argparse
import json
import os
import subprocess
import sys

import imageio_ffmpeg

parser = argparse.ArgumentParser(prog="iw3")
parser.add_argument("-i", "--input", required=True)
parser.add_argument("-o", "--output", required=True)
parser.add_argument("--yes", action="store_true")
parser.add_argument("--depth-model", required=True)
parser.add_argument("--divergence", type=float, required=True)
parser.add_argument("--convergence", type=float, required=True)
parser.add_argument("--video-codec", required=True)
parser.add_argument("--crf", type=int, required=True)
parser.add_argument("--preset", required=True)
parser.add_argument("--half-sbs", action="store_true")
parser.add_argument("--tb", action="store_true")
parser.add_argument("--half-tb", action="store_true")
parser.add_argument("--anaglyph")
parser.add_argument("--low-vram", action="store_true")
# the comfort options, with iw3's own choices (iw3/utils.py, nunif d23721f)
parser.add_argument("--synthetic-view", default="both", choices=["both", "right", "left"])
parser.add_argument("--convergence-mode", default="constant", choices=["constant", "sod_v1"])
parser.add_argument("--edge-dilation", type=int, nargs="+", default=[2, 1])
parser.add_argument("--mapper", choices=["auto", "pow2", "softplus", "softplus2", "none"])
args = parser.parse_args()

if os.environ.get("FAKE_IW3_FAIL"):
    print("CUDA out of memory", file=sys.stderr)
    sys.exit(1)
with open(os.environ["FAKE_IW3_LOG"], "w") as log:
    json.dump(vars(args), log)
stack = "vstack" if args.tb or args.half_tb else "hstack"
scale = "scale=iw/2:ih," if args.half_sbs else "scale=iw:ih/2," if args.half_tb else ""
# FAKE_IW3_SHIFT=N: the right view moved N px left (everything N px in front of the screen)
shift = int(os.environ.get("FAKE_IW3_SHIFT", "0"))
moved = f"crop=iw-{shift}:ih:{shift}:0,pad=iw+{shift}:ih:0:0" if shift else "null"
graph = f"[0:v]{scale}split[a][b];[b]{moved}[c];[a][c]{stack}[v]"
subprocess.run(
    [imageio_ffmpeg.get_ffmpeg_exe(), "-loglevel", "error", "-y", "-i", args.input,
     "-filter_complex", graph, "-map", "[v]", "-map", "0:a?", "-c:v", args.video_codec,
     "-preset", "ultrafast", "-c:a", "copy", "-f", "mp4", args.output],
    check=True,
)
