"""How right is the ETA the page shows? (issue 16, "Live progress per frame")

Runs real conversions of generated clips of different lengths on the local
backend with real worker processes (one media-worker, ``--workers``
video-workers, heartbeats on), one job after another in one data folder (so
later jobs also have a seconds-per-MB history). Every ``--poll-s`` it reads the
web UI's progress snapshot (``web_ui.progress_snapshot.snapshot``, the same
numbers the page and SSE show). After the job ends, for 10 % and 50 % of its
wall time it compares the ETA shown then with the time that really remained:
error = |ETA - remaining| / remaining, and reports the percent shown then.

Warm-up jobs (``--warmup`` seconds of video each, not reported) run first:
the workers' one-off engine import is behind us and the machine has a
history, as on any machine that has converted a video before.

Usage: .venv/bin/python bench/eta_accuracy.py [--lengths 16 32 48 64 96]
       [--segment-seconds 4] [--workers 2] [--warmup 4 16]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from local_stack.services import worker_specs
from local_stack.settings import StackSettings
from local_stack.submission import submit_job
from local_stack.supervisor import Supervisor
from shared_types.backend_loader import load_backend
from shared_types.models import ConversionParams, OutputMode
from stereo_media.testing.media import make_video
from web_ui.eta import EtaEstimator
from web_ui.progress_snapshot import snapshot

FRACTIONS = (0.1, 0.5)


def follow(backend, job_id: str, eta: EtaEstimator, poll_s: float, timeout_s: float,
           verbose: bool = False):
    """(seconds since submit, ETA shown) samples until the job is final."""
    started = time.monotonic()
    samples: list[tuple[float, float | None, float]] = []
    while time.monotonic() - started < timeout_s:
        job = backend.jobs.get(job_id)
        snap = snapshot(backend, job, eta)
        samples.append((time.monotonic() - started, snap.eta_seconds, snap.percent))
        if verbose:
            print(f"  {samples[-1][0]:6.1f} s {job.status.value:22} {snap.percent:5.1f} % "
                  f"frames {snap.frames_done}/{snap.frames_total} fps {snap.fps} "
                  f"eta {snap.eta_seconds}", flush=True)
        if job.status.is_final:
            return job, samples
        time.sleep(poll_s)
    raise TimeoutError(f"job {job_id} did not finish in {timeout_s} s")


def error_at(samples, fraction: float) -> tuple[float | None, float]:
    """(relative ETA error, percent shown) at ``fraction`` of the job's wall time."""
    total = samples[-1][0]
    at = fraction * total
    t, shown, percent = min(samples, key=lambda s: abs(s[0] - at))
    remaining = total - t
    if shown is None or remaining <= 0:
        return None, percent
    return abs(shown - remaining) / remaining, percent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=float, nargs="+", default=[16, 32, 48, 64, 96])
    parser.add_argument("--warmup", type=float, nargs="*", default=[4.0, 16.0],
                        help="seconds of each warm-up clip (none: no warm-up)")
    parser.add_argument("--segment-seconds", type=float, default=4.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--height", type=int, default=180)
    parser.add_argument("--poll-s", type=float, default=0.25)
    parser.add_argument("--verbose", action="store_true", help="print every sample")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="eta-bench-"))
    settings = StackSettings(data_dir=work / "data", workers=args.workers,
                             segment_seconds=args.segment_seconds, sqs_wait_s=1)
    backend = load_backend(settings)
    eta = EtaEstimator(backend, None, cache_s=0)
    supervisor = Supervisor(worker_specs(settings), log_dir=work / "logs")
    supervisor.start()
    rows = []
    try:
        for i, length in enumerate(args.warmup):
            clip = make_video(work / f"warmup-{i}.mp4", seconds=length,
                              size=(args.width, args.height))
            job = submit_job(backend, clip, mode=OutputMode.HALF_SBS, params=ConversionParams())
            done, samples = follow(backend, job.job_id, eta, args.poll_s, timeout_s=1800)
            print(f"warm-up ({length:g} s clip): {done.status.value} in "
                  f"{samples[-1][0]:.1f} s", flush=True)
        for length in args.lengths:
            clip = make_video(work / f"clip-{length:g}s.mp4", seconds=length,
                              size=(args.width, args.height))
            job = submit_job(backend, clip, mode=OutputMode.HALF_SBS, params=ConversionParams())
            done, samples = follow(backend, job.job_id, eta, args.poll_s, timeout_s=1800,
                                   verbose=args.verbose)
            supervisor.poll()
            errors = [error_at(samples, f) for f in FRACTIONS]
            rows.append((length, done.total_segments, done.status.value, samples[-1][0], errors))
            print(f"{length:g} s clip: {done.status.value} in {samples[-1][0]:.1f} s; " + ", ".join(
                f"at {int(f * 100)} %: " + (f"{e * 100:.0f} % off" if e is not None else "no ETA")
                + f" (page said {p:.0f} %)"
                for f, (e, p) in zip(FRACTIONS, errors, strict=True)), flush=True)
    finally:
        supervisor.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("\n| clip | segments | status | wall s | ETA error at 10 % | ETA error at 50 % "
          "| percent shown at 10 % / 50 % |")
    print("|---|---|---|---|---|---|---|")
    for length, segments, status, wall, errors in rows:
        cells = [f"{e * 100:.0f} %" if e is not None else "no ETA" for e, _ in errors]
        shown = " / ".join(f"{p:.0f} %" for _, p in errors)
        print(f"| {length:g} s | {segments} | {status} | {wall:.1f} | {cells[0]} | {cells[1]} "
              f"| {shown} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
