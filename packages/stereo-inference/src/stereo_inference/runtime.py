"""Where and how a conversion runs: device, CPU threads, the partial output name.

Shared by ``convert`` (frame estimators), ``iw3`` (whole-segment delegation) and
``seams`` (context warm-up), so none of them imports another. Devices are
strings ("cpu", "cuda", "cuda:1"): a CPU conversion with the weight-free depth
never imports torch (its import alone costs more than a short clip's render).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

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


# glibc's mallopt parameters, and the values: every buffer up to 32 MiB (the
# largest threshold glibc accepts; a 1080p float map is 8 MiB) comes from the
# heap, and up to 256 MiB of freed heap is kept for the next frame.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 32 << 20, 256 << 20


def reuse_freed_memory() -> bool:
    """Make the C allocator keep and reuse the per-frame buffers a conversion frees.

    By default glibc maps every allocation above ~128 KiB-32 MiB afresh and
    unmaps it when freed, so each frame's maps, planes and warp temporaries
    page-fault in zeroed pages again: measured, that doubled the CPU render's
    cost (bench/render_cost.py). Process-wide, idempotent; False where the C
    library has no ``mallopt`` (not glibc), which changes nothing else.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
                and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))


def cpu_threads(cores: int | None = None, *, learned_model: bool = False) -> int:
    """Torch and OpenCV threads for a conversion's CPU work on ``cores`` cores
    (default: the machine's). Half of them for the weight-free depth, since
    decoding and x264 run beside it (more makes OpenMP threads spin against
    them); all of them for a learned depth model, which takes ~1.5-2.6 s a 720p
    frame against x264's ~10 ms, so nothing else waits for a core (a
    DA-V2-small conversion on 2 cores: 1.75x faster with both)."""
    cores = cores or os.cpu_count() or 2
    return cores if learned_model else max(1, cores // 2)


# CPU flags (Linux's names) of native bfloat16 arithmetic: AVX-512 BF16 (AMD Zen 4,
# Intel Cooper Lake on) and AMX (Intel Sapphire Rapids on).
_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})


def native_bfloat16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """True where this CPU multiplies bfloat16 in hardware, so that a learned
    depth model runs faster in it (DA-V2-small on a 2-core Zen 4: 1.31-1.42x,
    its depth within 0.18 % of fp32's on average; docs/BENCHMARKS.md).
    Elsewhere bfloat16 is emulated and slower than fp32: False, as it is where
    the flags cannot be read (not Linux)."""
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return not _BF16_FLAGS.isdisjoint(line.split(":", 1)[-1].split())
    except OSError:
        pass
    return False


# Pixels decoded and depth-estimated together: a CPU's batches stay small (its
# memory); a GPU's are eight 1080p frames, where the depth model and the warp
# reach their pace (DA-V2-small on an H200: 169 frames/s a frame at a time,
# 531 by eight; the render 273 -> 690).
CPU_BATCH_PIXELS, GPU_BATCH_PIXELS = 4_000_000, 8 * 1920 * 1080
MAX_BATCH_FRAMES = 16


def batch_frames(device, frame_pixels: int) -> int:
    """Frames per batch for frames of ``frame_pixels`` on ``device``."""
    budget = CPU_BATCH_PIXELS if device_type(device) == "cpu" else GPU_BATCH_PIXELS
    return max(1, min(MAX_BATCH_FRAMES, budget // max(1, frame_pixels)))


MAX_RENDERERS = 4


def renderers(device, cores: int | None) -> int:
    """How many batches a conversion renders at once (``stages.run_stages``).

    On a CPU the render (warp plan, remaps, anaglyph mix) is one thread's
    work per batch, and with an anaglyph it is the stage the others wait for:
    one renderer per core of the machine (at most MAX_RENDERERS; their OpenCV
    calls release the GIL) lets it take a free core whenever decoding, depth
    or x264 leave one. Not capped by ``cores`` (a worker's share): a waiting
    render thread costs nothing, and a worker whose neighbour is between
    segments can then use the idle core (two workers on two cores, 16 s clip:
    11.96 -> 11.64 s, medians of 3 alternating rounds). A GPU renders one
    batch at a time.
    """
    if device_type(device) != "cpu":
        return 1
    return max(1, min(MAX_RENDERERS, max(cores or 0, os.cpu_count() or 1)))


@contextmanager
def compute_threads(device, threads: int, *, torch_too: bool = True) -> Iterator[None]:
    """Run with ``threads`` OpenCV (and, with ``torch_too``, torch) CPU threads
    (``cpu_threads`` says how many), then restore them (they are process-wide)."""
    if device_type(device) != "cpu":
        yield
        return
    import cv2

    torch: ModuleType | None = None
    if torch_too:
        import torch
    previous = torch.get_num_threads() if torch else None, cv2.getNumThreads()
    if torch:
        torch.set_num_threads(threads)
    cv2.setNumThreads(threads)
    try:
        yield
    finally:
        if torch:
            torch.set_num_threads(previous[0])
        cv2.setNumThreads(previous[1])


def partial_path(output_path: Path) -> Path:
    """Where a conversion writes until it is complete (same folder, same suffix)."""
    return output_path.with_name(f".{output_path.stem}.partial{output_path.suffix or '.mp4'}")
