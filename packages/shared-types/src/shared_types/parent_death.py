"""A child that ends when its parent does (Linux ``PR_SET_PDEATHSIG``).

A supervised worker must not outlive the command that started it: the kernel
sends it SIGTERM (it drains) when its parent exits, however the parent ended.
Set between fork and exec (``preexec_fn``) or in a forked child; the setting
is cleared by a fork, so each child sets its own. Elsewhere than Linux this
does nothing.
"""

from __future__ import annotations

import ctypes
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask the kernel to send this process ``sig`` when its parent exits. Never raises."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, sig)
        except OSError:
            pass
