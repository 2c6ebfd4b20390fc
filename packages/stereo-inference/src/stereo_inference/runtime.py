"""Where and how a conversion runs: device, CPU threads, the partial output name.

Shared by ``convert`` (frame estimators), ``iw3`` (whole-segment delegation) and
``seams`` (context warm-up), so none of them imports another.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import torch


def resolve_device(device: str | torch.device | None) -> torch.device:
    """``device``, or CUDA when available, else CPU."""
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def cpu_threads() -> int:
    """Torch threads for CPU work: half the cores, since decoding and x264 run
    beside it (more makes OpenMP threads spin against them)."""
    return max(1, (os.cpu_count() or 2) // 2)


@contextmanager
def compute_threads(device: torch.device, threads: int | None) -> Iterator[None]:
    """Run with ``threads`` torch and OpenCV CPU threads (default ``cpu_threads()``),
    then restore both (they are process-wide settings)."""
    if device.type != "cpu":
        yield
        return
    import cv2

    previous = torch.get_num_threads(), cv2.getNumThreads()
    n = threads or cpu_threads()
    torch.set_num_threads(n)
    cv2.setNumThreads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous[0])
        cv2.setNumThreads(previous[1])


def partial_path(output_path: Path) -> Path:
    """Where a conversion writes until it is complete (same folder, same suffix)."""
    return output_path.with_name(f".{output_path.stem}.partial{output_path.suffix or '.mp4'}")
