"""How many video-workers, and how many cores each conversion may use.

One conversion is itself a pipeline of threads (decode, depth, warp, x264's
frame threads) that keeps about two cores busy; more workers than that each
pay their own interpreter, imports and seam warm-ups. Measured on a 2-core
machine (docs/BENCHMARKS.md, "Pipeline overhead"): two workers spent 17-32 %
more CPU than one on the same clip and were slower in 2 of 3 rounds. So the
default is one worker per two cores, and each worker's conversions get an
equal share of the cores (their thread counts follow it).

Workers asked for beyond that share the cores a single conversion would use
(``--workers 2`` on two cores). Each extra one converts its own run of
segments and first rebuilds the depth state at its run's start from the
frames before it (a seam warm-up, ~0.3-0.5 s of a core); what it gains is
only the share of the cores one conversion leaves idle at its segments' fills
and flushes (~7 %). On a short video the warm-up costs more than that: on a
16 s 720p24 clip two workers took 1.01-1.03x one worker's time, on 24 s 0.99x,
on 60 s 0.96x (docs/BENCHMARKS.md, "Pipeline overhead"). So one video
(``convert``) runs only as many of them as give each run at least
MIN_SHARED_LANE_FRAMES frames.
"""

from __future__ import annotations

CORES_PER_WORKER = 2
MIN_SHARED_LANE_FRAMES = 360  # 15 s at 24 fps: where a lane sharing cores pays for its warm-up


def default_workers(cpu_count: int) -> int:
    """Video-workers for a machine of ``cpu_count`` cores: one per two cores, at least one."""
    return max(1, cpu_count // CORES_PER_WORKER)


def conversion_cores(cpu_count: int, workers: int) -> int:
    """CPU cores each of ``workers`` concurrent conversions may use: an equal share
    of the machine, at least one. Each conversion sizes its decoder, encoder and
    render threads from it, so N workers run N x cores threads in all, not N x
    every core (which made two workers on two cores fight over them)."""
    return max(1, cpu_count // max(1, workers))


def workers_for_video(requested: int, cpu_count: int, frames: int | None) -> int:
    """How many of ``requested`` video-workers to run for one video of about
    ``frames`` frames on ``cpu_count`` cores: all of those that get
    CORES_PER_WORKER cores each, and of the rest only as many as leave every
    worker's run at least MIN_SHARED_LANE_FRAMES frames. ``frames`` None (not
    known) keeps ``requested``."""
    if not shares_cores(requested, cpu_count) or frames is None:
        return requested
    return max(default_workers(cpu_count), min(requested, frames // MIN_SHARED_LANE_FRAMES))


def shares_cores(requested: int, cpu_count: int) -> bool:
    """Whether some of ``requested`` video-workers would get fewer than
    CORES_PER_WORKER cores each on ``cpu_count`` cores (the ones
    ``workers_for_video`` weighs)."""
    return requested > default_workers(cpu_count)
