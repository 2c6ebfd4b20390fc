"""One malloc arena for a process whose threads come and go job after job.

glibc gives threads their own malloc arenas, up to eight per core. A
conversion's threads (decode, depth, render, the encoder's) allocate their
frames there, and when a conversion ends and its memory is freed, glibc hands
those arenas' heaps back to the system. The next conversion in the same
process (or the next job's stages in the CLI that hosts them) then touches
all of that memory afresh: measured on a video-worker
converting four 4 s 720p segments, twice the engine's page faults for the same
frames (106k against 51k) and ~0.4 CPU-s of kernel time more, most of it at
each segment's start. With every thread in the main arena, whose freed memory
glibc keeps for reuse (it trims only the heap's top, past a threshold that
grows with the sizes freed), that worker faults what the engine does (55k),
and a process's peak memory is lower too (fewer half-empty arenas): 380 MB
against 446 MB for those four segments converted in one process.

The arenas' lock is then shared, but a conversion's threads allocate per frame,
not per pixel: a few hundred calls a second, not enough to contend on.

Call ``use_one_malloc_arena`` first thing in the process, before it starts
threads: an arena a thread already holds stays its own.
"""

from __future__ import annotations

import ctypes

M_ARENA_MAX = -8  # glibc's <malloc.h>


def use_one_malloc_arena() -> bool:
    """Make every thread of this process allocate from the main arena; False
    (and nothing changed) where the C library is not glibc."""
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 (glibc only: musl has no arenas to cap)
        return libc.mallopt(M_ARENA_MAX, 1) == 1
    except (OSError, AttributeError):
        return False
