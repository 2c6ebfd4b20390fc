"""A real small filesystem for tests of a full disk: a tmpfs mounted at a folder.

A tmpfs of a few MiB fills up like any disk: writes fail with ENOSPC, ffmpeg
says "No space left on device". Mounting needs root (CAP_SYS_ADMIN); where it
is refused (an unprivileged container), the test is skipped with the reason,
in CI too: the privilege comes with the machine, not with the repository.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

FILLER = "filler.bin"


@contextmanager
def small_disk(path: Path, size_bytes: int) -> Iterator[Path]:
    """Mount a tmpfs of ``size_bytes`` at ``path`` (made if missing) for the
    block, then unmount it. Skips the test where mounting is not allowed."""
    path.mkdir(parents=True, exist_ok=True)
    mount = shutil.which("mount")
    done = subprocess.run(
        [mount or "mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode=0777", "tmpfs",
         str(path)], capture_output=True, text=True, check=False) if mount else None
    if done is None or done.returncode != 0:
        reason = done.stderr.strip() if done is not None else "no mount command"
        pytest.skip(f"cannot mount a small tmpfs for a full-disk test (needs root): {reason}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)


def fill(path: Path, *, leave_bytes: int = 0) -> Path:
    """Take all but ``leave_bytes`` of the free space of the filesystem holding
    ``path`` with one file (delete it to give the space back)."""
    filler = path / FILLER
    free = shutil.disk_usage(path).free
    with open(filler, "ab") as out:
        out.write(b"\0" * max(0, free - leave_bytes))
    return filler


def entries(path: Path) -> list[str]:
    """What a folder holds, the filler left out, sorted (leftover temp files)."""
    return sorted(p.name for p in path.iterdir() if p.name != FILLER)
