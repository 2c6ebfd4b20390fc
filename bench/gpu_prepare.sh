#!/usr/bin/env bash
# Everything a GPU device call needs that the device machine cannot fetch
# (issue 17's GPU figures): run here, in the checkout the device tool sends,
# then `bench/gpu_run.sh` there (see docs/BENCHMARKS.md, "GPU").
#
# - .whl/: the engine's Python dependencies that the device image lacks
#   (PyAV, pydantic and its parts), as CPython 3.12 manylinux wheels;
# - .gpu/clip1080.mp4: the 1080p30 10 s clip every GPU figure is measured on
#   (testsrc2, x264 `fast` crf 18, GOP 60, no audio; ~11.7 MB).
# Both paths are added to .git/info/exclude, and are what `carry` names.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
PY=${PY:-.venv/bin/python}
exclude="$(git rev-parse --git-common-dir)/info/exclude"
mkdir -p "$(dirname "$exclude")" .gpu
for path in /.whl/ /.gpu/; do grep -qxF "$path" "$exclude" 2>/dev/null || echo "$path" >> "$exclude"; done
pin() { grep -i "^$1==" constraints.txt; }
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl \
    "$(pin av)" "$(pin pydantic)" "$(pin pydantic_core)" "$(pin pydantic-settings)" \
    "$(pin annotated-types)" "$(pin typing-inspection)" "$(pin python-dotenv)"
if [ ! -s .gpu/clip1080.mp4 ]; then
    "$PY" - <<'PY'
import subprocess
from pathlib import Path

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_video

raw = make_video(Path(".gpu/raw1080.mp4"), seconds=10.0, size=(1920, 1080), fps=30,
                 audio=False, gop=60)
subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-i", str(raw),
                "-c:v", "libx264", "-preset", "fast", "-crf", "18", "-g", "60",
                ".gpu/clip1080.mp4"], check=True)
raw.unlink()
PY
fi
du -sh .whl .gpu
