"""How long a long video waits before its first segment converts (issue 17,
"chunking that starts converting the first segment before the last is cut").

``stereo-spot convert`` runs on a generated clip (default 720p30, 300 s:
~250 MB) as a user runs it, and the time from the command's start to its
video-worker's first "inference attempt" log line is read; the command is then
interrupted (Ctrl-C: it cancels its job), so a round costs the chunking, not
the conversion. ``--baseline TREE`` runs another checkout's stack in the same
rounds (its ``packages/*/src`` first on ``PYTHONPATH``, as in
``pipeline_overhead.py``), for a same-run A/B. Medians; ratio = this tree over
the baseline.

``--gop 100000`` makes a source with one keyframe, which chunking re-encodes.
``--cold`` drops the clip's pages from the page cache before every run
(``posix_fadvise``), as for a film read from disk rather than one just written.

Usage: .venv/bin/python bench/first_segment.py [--seconds 300] [--gop N] [--repeat 3]
       [--cold] [--baseline TREE]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline_overhead import BASE_CLI, BIN, log_times
from stereo_media.testing.media import make_video

POLL_S = 0.01  # a bench may poll: the figure it reads is a log line's own time


def first_inference(argv: list[str], data: Path, pythonpath: str | None,
                    timeout_s: float) -> float:
    """Seconds from starting ``argv`` to the first "inference attempt" line of its
    video-workers' logs; the command is interrupted then."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STEREO_SPOT_")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    started = time.time()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.time() - started < timeout_s:
            lines = [line for log in (data / "logs").glob("video-worker-*.log")
                     for line in log.read_text().splitlines()]
            found = log_times(lines, "inference attempt")
            if found:
                return min(found) - started
            if proc.poll() is not None:
                raise RuntimeError(f"{argv[:3]} ended before any segment was converted")
            time.sleep(POLL_S)
        raise RuntimeError(f"no segment converted within {timeout_s:g} s")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def evict(path: Path) -> None:
    """Drop ``path``'s pages from the page cache: its next read comes from the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=300)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--segment-seconds", type=float, default=4)
    p.add_argument("--gop", type=int, help="frames between keyframes (sparse: a re-encode)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--baseline", type=Path, help="another checkout to compare with")
    p.add_argument("--cold", action="store_true", help="the clip read from disk every run")
    a = p.parse_args()
    base_path = (os.pathsep.join(str(d) for d in sorted(a.baseline.glob("packages/*/src")))
                 if a.baseline else None)
    runs: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="first-segment-") as tmp:
        tmp = Path(tmp)
        clip = make_video(tmp / "clip.mp4", seconds=a.seconds, size=(a.width, a.height),
                          gop=a.gop)
        variants = ["stack"] + (["base"] if base_path else [])
        for i in range(a.repeat):
            for name in variants[i % len(variants):] + variants[: i % len(variants)]:
                data = tmp / f"data-{name}-{i}"
                program = ([sys.executable, "-c", BASE_CLI] if name == "base"
                           else [str(BIN / "stereo-spot")])
                argv = [*program, "convert", str(clip), "-o", str(tmp / f"{name}{i}.mp4"),
                        "--mode", "half-sbs", "--workers", str(a.workers),
                        "--segment-seconds", str(a.segment_seconds), "--data-dir", str(data)]
                if a.cold:
                    evict(clip)
                runs.setdefault(name, []).append(first_inference(
                    argv, data, base_path if name == "base" else None, a.timeout))
        size_mb = clip.stat().st_size / 1e6
    median = {k: statistics.median(v) for k, v in runs.items()}
    report = {
        "clip": {"seconds": a.seconds, "size": [a.width, a.height], "mb": round(size_mb, 1),
                 "gop": a.gop, "segment_seconds": a.segment_seconds, "workers": a.workers,
                 "cold": a.cold},
        "load_average": [round(v, 1) for v in os.getloadavg()],
        "first_inference_s": {k: [round(x, 3) for x in v] for k, v in runs.items()},
        "median_s": {k: round(v, 3) for k, v in median.items()},
    }
    if "base" in median:
        report["ratio_vs_baseline"] = round(median["stack"] / median["base"], 3)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
