"""A conversion that hangs inside a batch, the way a stuck native call does.

``stuck_convert_file`` is ``convert_file`` whose depth estimator, for an input
named ``stuck*`` or in a folder whose name holds ``-stuck-`` (the video-worker's
folder of a job ``stuck``), never returns from ``estimate``: it first writes a marker
beside the input (proof that the frame loop reached it) and then blocks on an
event, as a decoder, torch op or iw3 call that hangs blocks -- no deadline check
runs until it returns. Any other input converts normally. A module-level
function, so that a spawned ``EngineProcess`` child can be given it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import stereo_inference.convert as engine
from stereo_inference.depth import load_estimator


class StuckDepth:
    """Its ``estimate`` blocks until ``release`` is set (never, unless a test sets it)."""

    name = "stuck"
    max_batch = None

    def __init__(self, marker: Path, release: threading.Event) -> None:
        self._marker, self._release = marker, release

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        return width, height

    def estimate(self, rgb):
        self._marker.write_text("inside a batch")
        self._release.wait()  # the stuck native call
        return rgb[:, :1]


def marker_of(input_path: Path) -> Path:
    """Where a stuck conversion of ``input_path`` says it reached a batch."""
    return Path(input_path).with_suffix(".stuck-in-batch")


def stuck_convert_file(input_path: Path, output_path: Path, *,
                       release: threading.Event | None = None, **kwargs):
    """``convert_file``, stuck inside its first batch for a stuck input (see above)."""
    path = Path(input_path)
    if not (path.name.startswith("stuck") or "-stuck-" in path.parent.name):
        return engine.convert_file(input_path, output_path, **kwargs)
    stuck = StuckDepth(marker_of(input_path), release or threading.Event())
    engine.load_estimator = lambda *args, **kw: stuck  # type: ignore[assignment]  # a test stand-in, not a DepthEstimator subclass
    try:
        return engine.convert_file(input_path, output_path, **kwargs)
    finally:
        engine.load_estimator = load_estimator


def deaf_stuck_convert_file(input_path: Path, output_path: Path, **kwargs):
    """``stuck_convert_file`` in a process that ignores SIGTERM and has started a
    helper process (as an encoder's ffmpeg is), its pid written beside the output."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    (Path(output_path).parent / "helper.pid").write_text(str(helper.pid))
    return stuck_convert_file(input_path, output_path, **kwargs)


def dying_convert_file(input_path: Path, output_path: Path, **kwargs):
    """``convert_file``, but a stuck input kills its own process (as the kernel's
    out-of-memory killer would) instead of hanging."""
    path = Path(input_path)
    if path.name.startswith("stuck") or "-stuck-" in path.parent.name:
        os.kill(os.getpid(), signal.SIGKILL)
    return engine.convert_file(input_path, output_path, **kwargs)
