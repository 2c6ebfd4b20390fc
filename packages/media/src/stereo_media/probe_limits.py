"""The one set of limits a video is probed against, wherever it is opened.

An upload (``bounded_probe``, before it is split) and the engine's own input
(``stereo_inference.video_info``) are refused beyond the same bytes, picture
size, duration, frame rate and frame count, in the same words
(:meth:`ProbeLimits.refusal`): a file the media worker accepts the engine
converts, and the other way round. The media worker's settings take their
defaults from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared_types.byte_size import size_words


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

    def refusal(self, *, width: int, height: int, size_bytes: int | None = None,
                fps: float | None = None, frames: int | None = None,
                duration_s: float | None = None) -> str | None:
        """Why a video with these facts (None: not known) is refused, or None."""
        if size_bytes is not None and size_bytes > self.max_bytes:
            return self.too_large(size_bytes)
        if self.refuses_size(width, height):
            return self.too_big(width, height)
        if fps is not None and fps > self.max_fps:
            return self.too_fast(fps)
        if frames is not None and frames > self.max_frames:
            return self.too_many_frames(frames)
        if duration_s is not None and duration_s > self.max_duration_s:
            return self.too_long(duration_s)
        return None

    # -- the sentences a person reads ------------------------------------------------
    def too_large(self, size_bytes: int) -> str:
        return (f"The file is too large ({size_words(size_bytes)}); the limit is "
                f"{size_words(self.max_bytes)}.")

    def too_big(self, width: int, height: int) -> str:
        return (f"The video is {width}x{height}, larger than the allowed "
                f"{self.max_width}x{self.max_height}.")

    def too_fast(self, fps: float) -> str:
        return f"The video has {fps:.0f} frames per second; at most {self.max_fps:g} are allowed."

    def too_many_frames(self, frames: int) -> str:
        return f"The video has {frames:,} frames; at most {self.max_frames:,} are allowed."

    def too_long(self, duration_s: float) -> str:
        return (f"The video is too long ({duration_s / 60:.1f} min); the limit is "
                f"{self.max_duration_s / 60:.1f} min.")


DEFAULT_LIMITS = ProbeLimits()
