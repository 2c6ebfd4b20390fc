"""use_one_malloc_arena: threads started after it allocate from the main arena."""

import platform
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc",
                                reason="malloc arenas are glibc's")

# Eight threads alive at once, each allocating; then glibc's own account of its
# arenas (malloc_stats writes one "Arena N:" block per arena to stderr).
SCRIPT = """
import ctypes, sys, threading
if sys.argv[1] == "capped":
    from shared_types.malloc_arenas import use_one_malloc_arena
    assert use_one_malloc_arena()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
barrier = threading.Barrier(8)
def allocate():
    barrier.wait()
    libc.malloc(64 * 1024)
    barrier.wait()
threads = [threading.Thread(target=allocate) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc.malloc_stats()
"""


def arenas(how: str) -> int:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, how], capture_output=True, text=True,
                          timeout=60, check=True)
    return len(re.findall(r"^Arena \d+:", proc.stderr, flags=re.M))


def test_threads_share_the_main_arena():
    assert arenas("capped") == 1


def test_without_it_threads_get_arenas_of_their_own():
    """The negative control: what the cap changes."""
    assert arenas("default") > 1
