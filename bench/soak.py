"""Soak: many concurrent jobs while workers are SIGKILLed; does every job get an answer?

Runs the local stack's workers (media-worker + video-workers, supervised and
restarted like ``stereo-spot serve``) on a fresh data folder, submits ``--jobs``
clips of mixed lengths at once, SIGKILLs a random worker every ``--kill-every``
seconds for the first ``--kill-for`` seconds, then waits for every job to end.
The janitor runs every few seconds with a short ``stuck_after_s`` so lost work
is recovered within the run. Reports jobs completed, failed, stuck (not
terminal at the deadline), wrong (completed but the final video does not have
the source's frame count, or an invariant of ``job_problems`` fails), kills,
rechunked (jobs whose chunking run was taken over by a second chunker:
``Job.run`` > 1, the first one fenced out) and wall time. Goal: 0 stuck, 0 wrong.

Usage: .venv/bin/python bench/soak.py [--jobs 20] [--kill-every 4] [--kill-for 120]
       [--workers 2] [--timeout 1800]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import tempfile
import time
from pathlib import Path

from local_adapters import build_backend
from local_stack.settings import StackSettings
from local_stack.submission import submit_job
from local_stack.testing.invariants import job_problems
from local_stack.testing.media import video_facts
from local_stack.testing.stack import running_workers
from shared_types.models import ConversionParams, JobStatus, OutputMode
from stereo_media.testing.media import make_video

MODES = [OutputMode.HALF_SBS, OutputMode.SBS, OutputMode.TB, OutputMode.ANAGLYPH]


def make_clips(folder: Path, lengths: list[float]) -> dict[float, Path]:
    return {s: make_video(folder / f"clip-{s:g}s.mp4", seconds=s, gop=24)
            for s in sorted(set(lengths))}


def soak(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="soak-"))
    settings = StackSettings(_env_file=None, data_dir=work / "data", workers=args.workers,
                             visibility_s=10, lease_s=10, sqs_wait_s=1, segment_seconds=2,
                             restart_backoff_s=0.2, drain_timeout_s=10)
    env = {**os.environ, "STEREO_SPOT_STUCK_AFTER_S": str(args.stuck_after),
           "STEREO_SPOT_JANITOR_INTERVAL_S": "5", "STEREO_SPOT_DATA_DIR": str(settings.data_dir),
           "STEREO_SPOT_VISIBILITY_S": "10", "STEREO_SPOT_LEASE_S": "10"}
    backend = build_backend(settings)
    lengths = [rng.choice([2.0, 4.0, 6.0, 9.0]) for _ in range(args.jobs)]
    clips = make_clips(work, lengths)
    params = ConversionParams(preset="ultrafast")
    start = time.monotonic()
    kills = 0
    with running_workers(settings, env=env) as sup:
        jobs = {submit_job(backend, clips[s], mode=rng.choice(MODES), params=params).job_id: s
                for s in lengths}
        deadline = start + args.timeout
        while time.monotonic() < deadline:
            ended = all(backend.jobs.get(j).status.is_final for j in jobs)
            if ended:
                break
            if time.monotonic() - start < args.kill_for:
                pids = sup.pids()
                if pids:
                    os.kill(pids[rng.choice(sorted(pids))], signal.SIGKILL)
                    kills += 1
                time.sleep(args.kill_every)
            else:
                time.sleep(1.0)
        wall = time.monotonic() - start
    report = {"jobs": len(jobs), "completed": 0, "failed": 0, "stuck": 0, "wrong": 0,
              "kills": kills, "rechunked": 0, "wall_s": round(wall, 1), "failures": {},
              "problems": []}
    for job_id, seconds in jobs.items():
        job = backend.jobs.get(job_id)
        report["rechunked"] += job.run > 1
        if not job.status.is_final:
            report["stuck"] += 1
            report["problems"].append(f"{job_id} stuck in {job.status.value}")
            continue
        problems = job_problems(backend, job)
        if job.status == JobStatus.COMPLETED:
            report["completed"] += 1
            out = work / f"{job_id}.{job.container.value}"
            backend.output_storage.get_file(job.final_key, out)
            if video_facts(out).frames != round(seconds * 24):
                problems.append(f"{job_id}: {video_facts(out).frames} frames, "
                                f"expected {round(seconds * 24)}")
        else:
            report["failed"] += 1
            code = job.error.code if job.error else "none"
            report["failures"][code] = report["failures"].get(code, 0) + 1
        if problems:
            report["wrong"] += 1
            report["problems"] += problems
    report["data_dir"] = str(settings.data_dir)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kill-every", type=float, default=4.0)
    parser.add_argument("--kill-for", type=float, default=120.0)
    parser.add_argument("--stuck-after", type=float, default=90.0)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--seed", type=int, default=13)
    print(json.dumps(soak(parser.parse_args()), indent=2))


if __name__ == "__main__":
    main()
