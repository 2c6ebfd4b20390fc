"""How long a 10 s preview waits before its own work, for a long local source:
reading the stored film in place (what media-worker does for previews on the
local backend) against copying it first (what it would do otherwise), in the
same run.

A long, large source is generated once (default 120 s of 1280x720 at a high
bitrate), put in a local-backend bucket, then each round times, alternately,
``source_file`` (a copy) + ``cut_clip`` and ``source_input`` (the stored file
in place) + ``cut_clip`` (10 s from the middle), with the page cache dropped of nothing
(both read the same warm file: the difference is the copy alone). Prints one
JSON object: median seconds of each, the ratio copy / in place, the source size.

    .venv/bin/python bench/preview_clip.py
    .venv/bin/python bench/preview_clip.py --seconds 300 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from local_adapters import build_backend
from media_worker.clip import cut_clip
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input
from media_worker.source_file import source_file, source_input
from stereo_media.ffmpeg import ffmpeg_path
from shared_types.keys import source_key
from shared_types.settings import BackendSettings


def make_source(path: Path, seconds: int) -> Path:
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", f"testsrc2=size=1280x720:rate=30:duration={seconds}",
                    "-c:v", "libx264", "-preset", "ultrafast", "-crf", "4", "-g", "60",
                    str(path)], check=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-preview-") as tmp:
        work = Path(tmp)
        backend = build_backend(BackendSettings(backend="local", data_dir=work / "data"))
        storage = backend.input_storage
        info = storage.put_file(source_key("film"), make_source(work / "film.mp4", args.seconds))
        runner = FfmpegRunner(ffmpeg_path(), timeout_s=600)
        times: dict[str, list[float]] = {"copy": [], "in_place": []}
        for _ in range(args.repeat):
            for name, in_place in (("copy", False), ("in_place", True)):
                copy = work / "copy.mp4"
                started = time.perf_counter()
                source = (source_input(storage, info, copy) if in_place
                          else file_input(source_file(storage, info, copy)))
                cut_clip(runner, source, args.seconds / 2, 10.0, work / "clip.mp4")
                times[name].append(time.perf_counter() - started)
                copy.unlink(missing_ok=True)
        med = {k: round(statistics.median(v), 3) for k, v in times.items()}
        print(json.dumps({"source_mb": round(info.size / 1e6, 1), "source_s": args.seconds,
                          "median_s": med, "copy_over_in_place": round(
                              med["copy"] / med["in_place"], 2), "runs": times}))


if __name__ == "__main__":
    main()
