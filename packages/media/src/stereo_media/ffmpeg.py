"""Where the ffmpeg binary is: an explicit path, else the pinned imageio-ffmpeg
static build (the same ffmpeg on every machine), else ``ffmpeg`` on PATH; and
the arguments every unattended run starts with."""

from __future__ import annotations

import shutil
import threading
from functools import cache

from shared_types.errors import FfmpegNotFoundError

__all__ = ["QUIET", "FfmpegNotFoundError", "ffmpeg_path", "find_soon"]

# no banner, no reading stdin, errors only, overwrite: a run no one watches
QUIET = ("-hide_banner", "-nostdin", "-loglevel", "error", "-y")


@cache
def ffmpeg_path(explicit: str | None = None) -> str:
    """Path of the ffmpeg binary to run. Raises FfmpegNotFoundError.

    ``explicit`` is what settings read from ``STEREO_SPOT_FFMPEG``.
    """
    if explicit:
        return explicit
    try:
        import imageio_ffmpeg

        return imageio_ffmpeg.get_ffmpeg_exe()
    except (ImportError, RuntimeError):
        pass
    found = shutil.which("ffmpeg")
    if found:
        return found
    raise FfmpegNotFoundError(
        "ffmpeg not found: install the imageio-ffmpeg package or set STEREO_SPOT_FFMPEG"
    )


def find_soon(explicit: str | None = None) -> None:
    """``ffmpeg_path(explicit)`` in a background thread, for a caller that will
    run ffmpeg later: imageio-ffmpeg checks its build by running it once
    (``ffmpeg -version``, 20-40 ms), which then overlaps the caller's work
    instead of delaying its first run. A failure is left to that run. Nothing
    to do with an explicit binary, or once found (a worker converts many
    segments in one process)."""
    if explicit or ffmpeg_path.cache_info().currsize:
        return

    def find() -> None:
        try:
            ffmpeg_path()
        except FfmpegNotFoundError:
            pass

    threading.Thread(target=find, name="find-ffmpeg", daemon=True).start()
