"""A process this one did not start, handled like the ``Popen`` of one it did.

The siblings a waiting video-worker forks (``shared_types.handoff``) are its
children, not the supervisor's, so the supervisor cannot ``waitpid`` them. A
pidfd still tells when such a process ends (it becomes readable) and signals
that process and no other, even once its pid is reused; only its exit status
stays with its parent, so ``returncode`` is ``UNKNOWN_EXIT`` once it ended.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess

UNKNOWN_EXIT = -255  # an ended process whose status its own parent collected


def can_adopt() -> bool:
    """True where processes can be watched through pidfds (Linux 5.3 and newer)."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


class AdoptedProcess:
    """``pid``, watched and signalled through a pidfd: ``poll``, ``wait``,
    ``send_signal`` and ``kill`` as ``subprocess.Popen`` has them."""

    stdin = None

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        try:
            self._fd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:  # it has already ended (and been reaped)
            self._fd, self.returncode = None, UNKNOWN_EXIT

    def poll(self) -> int | None:
        """UNKNOWN_EXIT once the process has ended, else None."""
        return self._ended(0)

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the end; raises subprocess.TimeoutExpired after ``timeout`` seconds."""
        if self._ended(-1 if timeout is None else max(0, round(timeout * 1000))) is None:
            raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
        return UNKNOWN_EXIT

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` unless the process has ended (then nothing happens)."""
        if self.poll() is None and self._fd is not None:
            try:
                signal.pidfd_send_signal(self._fd, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _ended(self, timeout_ms: int) -> int | None:
        if self.returncode is None and self._fd is not None:
            waiter = select.poll()
            waiter.register(self._fd, select.POLLIN)
            if waiter.poll(timeout_ms):
                os.close(self._fd)
                self._fd, self.returncode = None, UNKNOWN_EXIT
        return self.returncode
