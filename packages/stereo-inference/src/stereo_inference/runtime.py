"""Where and how a conversion runs: device, CPU threads, the partial output name.

Shared by ``convert`` (frame estimators), ``iw3`` (whole-segment delegation) and
``seams`` (context warm-up), so none of them imports another. Devices are
strings ("cpu", "cuda", "cuda:1"): a CPU conversion with the weight-free depth
never imports torch (its import alone costs more than a short clip's render).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from stereo_inference.arrays import device_type

# Device nodes a GPU driver creates (NVIDIA; AMD's ROCm, which torch also calls cuda).
GPU_NODES = ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd")


def resolve_device(device=None) -> str:
    """``device`` (a string or torch.device) as a string, or "cuda" when torch sees
    a GPU, else "cpu". Torch is imported only on a machine with a GPU driver."""
    if device:
        return str(device)
    if not any(os.path.exists(node) for node in GPU_NODES):
        return "cpu"
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_threads() -> int:
    """Torch threads for CPU work: half the cores, since decoding and x264 run
    beside it (more makes OpenMP threads spin against them)."""
    return max(1, (os.cpu_count() or 2) // 2)


@contextmanager
def compute_threads(device, threads: int | None, *, torch_too: bool = True) -> Iterator[None]:
    """Run with ``threads`` OpenCV (and, with ``torch_too``, torch) CPU threads
    (default ``cpu_threads()``), then restore them (they are process-wide)."""
    if device_type(device) != "cpu":
        yield
        return
    import cv2

    torch = None
    if torch_too:
        import torch
    previous = torch.get_num_threads() if torch else None, cv2.getNumThreads()
    n = threads or cpu_threads()
    if torch:
        torch.set_num_threads(n)
    cv2.setNumThreads(n)
    try:
        yield
    finally:
        if torch:
            torch.set_num_threads(previous[0])
        cv2.setNumThreads(previous[1])


def partial_path(output_path: Path) -> Path:
    """Where a conversion writes until it is complete (same folder, same suffix)."""
    return output_path.with_name(f".{output_path.stem}.partial{output_path.suffix or '.mp4'}")
