"""What the pure handlers need, bundled once by the bootstrap."""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

from shared_types.ports import Backend
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.probe_limits import ProbeLimits


def worker_identity() -> str:
    """``hostname:pid:thread``: who holds a lease, unique per consumer thread."""
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


@dataclass(frozen=True)
class MediaDeps:
    backend: Backend
    runner: FfmpegRunner
    limits: ProbeLimits
    work_dir: Path
    segment_seconds: float = 300.0
    segment_lanes: int = 1  # publish order for this many video-workers (segment_order)
    lease_s: float = 120.0
    keepalive_s: float = 60.0  # how often a long step refreshes its job's updated_at
    source_urls: bool = True  # previews read S3 sources by presigned URL (see settings)
