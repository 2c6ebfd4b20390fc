"""The one set of limits a video is probed against, wherever it is opened.

An upload (``bounded_probe``, before it is split) and the engine's own input
(``stereo_inference.video_info``) are refused beyond the same sizes: a file
the media worker accepts the engine converts, and the other way round. The
media worker's settings take their defaults from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeLimits:
    max_bytes: int = 20 * 1024**3
    max_duration_s: float = 4 * 3600.0
    max_width: int = 7680  # 8K UHD
    max_height: int = 4320
    timeout_s: float = 300.0  # the packet scan reads the whole file
    max_fps: float = 240.0
    max_frames: int = 1_000_000
    # width x height x frames: the work a source asks for (4K at 60 fps for 30 min fits)
    max_pixel_frames: int = 1_200_000_000_000

    def refuses_size(self, width: int, height: int) -> bool:
        """Whether a ``width`` x ``height`` picture is larger than allowed."""
        return width > self.max_width or height > self.max_height


DEFAULT_LIMITS = ProbeLimits()
