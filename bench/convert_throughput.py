"""Conversion throughput of every mode against a plain ffmpeg transcode, same run.

A generated clip with audio (default 720p30, 20 s) is transcoded by ffmpeg with
the engine's encoder settings (libx264, same crf and preset, audio copied),
then converted in every mode twice: through the ``stereo-inference convert``
CLI as a user runs it (a new process: interpreter and import start-up
included) and with ``convert_file`` in this process (start-up paid once).
Rounds alternate all of them, so the load of a shared machine hits each
alike. Ratios are ffmpeg seconds / conversion seconds (1.0 = as fast as a
plain transcode), of the medians, for wall time and for CPU seconds (user +
system, less disturbed by other jobs). ``vs_half_sbs`` is a mode's time over
half-SBS's (anaglyph's goal: at most 1.1). ``peak_rss_mb`` is each CLI
conversion's own peak resident memory (from ``wait4``), so it is per mode.
``stages`` (in-process runs) says where the time goes: each pipeline stage's
median busy and CPU seconds (``stereo_inference.stage_clock``; ``codec
threads`` is FFmpeg's decoder and x264's threads, CPU only). ``--floor``
adds ``ffmpeg on the output``: the same plain transcode run on a converted
output, the part of a conversion no depth or warp speed-up can remove (a
warped picture can cost x264 more than its source). ``--baseline TREE`` adds
``base-cli`` runs: the same CLI with another checkout's ``packages/*/src``
first on ``PYTHONPATH`` (its C extension built in place: ``python setup.py
build_ext --inplace`` in its packages/stereo-inference), in the same rounds,
with ``vs_base`` (time over the baseline's) for a same-run A/B of a change.
``--byte-compile`` compiles both trees' sources first, as an installed
package is (where ``PYTHONDONTWRITEBYTECODE`` is set, each CLI run otherwise
compiles the engine's modules again: ~0.07 CPU-s of its start-up).

    .venv/bin/python bench/convert_throughput.py                       # 720p, 20 s
    .venv/bin/python bench/convert_throughput.py --resolution 1080p --seconds 5 --repeat 1
    .venv/bin/python bench/convert_throughput.py --seconds 8 --modes half-sbs --malloc-ab
    .venv/bin/python bench/convert_throughput.py --seconds 8 --no-in-process --baseline /tmp/base
    .venv/bin/python bench/convert_throughput.py --seconds 8 --modes half-sbs --no-in-process \\
        --baseline /tmp/base --byte-compile
    .venv/bin/python bench/convert_throughput.py --modes half-sbs --no-cli --device cuda \\
        --depth depth-anything-v2-small --random-weights --resolution 1080p

``--random-weights`` builds the named Depth-Anything-V2 architecture with
random weights (no download needed): the speed is real, the depth meaningless.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shared_types.conversion import EngineRuntime
from shared_types.models import ConversionParams, DepthModel, OutputMode
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_video

RESOLUTIONS = {"480p": (854, 480), "720p": (1280, 720), "1080p": (1920, 1080),
               "2160p": (3840, 2160)}
CLI = [sys.executable, "-m", "stereo_inference.cli"]
# The same CLI with glibc's allocator left as it is (the A/B of runtime.reuse_freed_memory)
CLI_DEFAULT_MALLOC = [sys.executable, "-c", ("import sys; import stereo_inference.convert as c; "
                      "c.reuse_freed_memory = lambda: False; from stereo_inference.cli import "
                      "main; sys.argv[0] = 'stereo-inference'; sys.exit(main())")]


# A child's peak RSS from wait4 counts the process it was forked from (Linux
# keeps the larger of its memory before and after exec): forked from this bench,
# which also converts in-process, every child reported this process's size
# (1,115 MB for a plain ffmpeg transcode of 160 MB). So each child is forked by
# a small launcher, which times it and reports its rusage on its last stderr line.
LAUNCHER = """import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
      file=sys.stderr)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_child(argv: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one child process, from its own rusage."""
    proc = subprocess.run([sys.executable, "-c", LAUNCHER, *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env, check=False)
    lines = proc.stderr.decode(errors="replace").strip().splitlines()
    if proc.returncode or not lines:
        raise RuntimeError(f"{argv[:4]} failed: {proc.stderr.decode()[-800:]}")
    wall, cpu, maxrss_kb = (float(x) for x in lines[-1].split())
    return wall, cpu, maxrss_kb / 1024


def ffmpeg_argv(src: Path, dst: Path, crf: int, preset: str) -> list[str]:
    return [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-i", str(src),
            "-c:v", "libx264", "-crf", str(crf), "-preset", preset, "-pix_fmt", "yuv420p",
            "-c:a", "copy", str(dst)]


def cli_argv(src: Path, dst: Path, mode: str, args, cli: list[str] = CLI) -> list[str]:
    argv = [*cli, "convert", str(src), str(dst), "--mode", mode, "--depth", args.depth,
            "--crf", str(args.crf), "--preset", args.preset, "--no-progress"]
    return argv + (["--device", args.device] if args.device else [])


def in_process(src: Path, dst: Path, mode: str, args, models_dir: Path,
               stages: list | None = None) -> tuple[float, float]:
    """(wall s, CPU s) of ``convert_file`` in this process; its per-stage times
    (``ConversionResult.stages``) appended to ``stages``."""
    from stereo_inference.convert import convert_file

    params = ConversionParams(depth_model=args.depth, crf=args.crf, preset=args.preset)
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    result = convert_file(
        src, dst, mode=mode, params=params,
        runtime=EngineRuntime(models_dir=models_dir, device=args.device, ffmpeg=args.ffmpeg))
    wall = time.perf_counter() - start
    if stages is not None:
        stages.append(result.stages)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def summarise(runs: dict[str, list], reference: dict[str, float] | None) -> dict:
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    out = {"s": round(wall, 2), "cpu_s": round(cpu, 2), "runs_s": [round(r[0], 2) for r in runs],
           "runs_cpu_s": [round(r[1], 2) for r in runs]}
    if reference:
        out["ratio"] = round(reference["s"] / wall, 3)
        out["cpu_ratio"] = round(reference["cpu_s"] / cpu, 3)
    if len(runs[0]) > 2:
        out["peak_rss_mb"] = round(max(r[2] for r in runs))
    return out


def median_stages(runs: list[dict]) -> dict:
    """Each stage's median busy, CPU and (where measured) starved and blocked
    seconds over ``runs`` (where the time goes)."""
    return {name: {key: round(statistics.median(r[name][key] for r in runs
                                                if key in r.get(name, {})), 2)
                   for key in ("busy_s", "cpu_s", "starved_s", "blocked_s") if key in stage}
            for name, stage in runs[0].items()}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--resolution", choices=sorted(RESOLUTIONS), default="720p")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--frames", type=int, default=None, help="overrides --seconds")
    p.add_argument("--modes", default=",".join(m.value for m in OutputMode),
                   help="comma-separated output modes (default: all)")
    p.add_argument("--depth", choices=[m.value for m in DepthModel], default="heuristic")
    p.add_argument("--random-weights", action="store_true")
    p.add_argument("--device", default=None, help="cpu or cuda (default: auto)")
    p.add_argument("--crf", type=int, default=20)
    p.add_argument("--preset", default="veryfast")
    p.add_argument("--no-cli", action="store_true", help="skip the CLI runs")
    p.add_argument("--no-in-process", action="store_true", help="skip the in-process runs")
    p.add_argument("--malloc-ab", action="store_true",
                   help="also run the CLI with glibc's allocator left as it is")
    p.add_argument("--skip-ffmpeg", action="store_true", help="no plain-transcode reference")
    p.add_argument("--floor", action="store_true",
                   help="also transcode each in-process output with the same ffmpeg command: "
                        "what encoding the converted picture costs by itself")
    p.add_argument("--clip", type=Path, default=None,
                   help="convert this clip instead of generating one (machines without ffmpeg)")
    p.add_argument("--ffmpeg", default=None,
                   help="ffmpeg binary for the engine's final mux (audio, subtitles, chapters)")
    p.add_argument("--repeat", type=int, default=3, help="rounds; medians are reported")
    p.add_argument("--baseline", type=Path, default=None,
                   help="another checkout whose CLI runs beside this one's (same-run A/B)")
    p.add_argument("--byte-compile", action="store_true",
                   help="compile this tree's and the baseline's packages/*/src to bytecode "
                        "first, as installing a package does (with PYTHONDONTWRITEBYTECODE "
                        "set, each CLI run otherwise compiles the engine's modules anew)")
    args = p.parse_args(argv)
    modes = [OutputMode(m).value for m in args.modes.split(",")]
    if args.byte_compile:
        trees = [Path(__file__).resolve().parent.parent, *([args.baseline] if args.baseline else [])]
        for src in sorted(d for tree in trees for d in tree.glob("packages/*/src")):
            compileall.compile_dir(src, quiet=1)
    seconds = args.frames / args.fps if args.frames else args.seconds
    with tempfile.TemporaryDirectory(prefix="convert-bench-") as tmp:
        work = Path(tmp)
        clip = args.clip or make_video(work / "clip.mp4", seconds=seconds,
                                       size=RESOLUTIONS[args.resolution], fps=args.fps,
                                       gop=args.fps * 2)
        models_dir = work / "models"
        env = {**os.environ, "STEREO_SPOT_MODELS_DIR": str(models_dir)}
        base_env = ({**env, "PYTHONPATH": os.pathsep.join(
            str(d) for d in sorted(args.baseline.glob("packages/*/src")))}
            if args.baseline else None)
        if args.random_weights and args.depth.startswith("depth-anything"):
            from stereo_inference.depth.architectures import random_depth_anything

            random_depth_anything(args.depth).save_pretrained(models_dir / args.depth)
        if not args.no_in_process:
            import stereo_inference.convert  # noqa: F401 (start-up is not an in-process cost)
        runs: dict[str, list] = {"ffmpeg": []}
        stages: dict[str, list] = {}
        for i in range(max(1, args.repeat)):
            if not args.skip_ffmpeg:
                runs["ffmpeg"].append(
                    run_child(ffmpeg_argv(clip, work / "plain.mp4", args.crf, args.preset)))
            for mode in modes[i % len(modes):] + modes[: i % len(modes)]:
                clis = []  # the CLI runs of this round, in an order that turns round by round
                if not args.no_cli:
                    clis.append((f"cli {mode}", cli_argv(clip, work / "cli.mp4", mode, args), env))
                if base_env:
                    clis.append((f"base-cli {mode}", cli_argv(clip, work / "base.mp4", mode, args),
                                 base_env))
                if args.malloc_ab:
                    clis.append((f"cli-default-malloc {mode}",
                                 cli_argv(clip, work / "cli.mp4", mode, args, CLI_DEFAULT_MALLOC),
                                 env))
                turn = i % len(clis) if clis else 0
                for name, command, child_env in clis[turn:] + clis[:turn]:
                    # the CLI keeps an existing output: the last round's goes first
                    Path(command[command.index("convert") + 2]).unlink(missing_ok=True)
                    runs.setdefault(name, []).append(run_child(command, child_env))
                if not args.no_in_process:
                    runs.setdefault(f"in-process {mode}", []).append(in_process(
                        clip, work / "in.mp4", mode, args, models_dir,
                        stages.setdefault(f"in-process {mode}", [])))
                    if args.floor:
                        runs.setdefault(f"ffmpeg on the output {mode}", []).append(run_child(
                            ffmpeg_argv(work / "in.mp4", work / "floor.mp4", args.crf,
                                        args.preset)))
    plain = runs.pop("ffmpeg")  # empty with --skip-ffmpeg
    reference = summarise(plain, None) if plain else None
    results = {name: summarise(r, reference) for name, r in runs.items()}
    for name, per_run in stages.items():
        results[name]["stages"] = median_stages(per_run)
    for name, result in results.items():
        kind = name.split(" ")[0]
        half = results.get(f"{kind} half-sbs")
        if half and not name.endswith("half-sbs"):
            result["vs_half_sbs"] = round(result["s"] / half["s"], 3)
            result["cpu_vs_half_sbs"] = round(result["cpu_s"] / half["cpu_s"], 3)
        base = results.get(f"base-cli {name.split(' ', 1)[1]}") if kind == "cli" else None
        if base:
            result["vs_base"] = round(result["s"] / base["s"], 3)
            result["cpu_vs_base"] = round(result["cpu_s"] / base["cpu_s"], 3)
    summary = {"resolution": args.resolution, "seconds": seconds, "fps": args.fps,
               "depth": args.depth, "device": args.device or "auto", "repeat": args.repeat,
               "load_average": [round(v, 1) for v in os.getloadavg()],
               "ffmpeg": reference, **results}
    print(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
