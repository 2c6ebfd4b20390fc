"""How many video-workers, and how many cores each conversion may use.

One conversion is itself a pipeline of threads (decode, depth, warp, x264's
frame threads) that keeps about two cores busy; more workers than that each
pay their own interpreter, imports and seam warm-ups. Measured on a 2-core
machine (docs/BENCHMARKS.md, "Pipeline overhead"): two workers spent 17-32 %
more CPU than one on the same clip and were slower in 2 of 3 rounds. So the
default is one worker per two cores, and each worker's conversions get an
equal share of the cores (their thread counts follow it).
"""

from __future__ import annotations

CORES_PER_WORKER = 2


def default_workers(cpu_count: int) -> int:
    """Video-workers for a machine of ``cpu_count`` cores: one per two cores, at least one."""
    return max(1, cpu_count // CORES_PER_WORKER)


def conversion_cores(cpu_count: int, workers: int) -> int:
    """CPU cores each of ``workers`` concurrent conversions may use: an equal share
    of the machine, at least one. Each conversion sizes its decoder, encoder and
    render threads from it, so N workers run N x cores threads in all, not N x
    every core (which made two workers on two cores fight over them)."""
    return max(1, cpu_count // max(1, workers))
