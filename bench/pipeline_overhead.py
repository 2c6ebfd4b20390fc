"""What does the pipeline cost on top of the engine? (issues 8 and 17, "Pipeline overhead")

Wall time (and CPU seconds, from each process's own rusage) of
``stereo-spot convert --workers N`` (CLI start, worker processes, chunking,
per-segment conversion with seamless depth, segment events, reassembly,
download, drain) against the engine on the same clip in the same run:

- ``engine_cli``: ``stereo-inference convert`` as a user runs it (a new
  process: interpreter and imports included) -- what the stack replaces,
  so the reference of the goal (<= 1.10 with one worker);
- ``engine_in_process``: ``convert_file`` in this process, start-up paid once
  before timing (the engine's bare conversion time).

Runs are interleaved round by round, so machine noise hits every variant
alike. For the stack, ``edges_s`` also says where its fixed cost sits, from
the video-workers' logs: ``start`` from the CLI's start to the first
segment's inference, ``end`` from the last segment's completion to the CLI's
exit (medians; less noisy than whole runs, whose conversions dominate). Ratios are of medians. ``--baseline TREE`` adds ``base_N_workers``
variants: the same stack with another checkout's ``packages/*/src`` first on
``PYTHONPATH`` (e.g. ``git worktree add /tmp/base main``), for a same-run A/B
of a change.

Usage: .venv/bin/python bench/pipeline_overhead.py [--seconds 16] [--width 1280 --height 720]
       [--segment-seconds 4] [--mode half-sbs] [--workers 1,2] [--repeat 2] [--baseline TREE]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from local_stack.testing.media import video_facts
from shared_types.models import ConversionParams, OutputMode
from stereo_media.testing.media import make_video

BIN = Path(sys.executable).parent
# A baseline tree's own console-script entry: ``local_stack.launch`` where it has
# one (it starts video-workers early), else the CLI itself (older trees).
BASE_CLI = ("import sys\ntry:\n    from local_stack.launch import main\n"
            "except ImportError:\n    from local_stack.cli import main\nsys.exit(main())")


def run_child(argv: list[str], pythonpath: str | None = None) -> tuple[float, float]:
    """(wall s, CPU s of the process and every descendant it waited for)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STEREO_SPOT_")}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"{argv[:3]} failed: {proc.stderr.read().decode()[-800:]}")
    proc.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime


def log_times(lines: list[str], marker: str) -> list[float]:
    """Epoch seconds of the log lines (``logging``'s default asctime) holding ``marker``."""
    return [datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()
            for line in lines if marker in line]


def stack_edges(logs: Path, started: float, ended: float) -> tuple[float, float]:
    """(CLI start -> first segment's inference, last completion -> CLI exit), seconds."""
    lines = [line for log in logs.glob("video-worker-*.log")
             for line in log.read_text().splitlines()]
    first = min(log_times(lines, "inference attempt"))
    last = max(log_times(lines, "completion recorded"))
    return first - started, ended - last


def engine_in_process(clip: Path, out: Path, mode: str) -> tuple[float, float]:
    from stereo_inference import convert_file

    before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    convert_file(clip, out, mode=OutputMode(mode), params=ConversionParams())
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=16)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--segment-seconds", type=float, default=4)
    p.add_argument("--mode", default="half-sbs")
    p.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--baseline", type=Path, help="another checkout to compare the stack with")
    a = p.parse_args()
    base_path = (os.pathsep.join(str(d) for d in sorted(a.baseline.glob("packages/*/src")))
                 if a.baseline else None)
    import stereo_inference.convert  # noqa: F401 (start-up is not an in-process cost)

    workers = [int(n) for n in a.workers.split(",")]
    runs: dict[str, list[tuple[float, float]]] = {}
    edges: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="overhead-") as tmp:
        tmp = Path(tmp)
        clip = make_video(tmp / "clip.mp4", seconds=a.seconds, size=(a.width, a.height))
        for i in range(a.repeat):
            variants = [("engine_in_process", None), ("engine_cli", None)]
            variants += [(f"stack_{n}_workers", n) for n in workers]
            if base_path:
                variants += [(f"base_{n}_workers", n) for n in workers]
            for name, n in variants[i % len(variants):] + variants[: i % len(variants)]:
                out = tmp / f"{name}{i}.mp4"
                if name == "engine_in_process":
                    result = engine_in_process(clip, out, a.mode)
                elif name == "engine_cli":
                    result = run_child([str(BIN / "stereo-inference"), "convert", str(clip),
                                        str(out), "--mode", a.mode, "--no-progress"])
                else:
                    data = tmp / f"data-{name}-{i}"
                    started = time.time()
                    # a baseline tree runs its own CLI (this venv's console script
                    # may enter through a module that tree does not have)
                    program = ([sys.executable, "-c", BASE_CLI] if name.startswith("base_")
                               else [str(BIN / "stereo-spot")])
                    result = run_child([
                        *program, "convert", str(clip), "-o", str(out),
                        "--mode", a.mode, "--workers", str(n),
                        "--segment-seconds", str(a.segment_seconds),
                        "--data-dir", str(data)],
                        base_path if name.startswith("base_") else None)
                    edges.setdefault(name, []).append(
                        stack_edges(data / "logs", started, time.time()))
                runs.setdefault(name, []).append(result)
        frames = {name: video_facts(tmp / f"{name}0.mp4").frames for name in runs}
    wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
    cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
    report = {
        "clip": {"seconds": a.seconds, "size": [a.width, a.height], "mode": a.mode,
                 "segment_seconds": a.segment_seconds},
        "load_average": [round(v, 1) for v in os.getloadavg()],
        "runs_s": {k: [round(r[0], 2) for r in v] for k, v in runs.items()},
        "cpu_s": {k: round(v, 2) for k, v in cpu.items()},
        "edges_s": {k: {"start": round(statistics.median(e[0] for e in v), 3),
                        "end": round(statistics.median(e[1] for e in v), 3)}
                    for k, v in edges.items()},
        "frames": frames,
    }
    for n in workers:
        stack = f"stack_{n}_workers"
        report[f"ratio_{n}w_vs_engine_cli"] = round(wall[stack] / wall["engine_cli"], 3)
        report[f"ratio_{n}w_vs_in_process"] = round(wall[stack] / wall["engine_in_process"], 3)
        report[f"cpu_ratio_{n}w_vs_engine_cli"] = round(cpu[stack] / cpu["engine_cli"], 3)
        if base_path:
            report[f"ratio_{n}w_vs_baseline"] = round(wall[stack] / wall[f"base_{n}_workers"], 3)
            report[f"cpu_ratio_{n}w_vs_baseline"] = round(
                cpu[stack] / cpu[f"base_{n}_workers"], 3)
    if len(workers) > 1:
        report["two_vs_one_worker"] = round(
            wall[f"stack_{workers[1]}_workers"] / wall[f"stack_{workers[0]}_workers"], 3)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
